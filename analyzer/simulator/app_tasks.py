"""The scripted model behind the sample tasks: 30 app-automation tasks and how the "model" answers them.

The embedded simulator plays this model by default, so re-running a sample log offline gives answers
that can be graded. Each task has an answer distribution: "stable" tasks have one clear answer;
"format" tasks have two phrasings that backends disagree on (the route decides which you get);
"noisy" tasks carry inherent model noise (a pinned route does not cure them); "hard" tasks are mostly
answered wrong. Prompts that match no task fall back to answers derived from the prompt.
"""

from __future__ import annotations

from analyzer.log.model import TaskSpec
from analyzer.simulator.scenario import AnswerRule, Choice, Faults, KeyConfig, Scenario

SAMPLE_KEYS = ["sim-team-key-1", "sim-team-key-2", "sim-team-key-3"]
"""Simulator keys used by the sample logs (public, not secrets); each sticks to its own backend."""

# task_id, kind, prompt, expected, other answers (a phrasing variant or a wrong answer)
APP_TASKS: list[tuple[str, str, str, str, list[str]]] = [
    (
        "shop-001",
        "format",
        "In the ShopNow app, open order #58213 (placed May 2) and report the order total "
        "including tax and shipping.",
        "$84.97",
        ["84.97 USD"],
    ),
    (
        "shop-002",
        "format",
        "In ShopNow, search 'usb-c cable', sort by price, and add the cheapest cable with at "
        "least 4 stars to the cart. Which product did you add?",
        "Anker PowerLine USB-C 1m",
        ["Anker PowerLine USB-C cable (1 m)"],
    ),
    (
        "shop-003",
        "stable",
        "The ShopNow cart holds a phone case twice, a charger and a screen protector. Remove "
        "the duplicate phone case. How many items are in the cart now?",
        "3",
        ["3 items"],
    ),
    (
        "shop-004",
        "noisy",
        "At ShopNow checkout, three coupons are available: SAVE15 (15% off), FREESHIP and "
        "TENOFF ($10 off orders over $60). Apply the best one for the $84.97 cart. Which code did you apply?",
        "SAVE15",
        ["TENOFF"],
    ),
    (
        "shop-005",
        "format",
        "Open the standing desk in the ShopNow cart and read the estimated delivery date.",
        "Thursday, March 12",
        ["March 12"],
    ),
    (
        "shop-006",
        "stable",
        "Find the return window for ShopNow order #57102 (wireless earbuds).",
        "30 days",
        ["30 days from delivery"],
    ),
    (
        "shop-007",
        "hard",
        "Compare the sellers of the 'Breville Barista Express' in ShopNow and name the one with "
        "the lowest price including shipping.",
        "HomeBrew Outlet",
        ["Kitchen Depot"],
    ),
    (
        "cal-001",
        "format",
        "In the Calendar app, when is the dentist appointment next week?",
        "Tuesday 14:30",
        ["Tue 2:30 PM"],
    ),
    (
        "cal-002",
        "noisy",
        "Create a 30-minute meeting 'Budget review' with Dana in the first free slot on "
        "Wednesday after 10:00. What start time did you book?",
        "10:30",
        ["11:00"],
    ),
    ("cal-003", "stable", "How many meetings are on Monday's calendar?", "4", ["5"]),
    (
        "cal-004",
        "format",
        "Move 'Team sync' from Thursday to Friday at the same time. What is its new start?",
        "Friday 09:00",
        ["09:00 Friday"],
    ),
    ("cal-005", "format", "Which weekday next week has no meetings at all?", "Friday", ["friday."]),
    (
        "cal-006",
        "stable",
        "Open the 'Design critique' event and copy its video link.",
        "meet.example.com/dcr-4471",
        ["https://meet.example.com/dcr-4471"],
    ),
    (
        "mail-001",
        "stable",
        "In the Mail app, how many unread emails are from billing@cloudhost.io?",
        "2",
        ["3"],
    ),
    (
        "mail-002",
        "format",
        "Find Priya's email about the team offsite. Which city did she propose?",
        "Lisbon",
        ["Lisbon, Portugal"],
    ),
    (
        "mail-003",
        "format",
        "Reply to Marco's latest email accepting the invitation. What subject line does your reply have?",
        "Re: Dinner on Saturday?",
        ["RE: Dinner on Saturday?"],
    ),
    (
        "mail-004",
        "stable",
        "What is the tracking number in the shipping confirmation from ParcelGo?",
        "PG-4481-2209-US",
        ["PG-4481-2209"],
    ),
    (
        "mail-005",
        "noisy",
        "Archive every newsletter received last week (Monday to Sunday). How many emails did you archive?",
        "7",
        ["6"],
    ),
    (
        "mail-006",
        "format",
        "Who is CC'd on the 'Q3 roadmap' thread?",
        "Lena Fischer, Omar Haddad",
        ["Omar Haddad, Lena Fischer"],
    ),
    (
        "file-001",
        "format",
        "In the Files app, which folder contains invoice_2024_03.pdf?",
        "Documents/Invoices",
        ["Invoices"],
    ),
    ("file-002", "format", "What is the size of vacation_video.mp4 in the Files app?", "1.4 GB", ["1.4GB"]),
    (
        "file-003",
        "noisy",
        "Rename 'draft final v2.docx' to the pattern YYYY-MM-DD_title using its modified date "
        "(2024-05-14). What is the new file name?",
        "2024-05-14_draft-final.docx",
        ["2024-05-14_draft_final.docx"],
    ),
    ("file-004", "stable", "How many PDF files are in the Downloads folder?", "12", ["11"]),
    (
        "file-005",
        "format",
        "Share the 'Team photos' folder with sam@example.com so he can only look. Which "
        "permission did you set?",
        "Viewer",
        ["view-only"],
    ),
    (
        "file-006",
        "stable",
        "Which file in the Projects folder was modified most recently?",
        "roadmap_v3.xlsx",
        ["roadmap_v2.xlsx"],
    ),
    (
        "pay-001",
        "format",
        "In the Wallet app, what was the amount of the last payment to City Water Utility?",
        "$63.20",
        ["63.20"],
    ),
    (
        "pay-002",
        "stable",
        "Send $25 to Alex Chen with the note 'lunch'. What confirmation number is shown?",
        "TXN-88412",
        ["TXN-88421"],
    ),
    (
        "pay-003",
        "format",
        "What is the balance of the savings account ending in 4410?",
        "$12,408.55",
        ["$12408.55"],
    ),
    (
        "pay-004",
        "hard",
        "Split the $96 dinner bill evenly among 4 people, including the 15% tip. How much does "
        "each person owe?",
        "$27.60",
        ["$24.00"],
    ),
    (
        "pay-005",
        "noisy",
        "Which subscription renews next, and on what date?",
        "StreamPlus on June 3",
        ["CloudDrive on June 5"],
    ),
]

