"""95 % bootstrap intervals over tasks for the headline figures (tasks are the unit that varies).

Every headline figure is a mean of per-task values: the answer gap of "inconsistent x 100" over
measured tasks, Mean@n of c_t / n_t, Pass^k of C(c_t, k) / C(n_t, k), the outcome gap of
(c_t / n_t - Pass^n_t) x 100 over graded tasks. `analyzer.stats.bootstrap_means` resamples the tasks
(seeded, so the same log always gets the same interval); the outcome figures share one set of draws.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analyzer.metrics.outcome import OutcomeFigures, graded_counts, pass_hat_curve
from analyzer.stats import bootstrap_grouped_means, bootstrap_means

Interval = list[float]
"""[low, high]."""

_DIGITS = 12


class OutcomeWithIntervals(OutcomeFigures):
    """Outcome figures with their 95 % bootstrap intervals over graded tasks."""

    mean_at_n_ci: Interval
    """Interval of Mean@n (0..1)."""
    pass_hat_k_ci: Interval
    """Interval of Pass^n, the Pass^k of k = n (0..1)."""
    pass_hat_curve_ci: dict[int, Interval]
    """Interval of Pass^k for every k (0..1)."""
    outcome_gap_ci: Interval
    """Interval of the outcome gap, in points."""


def answer_intervals(tasks: pd.DataFrame) -> tuple[Interval | None, Interval | None]:
    """(answer gap interval in points, consistency rate interval 0..1); None when no task was measured.

    Args:
        tasks: Task frame with `consistent` (`<NA>` for tasks with fewer than 2 answers).
    """
    measured = tasks["consistent"].dropna()
    if measured.empty:
        return None, None
    inconsistent = (~measured.astype(bool)).to_numpy(dtype=np.float64) * 100.0
    low, high = bootstrap_means(inconsistent)[0]
    return _pair(low, high), _pair(1.0 - high / 100.0, 1.0 - low / 100.0)


def outcome_intervals(results: pd.DataFrame, figures: OutcomeFigures | None) -> OutcomeWithIntervals | None:
    """The outcome figures with their intervals; None when nothing is graded.

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
    ci = bootstrap_grouped_means(columns, tasks_per_pair)
    k_max = figures.n
    return OutcomeWithIntervals(
        **figures.model_dump(include=set(OutcomeFigures.model_fields)),
        mean_at_n_ci=_pair(*ci[0]),
        pass_hat_k_ci=_pair(*ci[k_max]),
        pass_hat_curve_ci={k: _pair(*ci[k]) for k in range(1, k_max + 1)},
        outcome_gap_ci=_pair(*ci[k_max + 1]),
    )


def _pair(low: float, high: float) -> Interval:
    return [round(float(low), _DIGITS), round(float(high), _DIGITS)]
