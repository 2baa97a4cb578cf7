"""Outcome metrics where results are graded: Mean@n, Pass^k, Pass@k and the outcome gap.

For task t with n_t graded results that did not error and c_t successes (docs/metrics.md):
Mean@n = mean_t c_t / n_t; Pass^k = mean_t C(c_t, k) / C(n_t, k) (all k runs succeed);
Pass@k = mean_t 1 - C(n_t - c_t, k) / C(n_t, k) (at least one of k succeeds);
outcome gap = (Mean@n - Pass^n) x 100 points.

When tasks have different n_t, n is the largest and each task uses k_t = min(k, n_t): for k = n
that is the task's own n_t, as docs/metrics.md says, and Pass^k still never rises with k.
A result is a success when `success` says so, else when `score >= score_threshold`; results with
neither are not graded and do not count in n_t.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pydantic import BaseModel

from analyzer.metrics.grouping import per_task_count, task_codes

Interval = list[float]
"""[low, high]."""


class OutcomeFigures(BaseModel):
    """Outcome consistency over the graded tasks."""

    mean_at_n: float
    """Mean over tasks of c_t / n_t (0..1)."""
    pass_hat_k: dict[int, float]
    """Pass^k for k = 1..n (0..1): the chance that k runs of a task all succeed."""
    pass_at_k: dict[int, float]
    """Pass@k for k = 1..n (0..1): the chance that at least one of k runs succeeds."""
    outcome_gap_pp: float | None
    """(Mean@n - Pass^n) x 100, in points; None when no task has two graded runs (one round tells
    nothing of how success holds over rounds: not a gap of 0)."""
    n: int
    """Largest number of graded runs of a task."""
    n_min: int
    """Smallest number of graded runs of a task."""
    uneven_n: bool
    """True when tasks have different numbers of graded runs (each then uses its own n_t for k = n)."""
    tasks: int
    """Tasks with at least one graded run."""
    mean_at_n_ci: Interval | None = None
    """Interval of Mean@n (0..1), over graded tasks; None until `metrics.intervals` adds it."""
    pass_hat_k_ci: Interval | None = None
    """Interval of Pass^n, the Pass^k of k = n (0..1), a share of tasks."""
    pass_hat_curve_ci: dict[int, Interval] | None = None
    """Interval of Pass^k for every k (0..1)."""
    outcome_gap_ci: Interval | None = None
    """Interval of the outcome gap, in points."""


def passed(results: pd.DataFrame, score_threshold: float | None = 0.5) -> pd.Series:
    """Whether each result succeeded: `success` where recorded, else `score >= score_threshold`.

    A new nullable boolean Series; `<NA>` where the result is not graded.

    Args:
        results: Result frame with `success` and `score`.
        score_threshold: Score at or above which a result without `success` counts as a success;
            None where a score says nothing of pass or fail (a 0-10 rubric): only `success` counts.
    """
    if score_threshold is None:
        return results["success"].astype("boolean")
    by_score = (results["score"] >= score_threshold).astype("boolean")
    return results["success"].astype("boolean").fillna(by_score).astype("boolean")


def graded_counts(results: pd.DataFrame) -> pd.DataFrame:
    """Per task (first-appearance order): n (graded results that did not error) and c (successes).

    Args:
        results: Result frame with `task_id`, `status` and `passed`.
    """
    order, tasks = task_codes(results)
    graded = ((results["status"] == "ok") & results["passed"].notna()).to_numpy(dtype=bool)
    wins = graded & results["passed"].fillna(False).to_numpy(dtype=bool)
    return pd.DataFrame(
        {
            "task_id": order,
            "n": per_task_count(tasks, len(order), graded),
            "c": per_task_count(tasks, len(order), wins),
        }
    )


def task_outcomes(results: pd.DataFrame) -> pd.DataFrame:
    """Per task (first-appearance order): graded, successes and success_rate (`<NA>` when not graded).

    Args:
        results: Result frame with `task_id`, `status` and `passed`.
    """
    counts = graded_counts(results)
    graded = counts["n"].to_numpy()
    wins = counts["c"].to_numpy()
    successes = pd.array(wins, dtype="Int64")
    successes[graded == 0] = pd.NA
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(graded > 0, wins / np.maximum(graded, 1), np.nan)
    return pd.DataFrame(
        {
            "task_id": counts["task_id"],
            "graded": graded,
            "successes": successes,
            "success_rate": pd.array(rate, dtype="Float64"),
        }
    )


def pass_hat_curve(n: np.ndarray, c: np.ndarray, k_max: int) -> np.ndarray:
    """Per-task C(c, min(k, n)) / C(n, min(k, n)) for k = 1..k_max, shape (tasks, k_max).

    Computed as the running product of (c - i) / (n - i), which equals the ratio of binomials
    without big integers.

    Args:
        n: Graded runs per task (all >= 1).
        c: Successes per task (0 <= c <= n).
        k_max: Largest k.
    """
    n = n.astype("float64")
    c = c.astype("float64")
    ratio = np.ones_like(n)
    out = np.empty((len(n), k_max))
    for k in range(1, k_max + 1):
        active = n >= k
        step = np.clip(c - (k - 1), 0.0, None) / np.where(active, n - (k - 1), 1.0)
        ratio = np.where(active, ratio * step, ratio)
        out[:, k - 1] = ratio
    return out


def outcome_figures(results: pd.DataFrame) -> OutcomeFigures | None:
    """Mean@n, Pass^k, Pass@k and the outcome gap; None when no result is graded.

    Args:
        results: Result frame with `task_id`, `status` and `passed` (from `passed`).
    """
    counts = graded_counts(results)
    counts = counts[counts["n"] > 0]
    if counts.empty:
        return None
    n = counts["n"].to_numpy()
    c = counts["c"].to_numpy()
    k_max = int(n.max())
    hat = pass_hat_curve(n, c, k_max).mean(axis=0)
    at = 1.0 - pass_hat_curve(n, n - c, k_max).mean(axis=0)
    mean_at_n = _tidy(np.mean(c / n))
    pass_hat = {k: _tidy(hat[k - 1]) for k in range(1, k_max + 1)}
    pass_hat[1] = mean_at_n  # identical by definition; avoids a last-bit rounding difference
    return OutcomeFigures(
        mean_at_n=mean_at_n,
        pass_hat_k=pass_hat,
        pass_at_k={k: _tidy(at[k - 1]) for k in range(1, k_max + 1)},
        outcome_gap_pp=round((mean_at_n - pass_hat[k_max]) * 100.0, _DIGITS - 2) if k_max > 1 else None,
        n=k_max,
        n_min=int(n.min()),
        uneven_n=bool(n.min() != n.max()),
        tasks=len(counts),
    )


_DIGITS = 12
"""Decimals kept on 0..1 figures: drops float noise (0.7200000000000002 -> 0.72), keeps all meaning."""


def _tidy(x: float) -> float:
    return round(float(x), _DIGITS)
