"""Mean reward or score: per task and overall, with a 95 % interval over tasks.

tau-bench and tau2 headline the average reward, Inspect's numeric scorers a mean score; a fractional
reward is not a success, so Mean@n alone hides it. For task t with s_t results that did not error
and carry a score, the task's mean score is the mean of those scores; the overall figure is the mean
over scored tasks (each task weighs the same, as Mean@n). With one run per task it is the tools' own
average.

Interval: per-task means lie in [low, high], the scale the scores are on: [0, 1] when every score is
in it (rewards, Inspect's letter grades), else the smallest and largest score seen (then the
interval assumes no score can fall outside them, and `scale_seen` says so). Shifted and scaled to
[0, 1], they get `analyzer.metrics.stats.bounded_mean_intervals`: the wider bounds of the seeded
bootstrap over tasks and the Wilson interval of the mean, which keeps its coverage for any values in
[0, 1] (their variance is at most p(1 - p)).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pydantic import BaseModel

from analyzer.metrics.grouping import per_task_count, per_task_sum, task_codes
from analyzer.metrics.stats import bounded_mean_intervals

_DIGITS = 12


class ScoreFigures(BaseModel):
    """The mean reward or score over scored tasks."""

    name: str
    """`reward` (tau-bench, tau2) or `score`."""
    mean: float
    """Mean over scored tasks of each task's mean score."""
    mean_ci: list[float]
    """95 % interval of `mean` over tasks, [low, high]."""
    tasks: int
    """Tasks with at least one scored result that did not error."""
    results: int
    """Scored results that did not error."""
    fractional: int
    """Scored results whose score is neither the scale's low nor its high end (partial credit)."""
    scale: list[float]
    """[low, high] the scores are taken to lie in: [0, 1], or the range seen (`scale_seen`)."""
    scale_seen: bool
    """True when some score is outside [0, 1], so the scale is the smallest and largest seen."""
    no_pass_fail: str | None = None
    """The scale named, where the scores are grades with no pass mark (a 0-10 rubric): then no
    pass/fail is derived and only this mean is shown."""


def task_scores(results: pd.DataFrame) -> pd.DataFrame:
    """Per task (first-appearance order): `scored` results and their `score_mean` (`<NA>` when none).

    Args:
        results: Result frame with `task_id`, `status` and `score`.
    """
    order, codes = task_codes(results)
    scores = results["score"].to_numpy(dtype="float64", na_value=np.nan)
    scored = (results["status"] == "ok").to_numpy(dtype=bool) & ~np.isnan(scores)
    count = per_task_count(codes, len(order), scored)
    total = per_task_sum(codes, np.where(scored, scores, 0.0), len(order))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return pd.DataFrame({"task_id": order, "scored": count, "score_mean": pd.array(mean, dtype="Float64")})


def score_figures(results: pd.DataFrame, tasks: pd.DataFrame, name: str = "score") -> ScoreFigures | None:
    """The mean score with its interval; None when no result that did not error has a score.

    Args:
        results: Result frame with `status` and `score`.
        tasks: Frame from `task_scores` (needs `scored` and `score_mean`).
        name: What the source calls it: `reward` or `score`.
    """
    per_task = tasks.loc[tasks["scored"] > 0, "score_mean"].to_numpy(dtype="float64")
    if len(per_task) == 0:
        return None
    ok = results["status"] == "ok"
    scores = results.loc[ok, "score"].dropna().to_numpy(dtype="float64")
    low, high = float(min(0.0, scores.min())), float(max(1.0, scores.max()))
    seen = low < 0.0 or high > 1.0
    if seen:
        low, high = float(scores.min()), float(scores.max())
    width = high - low
    values, counts = np.unique(per_task, return_counts=True)
    if width > 0:
        ci = bounded_mean_intervals(((values - low) / width)[:, None], counts)[0] * width + low
    else:
        ci = np.array([low, low])
    end = np.isclose(scores, low, atol=1e-6) | np.isclose(scores, high, atol=1e-6)
    return ScoreFigures(
        name=name,
        mean=round(float(per_task.mean()), _DIGITS),
        mean_ci=[round(float(ci[0]), _DIGITS), round(float(ci[1]), _DIGITS)],
        tasks=len(per_task),
        results=len(scores),
        fractional=int((~end).sum()),
        scale=[low, high],
        scale_seen=seen,
    )
