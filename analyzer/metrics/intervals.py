"""95 % intervals over tasks for the headline figures (tasks are the unit that varies).

Every headline figure is a mean of per-task values in a known range: the answer gap of
"inconsistent x 100" over measured tasks, Mean@n of c_t / n_t, Pass^k of C(c_t, k) / C(n_t, k), the
outcome gap of (c_t / n_t - Pass^n_t) x 100 over graded tasks (0 when every run succeeded, else
c_t / n_t, so at most (n_t - 1) / n_t). `analyzer.metrics.stats.bounded_mean_intervals` gives each one:

- a share of tasks (the answer gap, the consistency rate, Pass^n: per-task values 0 or 1) gets the
  exact Clopper-Pearson interval, whose coverage is at least 95 % for every share and number of
  tasks (the Wilson interval's fell to 84-86 % near 0 or 1 at 30 tasks or fewer). It does not
  collapse at 0 of n or n of n: 0 of 5 consistent tasks is a consistency rate of 0 to 52.2 %
  (1 - 0.025^(1/5)), a gap of 47.8 to 100 pp;
- any other mean (Mean@n, Pass^k for k < n, the outcome gap) gets the wider bounds of the seeded
  percentile bootstrap over tasks and the Wilson interval of the mean with n = tasks (values scaled to
  [0, 1] by their largest possible value, which for the outcome gap is the largest (n_t - 1) / n_t).
  A value in [0, 1] with mean p has variance at most p(1 - p), so the Wilson interval never claims
  more than the tasks support; the bootstrap alone has no spread when every task has the same value.
  Where the bootstrap is already wider (values spread between 0 and 1) it is kept.

The bootstrap is seeded, so the same log always gets the same interval; the outcome figures share
one set of draws.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analyzer.metrics.outcome import Interval, OutcomeFigures, graded_counts, pass_hat_curve
from analyzer.metrics.stats import bounded_mean_intervals, exact_share_interval

_DIGITS = 12


def answer_intervals(tasks: pd.DataFrame) -> tuple[Interval | None, Interval | None]:
    """(answer gap interval in points, consistency rate interval 0..1); None when no task was measured.

    Args:
        tasks: Task frame with `consistent` (`<NA>` for tasks with fewer than 2 answers).
    """
    measured = tasks["consistent"].dropna()
    if measured.empty:
        return None, None
    low, high = exact_share_interval(int((~measured.astype(bool)).sum()), len(measured))
    return _pair(low * 100.0, high * 100.0), _pair(1.0 - high, 1.0 - low)


def outcome_intervals(results: pd.DataFrame, figures: OutcomeFigures | None) -> OutcomeFigures | None:
    """The outcome figures with their 95 % intervals over graded tasks; None when nothing is graded.

    Mean@n: the wider of the bootstrap and the Wilson interval of the mean. Pass^n: Clopper-Pearson,
    a share of tasks. Pass^k for every k: by the same rule as Mean@n (Clopper-Pearson where a share).
    Outcome gap, in points: as Mean@n, per-task values bounded by (n_t - 1) / n_t.

    Args:
        results: Result frame with `task_id`, `status` and `passed`.
        figures: `outcome_figures(results)`.
    """
    if figures is None:
        return None
    counts = graded_counts(results)
    counts = counts[counts["n"] > 0]
    # a task's figures depend only on (n, c): bootstrap the few distinct pairs, weighted by their tasks
    width = figures.n + 1
    pairs, tasks_per_pair = np.unique(
        counts["n"].to_numpy() * width + counts["c"].to_numpy(), return_counts=True
    )
    n, c = pairs // width, pairs % width
    curve = pass_hat_curve(n, c, figures.n)
    mean = c / n
    columns = np.column_stack([mean, curve, (mean - curve[:, -1]) * 100.0])
    # each column's largest possible per-task value: 1 for the shares, 100 (n_t - 1) / n_t for the gap
    gap_top = float(np.max(1.0 - 1.0 / n)) * 100.0
    ci = bounded_mean_intervals(columns, tasks_per_pair, upper=np.array([1.0] * (1 + figures.n) + [gap_top]))
    k_max = figures.n
    return figures.model_copy(
        update={
            "mean_at_n_ci": _pair(*ci[0]),
            "pass_hat_k_ci": _pair(*ci[k_max]),
            "pass_hat_curve_ci": {k: _pair(*ci[k]) for k in range(1, k_max + 1)},
            "outcome_gap_ci": _pair(*ci[k_max + 1]) if figures.outcome_gap_pp is not None else None,
        }
    )


def _pair(low: float, high: float) -> Interval:
    return [round(float(low), _DIGITS), round(float(high), _DIGITS)]
