"""Attempts and retries: counts by outcome and status code, retries per result, Retry-After seen.

A retry is an attempt that repeats a call: the SDK's retry number of the request is above 0. An
agent's executor that makes several calls for one result makes several first tries, and none of them
is a retry. Logs that do not record the retry number count every attempt after a result's first
(`n_attempts - 1`). Logs without attempts (format 1) have no retry figures: nothing claimed.
"""

from __future__ import annotations

import pandas as pd
from pydantic import BaseModel

from analyzer.metrics.grouping import per_task_count, per_task_sum, task_codes


class RetryFigures(BaseModel):
    """Attempts and retries over the whole log."""

    attempts_total: int | None
    """HTTP attempts recorded; None when no result records its attempts."""
    results_with_attempts: int
    """Results that record their attempts."""
    results_with_retry: int | None
    """Results that needed more than one attempt; None when no result records its attempts."""
    extra_attempts: int | None
    """Attempts beyond each result's first (retries); None when no result records its attempts or
    retries (a log that does not count them has not shown there were none)."""
    retries_per_result: dict[int, int]
    """How many results needed 0, 1, 2, ... retries (results with recorded attempts)."""
    by_outcome: dict[str, int]
    """Attempts per outcome (`ok`, `rate_limited`, `timeout`, ...)."""
    by_status: dict[str, int]
    """Attempts per HTTP status code; `none` when no response arrived."""
    retry_after_seen: int | None
    """Attempts on which the server sent Retry-After; None when no result records its attempts."""
    retry_after_max_s: float | None
    """Longest Retry-After asked for, seconds."""


def result_retries(results: pd.DataFrame) -> pd.Series:
    """Retries per result (`n_retries`: attempts that retried a call; 0 when attempts are not recorded).

    Args:
        results: Result frame with `n_retries`.
    """
    return results["n_retries"].fillna(0).astype("int64")


def retries_recorded(results: pd.DataFrame) -> bool:
    """Whether any result records its attempts or its retries (else every retry figure is None)."""
    return bool(results["n_attempts"].notna().any() or results["n_retries"].notna().any())


def task_retries(results: pd.DataFrame) -> pd.DataFrame:
    """Per task (first-appearance order): retries (extra attempts) and retried_results; `<NA>` in
    both when the log records no attempts or retries.

    Args:
        results: Result frame with `task_id`, `n_attempts` and `retried`.
    """
    order, tasks = task_codes(results)
    retries = result_retries(results).to_numpy(dtype="float64")
    frame = pd.DataFrame(
        {
            "task_id": order,
            "retries": per_task_sum(tasks, retries, len(order)).astype("int64"),
            "retried_results": per_task_count(tasks, len(order), results["retried"].to_numpy(dtype=bool)),
        }
    )
    if not retries_recorded(results):
        frame = frame.astype({"retries": "Int64", "retried_results": "Int64"})
        frame[["retries", "retried_results"]] = pd.NA
    return frame


def retry_figures(results: pd.DataFrame, attempts: pd.DataFrame) -> RetryFigures:
    """Whole-log attempt and retry figures.

    Args:
        results: Result frame with `n_attempts` and `retried`.
        attempts: Attempt frame with `outcome`, `status_code` and `retry_after_s`.
    """
    recorded = results["n_attempts"].notna()
    retries = result_retries(results)[recorded]
    known = retries_recorded(results)
    status = attempts["status_code"].astype("string").fillna("none")
    retry_after = attempts["retry_after_s"].dropna()
    return RetryFigures(
        attempts_total=len(attempts) if recorded.any() else None,
        results_with_attempts=int(recorded.sum()),
        results_with_retry=int(results["retried"].sum()) if known else None,
        extra_attempts=int(result_retries(results).sum()) if known else None,
        retries_per_result={int(k): int(v) for k, v in retries.value_counts().sort_index().items()},
        by_outcome={str(k): int(v) for k, v in attempts["outcome"].value_counts().items()},
        by_status={str(k): int(v) for k, v in status.value_counts().items()},
        retry_after_seen=len(retry_after) if recorded.any() else None,
        retry_after_max_s=float(retry_after.max()) if len(retry_after) else None,
    )


def attempts_by_route(attempts: pd.DataFrame) -> pd.DataFrame:
    """Attempt counts per route (base URL, key fingerprint) and outcome, busiest route first.

    Attempts that did not record their base URL or key keep `<NA>` there, so they are counted apart
    rather than dropped.

    Args:
        attempts: Attempt frame with `base_url`, `key_fingerprint` and `outcome`.
    """
    columns = ["base_url", "key_fingerprint", "outcome"]
    if attempts.empty:
        return pd.DataFrame(
            {c: pd.Series(dtype="string") for c in columns} | {"attempts": pd.Series(dtype="int64")}
        )
    counts = (
        attempts[columns]
        .value_counts(dropna=False)
        .rename("attempts")
        .reset_index()
        .astype({"attempts": "int64"})
    )
    route_total = counts.groupby(["base_url", "key_fingerprint"], dropna=False)["attempts"].transform("sum")
    order = counts.assign(_total=route_total).sort_values(
        ["_total", "base_url", "key_fingerprint", "attempts"],
        ascending=[False, True, True, False],
        kind="stable",
    )
    return order.drop(columns="_total").reset_index(drop=True)
