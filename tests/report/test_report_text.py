"""The terminal report shows every interval and the cause of each inconsistent task."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis import analyze
from analyzer.importers import load_any
from analyzer.log.loader import load_path
from analyzer.log.model import RunLog
from analyzer.metrics.route_factors import side_counts
from analyzer.numbers import p_value
from analyzer.report.text import render_comparison, render_report
from analyzer.verdicts.compare import compare

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"
FOREIGN = Path(__file__).resolve().parents[1] / "fixtures" / "foreign"


def test_report_shows_intervals_and_attribution() -> None:
    analysis = analyze(load_path(SAMPLES / "A_baseline.altk_runs.json").log)
    text = render_report(analysis, "A")
    h = analysis.headline
    low, high = h.answer_gap_ci
    assert f"answer gap {h.answer_gap_pp:.1f} pp (95 % CI {low:.1f}–{high:.1f})" in text
    assert h.outcome is not None
    low, high = h.outcome.outcome_gap_ci
    assert f"outcome gap {h.outcome.outcome_gap_pp:.1f} pp (95 % CI {low:.1f}–{high:.1f})" in text
    low, high = h.outcome.pass_hat_k_ci
    assert f"pass^10 50.0 % (95 % CI {100 * low:.1f}–{100 * high:.1f})" in text
    counts = side_counts(h.attribution)
    shown = ", ".join(f"{counts[c]} {c}" for c in counts)
    assert f"Route or model, from the log alone ({len(h.attribution)} inconsistent tasks): {shown}" in text
    assert "false discovery rate of 5 %" in text and "Benjamini-Hochberg across tasks" in text
    first = h.attribution[0]
    odds = f"{p_value(first.p_value)}, {p_value(first.q_value, 'q')}"
    assert f"  {first.task_id}: {first.cause} ({first.factor}, {odds})" in text


def test_comparison_says_each_difference_in_a_sentence() -> None:
    a = analyze(load_path(SAMPLES / "A_baseline.altk_runs.json").log)
    c = analyze(load_path(SAMPLES / "C_pinned.altk_runs.json").log)
    text = render_comparison(compare([("A", a), ("C", c)]))
    assert "Differences against the first group (paired over shared tasks)" in text
    assert "C's answer gap is 26.7 pp lower than A's over 30 shared tasks" in text
    assert "p = 0.021" in text


def _agent_log() -> RunLog:
    """Two tasks x three rounds of tool calls: `same` repeats itself; `parts` buys in rounds 1-2 and
    refunds in round 3, so its rounds part at step 1 (0-based)."""
    search = {"type": "tool_call", "name": "search", "arguments": {"q": "lamp"}}
    buy = {"type": "tool_call", "name": "buy", "arguments": {"id": 2}}
    refund = {"type": "tool_call", "name": "refund", "arguments": {"id": 2}}
    runs = [
        [
            {"task_id": "same", "round": r, "answer": "done", "trajectory": [search, buy]},
            {
                "task_id": "parts",
                "round": r,
                "answer": "done",
                "trajectory": [search, refund if r == 3 else buy],
            },
        ]
        for r in (1, 2, 3)
    ]
    return RunLog.model_validate({"format": "altk-runs/2", "run_id": "agent", "runs": runs})


def test_report_says_where_the_rounds_tool_calls_part() -> None:
    text = render_report(analyze(_agent_log()), "agent")
    # 1 of 2 tasks identical; Wilson 95 %: 0.5 +- 1.96 sqrt(0.25/2 + 1.96^2/16) / (1 + 1.96^2/2),
    # that is 0.5 +- 0.4055
    assert "  same calls in every round: 1/2 tasks, 50.0 % (95 % CI 9.5–90.5)" in text
    assert "  tasks by the tool call where rounds first part: tool call 2: 1" in text  # step 1 is the 2nd
    # pairs (1,2), (1,3), (2,3): sequence similarity 1, 1/2, 1/2 -> mean 0.67, lowest 0.50; step 1 has
    # buy, buy, refund: H = 0.918 bits, over log2(3) rounds = 0.58
    assert (
        "  parts: parts at tool call 2 · call-sequence similarity 0.67 (lowest pair 0.50) · "
        "highest step entropy 0.58"
    ) in text
    assert "  same: parts" not in text


def test_report_shows_an_altk_evolve_cards_step_scores_beside_its_own() -> None:
    card = FOREIGN / "altk_evolve" / "consistency_score_card_7f3a9c21.json"
    analysis = analyze(load_any(card).log)
    text = render_report(analysis, card.name)
    assert "Step uncertainty of task 7f3a9c21, round 1: each step sampled again by ALTK-Evolve" in text
    assert (
        '  step 1: book_flight {"flight_id":"DL40"} · uncertainty 0.60 [0.00, 0.88] over 5 samples '
        "· ALTK-Evolve 0.20 (mixed) · flagged"
    ) in text
    assert "  ALTK-Evolve's aggregate uncertainty (mean): 0.31" in text
    steps = analysis.report()["step_uncertainty"]
    assert steps["source"] == "altk-evolve" and [s["flagged"] for s in steps["steps"]] == [False, True, True]
    assert [s["altk_uncertainty"] for s in steps["steps"]] == [0.0, 0.2, 0.7388]  # as the card says


def test_a_log_without_step_scores_has_no_step_section() -> None:
    analysis = analyze(load_path(SAMPLES / "A_baseline.altk_runs.json").log)
    assert "step_uncertainty" not in analysis.report()
    assert "Step uncertainty" not in render_report(analysis, "A")
    assert "Trajectories" not in render_report(analysis, "A")


def test_counts_of_one_read_as_one() -> None:
    card = FOREIGN / "altk_evolve" / "consistency_score_card_7f3a9c21.json"
    text = render_report(analyze(load_any(card).log), card.name)
    assert "  1 task · 1 round · 1 result · 0 errored" in text


def test_no_answer_is_its_own_line() -> None:
    # an older Inspect log: blank answered "Blue" then nothing -> 1 result without an answer
    analysis = analyze(load_any(FOREIGN / "inspect_ai" / "versions_0.3.100.json").log)
    text = render_report(analysis, "old inspect")
    assert "  no answer          1 result in 1 task (left out of the clusters, never agreeing)" in text
    assert "consistent tasks   1/2 (50.0 %) · answer gap 50.0 pp" in text
    assert "(reported apart): blank" in text


def test_mean_score_line_and_comparison_column() -> None:
    # Inspect f1 scores: city 0.67, 1.0 -> 0.835; fruit 0.8, 0.0 -> 0.4; mean 0.6175, Wilson
    # [0.139, 0.942]; partial (neither 0 nor 1): 0.67 and 0.8
    a = analyze(load_any(FOREIGN / "inspect_ai" / "scores_0.3.100.json").log)
    text = render_report(a, "f1")
    assert "  mean score 0.618 (95 % CI 0.139–0.942) over 2 tasks, 4 scores, 2 partial" in text
    table = render_comparison(compare([("old", a), ("again", a)]))
    assert "mean score" in table and table.count("0.618") == 2
