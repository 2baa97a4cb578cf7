"""Regenerate sample_runs/format1_plain_script.json: a format-1 log exactly as a plain script writes it.

The script it imitates ran each task five times with a thread pool, appended results in the order
they finished (so rounds list tasks in different orders), and computed its consistency gap by
indexing rounds as if they were tasks — a bug found in the wild. RerunLens must read the file as is,
align by task_id, and report that the stored gap is wrong.

Usage: python scripts/make_format1_sample.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "sample_runs" / "format1_plain_script.json"
REPEAT = 5
MODEL = "gpt-4o-mini"

# task id -> answers the model gave across reruns (weights decide how often each appears)
TASKS: dict[str, list[tuple[str, int]]] = {
    "shop-cart-total": [("$84.97", 5)],
    "shop-cheapest-usb-c": [("Anker PowerLine III", 3), ("anker powerline iii.", 2)],
    "cal-next-free-slot": [("Tuesday 14:00", 3), ("Tuesday 2pm", 1), ("Wednesday 09:30", 1)],
    "cal-count-meetings": [("7", 5)],
    "mail-unread-from-boss": [("3", 4), ("4", 1)],
    "mail-draft-subject": [("Q3 budget review", 5)],
    "files-largest-pdf": [("annual_report_2025.pdf", 5)],
    "files-count-images": [("128", 2), ("126", 2), ("131", 1)],
    "pay-last-refund": [("$12.50 from Lumen Books", 4), ("$12.50 from Lumen Books.", 1)],
    "pay-monthly-subscriptions": [("$47.96", 3), ("$35.97", 2)],
    "notes-find-wifi-password": [("blue-otter-42", 5)],
    "contacts-dentist-phone": [("+1 415 555 0142", 4), ("I could not find a dentist in your contacts.", 1)],
}


def answers_for(task_id: str, rng: random.Random) -> list[str]:
    """The five answers of one task, shuffled so rounds differ in which answer they got."""
    pool = [answer for answer, weight in TASKS[task_id] for _ in range(weight)]
    rng.shuffle(pool)
    return pool


def main() -> None:
    rng = random.Random(20261130)
    per_task = {t: answers_for(t, rng) for t in TASKS}
    runs: list[list[dict[str, Any]]] = []
    for r in range(REPEAT):
        order = list(TASKS)
        rng.shuffle(order)  # completion order of a thread pool
        rnd: list[dict[str, Any]] = []
        for t in order:
            prompt = 180 + len(t) * 7 + rng.randint(0, 3)
            answer = per_task[t][r]
            completion = max(2, len(answer) // 3 + rng.randint(0, 40))
            rnd.append(
                {
                    "task_id": t,
                    "answer": answer,
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                }
            )
        runs.append(rnd)

    # The script's own summary, with its bug: it walks `runs[i]` for i < repeat as if each were a
    # task's list of answers, so it compares five different tasks within a round.
    task_count = len(TASKS)
    consistent = sum(1 for i in range(REPEAT) if len({res["answer"] for res in runs[i]}) == 1)
    total = sum(res["total_tokens"] for rnd in runs for res in rnd)
    summary = {
        "model": MODEL,
        "base_url": "https://api.openai.com/v1",
        "repeat": REPEAT,
        "task_count": task_count,
        "consistency_gap_pp": round((1 - consistent / task_count) * 100, 2),
        "total_tokens": total,
        "avg_tokens_per_task": round(total / task_count, 2),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w") as fh:
        json.dump({"summary": summary, "runs": runs}, fh, indent=2)
    print(f"wrote {OUT} (stored gap {summary['consistency_gap_pp']} pp)")


if __name__ == "__main__":
    main()