WEIGHTS = {"stable": (40.0, 1.0), "format": (5.0, 4.0), "noisy": (4.0, 3.0), "hard": (2.0, 5.0)}
FLAKE = {"stable": 0.0, "format": 0.05, "noisy": 0.45, "hard": 0.2}


def app_task_specs() -> list[TaskSpec]:
    """The sample task set (what sample_runs/tasks.json holds)."""
    return [
        TaskSpec(task_id=tid, prompt=prompt, expected=expected) for tid, _k, prompt, expected, _o in APP_TASKS
    ]


def app_answer_rules() -> list[AnswerRule]:
    """One answer rule per sample task (matched on its full prompt)."""
    rules = []
    for _tid, kind, prompt, expected, others in APP_TASKS:
        main, other = WEIGHTS[kind]
        if kind == "hard":
            choices = [Choice(text=others[0], weight=other), Choice(text=expected, weight=main)]
        else:
            choices = [Choice(text=expected, weight=main), Choice(text=others[0], weight=other)]
        rules.append(AnswerRule(match=prompt, choices=choices, flake=FLAKE[kind]))
    return rules


def app_scenario(*, with_faults: bool = False, seed: int = 2026) -> Scenario:
    """The scenario for the sample tasks; `with_faults` adds the mild 429s and 5xx of the sample logs.

    Without faults it is the embedded simulator's default: the load balancer still spills now and
    then and retries may land on another backend, but nothing fails on purpose.
    """
    faults = Faults(spill_rate=0.04, retry_switch_rate=0.6)
    if with_faults:
        faults = Faults(
            rate_limit_rate=0.05,
            server_error_rate=0.02,
            retry_after_s=0.05,
            spill_rate=0.04,
            retry_switch_rate=0.6,
        )
    return Scenario(
        seed=seed,
        latency_ms=(4.0, 12.0),
        keys={
            SAMPLE_KEYS[0]: KeyConfig(backend="east-a"),
            SAMPLE_KEYS[1]: KeyConfig(backend="west-b"),
            SAMPLE_KEYS[2]: KeyConfig(backend="canary-c"),
        },
        faults=faults,
        answers=app_answer_rules(),
    )
