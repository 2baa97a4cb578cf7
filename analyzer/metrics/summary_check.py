"""Recompute the stored `summary` and report every disagreement with both numbers.

The summary is the writing script's claim, not a fact. The stored gap is compared with the answer
gap under the `exact` key (what a plain script compares); scripts in the wild get it wrong, e.g. by
indexing rounds as if they were tasks. Tolerances absorb a script's rounding: 0.05 points for the
gap, half a token for the average. `avg_tokens_per_task` is accepted when it matches either reading
of the name: total / tasks (a task's cost over all rounds) or total / results (one run of a task).
"""

from __future__ import annotations

from pydantic import BaseModel

from analyzer.log.model import Summary

GAP_TOLERANCE_PP = 0.05
"""Largest difference in the gap that counts as rounding."""
AVG_TOLERANCE = 0.5
"""Largest difference in average tokens that counts as rounding."""


class SummaryMismatch(BaseModel):
    """One stored summary figure that the log does not bear out."""

    field: str
    """Summary field, e.g. `consistency_gap_pp`."""
    stored: int | float | None
    """What the summary claims."""
    recomputed: int | float | None
    """What the results say."""
    message: str
    """Both numbers in words."""


def check_summary(
    summary: Summary | None,
    *,
    gap_exact_pp: float | None,
    total_tokens: int | None,
    unknown_token_results: int,
    tasks: int,
    rounds: int,
    results: int,
) -> list[SummaryMismatch]:
    """Compare each stored summary figure with the recomputed one.

    Args:
        summary: The log's stored summary (None: nothing to check).
        gap_exact_pp: Answer gap under the `exact` key, None when no task has two answers.
        total_tokens: Sum of known token totals; None when no result records tokens.
        unknown_token_results: Results without token counts.
        tasks: Distinct tasks.
        rounds: Rounds in `runs`.
        results: Results in the log.
    """
    if summary is None:
        return []
    unknown_note = (
        f" ({unknown_token_results} result{'s' if unknown_token_results != 1 else ''} without token counts)"
        if unknown_token_results
        else ""
    )
    return [
        *_gap_mismatches(summary, gap_exact_pp),
        *_token_mismatches(summary, total_tokens, unknown_note),
        *_average_mismatches(summary, total_tokens, tasks, results, unknown_note),
        *_count_mismatches(summary, tasks, rounds),
    ]


def _gap_mismatches(summary: Summary, gap_exact_pp: float | None) -> list[SummaryMismatch]:
    stored_gap = summary.consistency_gap_pp
    if stored_gap is None:
        return []
    if gap_exact_pp is None:
        message = f"stored gap {_fmt(stored_gap)} pp, but no task has two answers to compare"
        return [_mismatch("consistency_gap_pp", stored_gap, None, message)]
    if abs(stored_gap - gap_exact_pp) > GAP_TOLERANCE_PP:
        message = f"stored gap {_fmt(stored_gap)} pp, recomputed {_fmt(gap_exact_pp)} pp (exact answers)"
        return [_mismatch("consistency_gap_pp", stored_gap, gap_exact_pp, message)]
    return []


def _token_mismatches(summary: Summary, total_tokens: int | None, unknown_note: str) -> list[SummaryMismatch]:
    stored = summary.total_tokens
    if stored is not None and total_tokens is None:
        message = f"stored total tokens {stored}, but no result records its tokens"
        return [_mismatch("total_tokens", stored, None, message)]
    if stored is not None and stored != total_tokens:
        message = f"stored total tokens {stored}, recomputed {total_tokens}{unknown_note}"
        return [_mismatch("total_tokens", stored, total_tokens, message)]
    return []


def _average_mismatches(
    summary: Summary, total_tokens: int | None, tasks: int, results: int, unknown_note: str
) -> list[SummaryMismatch]:
    """The stored average per task, accepted when it matches per task or per result (scripts differ)."""
    stored = summary.avg_tokens_per_task
    if stored is None or not tasks or total_tokens is None:
        return []
    per_task = total_tokens / tasks
    per_result = total_tokens / results if results else per_task
    if min(abs(stored - per_task), abs(stored - per_result)) <= AVG_TOLERANCE:
        return []
    message = (
        f"stored average tokens per task {_fmt(stored)}, recomputed {_fmt(per_task)} "
        f"({total_tokens} tokens / {tasks} tasks; per result {_fmt(per_result)}){unknown_note}"
    )
    return [_mismatch("avg_tokens_per_task", stored, per_task, message)]


def _count_mismatches(summary: Summary, tasks: int, rounds: int) -> list[SummaryMismatch]:
    out = []
    if summary.task_count is not None and summary.task_count != tasks:
        out.append(
            _mismatch(
                "task_count", summary.task_count, tasks, f"stored {summary.task_count} tasks, found {tasks}"
            )
        )
    if summary.repeat is not None and summary.repeat != rounds:
        out.append(
            _mismatch("repeat", summary.repeat, rounds, f"stored {summary.repeat} rounds, found {rounds}")
        )
    return out


def _mismatch(
    field: str, stored: int | float | None, recomputed: int | float | None, message: str
) -> SummaryMismatch:
    return SummaryMismatch(field=field, stored=stored, recomputed=recomputed, message=message)


def _fmt(x: float) -> str:
    """A number as a person would write it: 12.5, 20, 33.33."""
    return f"{x:.2f}".rstrip("0").rstrip(".")
