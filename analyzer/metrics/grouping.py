"""Integer task codes, so per-task sums and counts are `np.bincount` rather than pandas groupbys.

A pandas groupby or merge costs about a millisecond even on a handful of rows; the dashboard and
the property tests analyse many small logs, and big logs want the same code path to stay linear.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def task_codes(results: pd.DataFrame) -> tuple[pd.Index, np.ndarray]:
    """Task ids in first-appearance order and each row's position in that order.

    Args:
        results: Frame with a `task_id` column (strings).
    """
    column = results["task_id"].array
    chunks = getattr(column, "_pa_array", None)  # immutable: a changed column gets new chunks
    last = _LAST.get("codes")  # one read: dashboard sessions run in threads
    if chunks is not None and last is not None and last[0] is chunks:
        return last[1], last[2].copy()
    codes, uniques = pd.factorize(column, sort=False)
    order = pd.Index(np.asarray(uniques, dtype=object), name="task_id", dtype="string")
    if chunks is not None:
        _LAST["codes"] = (chunks, order, codes.astype("int64"))
    return order, codes.astype("int64")


_LAST: dict[str, tuple[object, pd.Index, np.ndarray]] = {}
"""The last task column coded and its codes: the metrics of one analysis all code the same column."""


def per_task_count(codes: np.ndarray, n_tasks: int, mask: np.ndarray | None = None) -> np.ndarray:
    """Rows per task (only rows where `mask` is true, when given).

    Args:
        codes: Task code of each row.
        n_tasks: Number of tasks.
        mask: Optional boolean row filter.
    """
    picked = codes if mask is None else codes[mask]
    return np.bincount(picked, minlength=n_tasks).astype("int64")


def per_task_sum(codes: np.ndarray, values: np.ndarray, n_tasks: int) -> np.ndarray:
    """Sum of `values` per task, NaN values skipped.

    Args:
        codes: Task code of each row.
        values: Float values, NaN where missing.
        n_tasks: Number of tasks.
    """
    keep = ~np.isnan(values)
    return np.bincount(codes[keep], weights=values[keep], minlength=n_tasks)


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values of an integer array, like `np.unique(values)`.

    numpy 2.x answers a bare `np.unique` with a hash table that is some 40x slower than sorting on
    the 100k-1M pair codes the metrics build; a sort and a comparison with the neighbour is not.
    """
    ordered = np.sort(values, kind="stable")
    if len(ordered) == 0:
        return ordered
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]]


def tuple_codes(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """A code per row for its tuple of values in `columns`, numbered 0, 1, ... in order of first
    appearance; a missing value is a value. What `groupby(columns, dropna=False, sort=False).ngroup()`
    gives, at a fraction of its fixed cost (a multi-column groupby costs milliseconds on ten rows).

    Columns are combined as digits of one number; the number is renumbered only when the next
    digit could overflow it, so the codes never do.
    """
    combined = np.zeros(len(frame), dtype=np.int64)
    span = 1  # combined < span
    for name in columns:
        codes, uniques = pd.factorize(frame[name], use_na_sentinel=False)
        width = len(uniques) + 1
        if span * width >= _LIMIT:
            combined, seen = pd.factorize(combined, sort=False)
            span = len(seen) + 1
        combined = combined * width + codes
        span *= width
    return pd.factorize(combined, sort=False)[0].astype(np.int64)


_LIMIT = 1 << 62


def first_rows(codes: np.ndarray) -> np.ndarray:
    """The first row of each code, for codes numbered in order of first appearance (`tuple_codes`)."""
    if len(codes) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(codes, kind="stable")
    return order[np.searchsorted(codes[order], np.arange(int(codes.max()) + 1))]


def any_recorded(frame: pd.DataFrame, columns: list[str] | tuple[str, ...]) -> np.ndarray:
    """Per row, whether any of `columns` holds a value: column by column in numpy, since
    `frame[columns].notna().any(axis=1)` reduces extension-typed rows in Python (milliseconds on ten
    rows)."""
    out = np.zeros(len(frame), dtype=bool)
    for name in columns:
        out |= frame[name].notna().to_numpy(dtype=bool)
    return out
