"""The stored summary is a claim: recomputed, and each disagreement reported with both numbers."""

from __future__ import annotations

from typing import Any

from analyzer.analysis import analyze
from analyzer.log.model import RunLog


def _v1(summary: dict[str, Any], answers: list[list[tuple[str, str, int]]]) -> RunLog:
    runs = [
        [
            {"task_id": t, "answer": a, "prompt_tokens": n - 5, "completion_tokens": 5, "total_tokens": n}
            for t, a, n in rnd
        ]
        for rnd in answers
    ]
    return RunLog.model_validate({"summary": summary, "runs": runs})


# 3 tasks x 2 rounds; t2 changes its answer -> 1 of 3 inconsistent -> gap 33.33 pp.
# tokens: 10 + 20 + 30 + 10 + 25 + 30 = 125; per task 125 / 3 = 41.67; per result 125 / 6 = 20.83
ROUNDS = [
    [("t1", "A", 10), ("t2", "B", 20), ("t3", "C", 30)],
    [("t1", "A", 10), ("t2", "b", 25), ("t3", "C", 30)],
]


def test_a_correct_summary_has_no_mismatch() -> None:
    summary = {
        "repeat": 2,
        "task_count": 3,
        "consistency_gap_pp": 33.3,
        "total_tokens": 125,
        "avg_tokens_per_task": 41.67,
    }
    assert analyze(_v1(summary, ROUNDS)).headline.summary_mismatches == []


def test_average_per_result_is_also_accepted() -> None:
    summary = {"avg_tokens_per_task": 20.83}
    assert analyze(_v1(summary, ROUNDS)).headline.summary_mismatches == []


def test_a_wrong_gap_from_indexing_rounds_as_tasks() -> None:
    # A script that loops `for i in range(repeat)` over `runs[i]` and asks whether all answers *in a
    # round* agree finds no round unanimous (A, B, C differ) and stores 100.0; the truth is 33.33.
    summary = {"repeat": 2, "task_count": 3, "consistency_gap_pp": 100.0, "total_tokens": 125}
    report = analyze(_v1(summary, ROUNDS)).report()
    assert report["summary_mismatches"] == [
        {
            "field": "consistency_gap_pp",
            "stored": 100.0,
            "recomputed": 100 / 3,
            "message": "stored gap 100 pp, recomputed 33.33 pp (exact answers)",
        }
    ]


def test_the_stored_gap_is_checked_under_the_exact_key_whatever_key_is_shown() -> None:
    # under `normalized`, t2's "B"/"b" agree (gap 0), but the script compared exact strings
    summary = {"consistency_gap_pp": 33.33}
    a = analyze(_v1(summary, ROUNDS), "normalized")
    assert a.headline.answer_gap_pp == 0.0
    assert a.headline.summary_mismatches == []


def test_tokens_and_counts_mismatch_with_both_numbers() -> None:
    summary = {"repeat": 5, "task_count": 4, "total_tokens": 100, "avg_tokens_per_task": 25.0}
    mismatches = {m.field: m for m in analyze(_v1(summary, ROUNDS)).headline.summary_mismatches}
    assert set(mismatches) == {"repeat", "task_count", "total_tokens", "avg_tokens_per_task"}
    assert mismatches["total_tokens"].message == "stored total tokens 100, recomputed 125"
    assert (mismatches["repeat"].stored, mismatches["repeat"].recomputed) == (5, 2)
    assert mismatches["task_count"].message == "stored 4 tasks, found 3"
    assert mismatches["avg_tokens_per_task"].recomputed == 125 / 3


def test_unknown_tokens_are_named_in_the_token_mismatch() -> None:
    runs = [[{"task_id": 1, "answer": "a", "total_tokens": 10}], [{"task_id": 1, "answer": "a"}]]
    log = RunLog.model_validate({"summary": {"total_tokens": 20}, "runs": runs})
    (mismatch,) = analyze(log).headline.summary_mismatches
    assert mismatch.message == "stored total tokens 20, recomputed 10 (1 result without token counts)"
