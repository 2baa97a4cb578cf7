"""Token figures: totals, per task and per round statistics, outliers, tokens spent on retried results.

Unknown tokens stay unknown: a result without token counts is left out of sums and means and
counted in `unknown`, never added as zero.

Outlier rule (against the task's own runs): with at least 3 known totals for the task, a result is
an outlier when |x - median| / s > 3.5, where s = 1.4826 x MAD (the median absolute deviation,
scaled to a standard deviation) floored at 10% of the median and at 1 token. This is the robust z
score of Iglewicz and Hoaglin; the floor keeps near-identical runs (MAD = 0) from flagging a
difference of a few tokens while a run that costs 10x its siblings is still caught.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pydantic import BaseModel

from analyzer.metrics.grouping import per_task_count, per_task_sum, task_codes

OUTLIER_Z = 3.5
"""Robust z score above which a result's tokens are an outlier."""
OUTLIER_MIN_RUNS = 3
"""Known totals a task needs before its outliers are judged."""
OUTLIER_MIN_SPREAD = 0.10
"""Spread floor as a fraction of the task's median."""


class TokenFigures(BaseModel):
    """Token use over the whole log."""

    total: int | None
    """Sum of the known per-result totals; None when no result records tokens (unknown, not zero)."""
    known_results: int
    """Results with a known token total."""
    unknown_results: int
    """Results without token counts (unknown, not zero)."""
    per_task_mean: float | None
    """Mean over tasks of a task's summed tokens across its runs (tasks with any known total)."""
    per_result_mean: float | None
    """Mean known total per result."""
    per_round_total: dict[int, int | None]
    """Sum of known totals per round; None for a round where no result records tokens."""
    retry_tokens: int
    """Known tokens of results that needed more than one attempt."""
    outliers: int
    """Results whose tokens are outliers against their task's own runs."""


def task_tokens(results: pd.DataFrame) -> pd.DataFrame:
    """Per task (first-appearance order): tokens_total, tokens_mean, tokens_std, tokens_known, tokens_unknown.

    Sum, mean and sample standard deviation are over known totals; `<NA>` where none is known
    (std needs 2).

    Args:
        results: Result frame with `task_id` and `total_tokens` (nullable).
    """
    order, tasks = task_codes(results)
    n_tasks = len(order)
    x = results["total_tokens"].to_numpy(dtype="float64", na_value=np.nan)
    is_known = ~np.isnan(x)
    known = per_task_count(tasks, n_tasks, is_known)
    total = np.zeros(n_tasks, dtype="int64")  # exact: a float64 sum drifts past 2**53 tokens
    np.add.at(total, tasks[is_known], results["total_tokens"].to_numpy(dtype="int64", na_value=0)[is_known])
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(known > 0, total / np.maximum(known, 1), np.nan)
        squares = per_task_sum(tasks, (x - mean[tasks]) ** 2, n_tasks)
        std = np.where(known > 1, np.sqrt(squares / np.maximum(known - 1, 1)), np.nan)
    return pd.DataFrame(
        {
            "task_id": order,
            "tokens_total": pd.arrays.IntegerArray(total, known == 0),
            "tokens_mean": pd.array(mean, dtype="Float64"),
            "tokens_std": pd.array(std, dtype="Float64"),
            "tokens_known": known,
            "tokens_unknown": per_task_count(tasks, n_tasks) - known,
        }
    )


def round_tokens(results: pd.DataFrame) -> pd.DataFrame:
    """Per round: results, errors, tokens_total (known only; `<NA>` when none known), tokens_unknown.

    Args:
        results: Result frame with `round`, `status` and `total_tokens`.
    """
    g = results.groupby("round", sort=True)
    out = pd.DataFrame(
        {
            "results": g.size(),
            "errors": (results["status"] == "error").groupby(results["round"]).sum(),
            "tokens_total": g["total_tokens"].sum(min_count=1).astype("Int64"),
            "tokens_unknown": g.size() - g["total_tokens"].count(),
        }
    )
    out.index.name = "round"
    return out.reset_index()


def token_outliers(results: pd.DataFrame) -> pd.DataFrame:
    """Results whose token total is far from their task's own runs (rule in the module docstring).

    Columns: task_id, round, total_tokens, task_median, robust_z, direction (`high` or `low`).

    Args:
        results: Result frame with `task_id`, `round` and `total_tokens`.
    """
    known = results.loc[results["total_tokens"].notna(), ["task_id", "round", "total_tokens"]]
    codes = pd.factorize(known["task_id"], sort=False)[0].astype(np.int64)
    per_task = np.bincount(codes, minlength=int(codes.max()) + 1 if len(codes) else 0)
    if not len(per_task) or per_task.max() < OUTLIER_MIN_RUNS:
        return (
            known.iloc[0:0]
            .assign(task_median=np.float64(), robust_z=np.float64(), direction="")
            .reset_index(drop=True)
        )
    x = known["total_tokens"].to_numpy(dtype="float64")
    median = _task_medians(codes, x)[codes]
    mad = _task_medians(codes, np.abs(x - median))[codes]
    spread = np.maximum(np.maximum(1.4826 * mad, OUTLIER_MIN_SPREAD * np.abs(median)), 1.0)
    z = (x - median) / spread
    mask = (per_task[codes] >= OUTLIER_MIN_RUNS) & (np.abs(z) > OUTLIER_Z)
    out = known.iloc[np.flatnonzero(mask)].reset_index(drop=True)
    return out.assign(
        task_median=median[mask], robust_z=z[mask], direction=np.where(z[mask] > 0, "high", "low")
    )


def _task_medians(codes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The median of `values` per task code (every code 0..max occurs): a sort, not a groupby."""
    counts = np.bincount(codes)
    ordered = values[np.lexsort((values, codes))]
    starts = np.cumsum(counts) - counts
    return (ordered[starts + (counts - 1) // 2] + ordered[starts + counts // 2]) / 2


def token_figures(results: pd.DataFrame, outliers: pd.DataFrame) -> TokenFigures:
    """Whole-log token figures.

    Args:
        results: Result frame with `task_id`, `round`, `total_tokens` and `retried`.
        outliers: Frame from `token_outliers`.
    """
    tokens = results["total_tokens"]
    known = int(tokens.count())
    per_task = results.groupby("task_id", sort=False)["total_tokens"].sum(min_count=1).dropna()
    per_round = results.groupby("round", sort=True)["total_tokens"].sum(min_count=1)
    return TokenFigures(
        total=int(tokens.sum()) if known else None,
        known_results=known,
        unknown_results=len(results) - known,
        per_task_mean=float(per_task.mean()) if len(per_task) else None,
        per_result_mean=float(tokens.mean()) if known else None,
        per_round_total={int(r): (None if pd.isna(v) else int(v)) for r, v in per_round.items()},
        retry_tokens=int(tokens[results["retried"]].sum()),
        outliers=len(outliers),
    )
