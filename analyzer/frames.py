"""pandas frames over a run log: one row per result and one row per HTTP attempt.

The frames are built from the pydantic objects once, column by column (lists, not a dict per row),
so every metric after this point is vectorised pandas. Task ids are compared as strings, so `1`
and `"1"` are the same task; a result's round is its position in `runs` (1-based).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC
from operator import attrgetter
from typing import Any

import numpy as np
import pandas as pd

from analyzer.answers import action_signature
from analyzer.model import RunLog

STRING = pd.StringDtype()
"""Text columns: pandas' nullable string dtype, `<NA>` for missing."""

ROUTE_FIELDS: tuple[str, ...] = (
    "base_url",
    "key_fingerprint",
    "model",
    "temperature",
    "top_p",
    "seed",
    "max_tokens",
    "timeout_s",
    "max_retries",
)
"""Route fields that make up a result's route tuple (what was actually sent)."""

RESULT_COLUMNS: tuple[str, ...] = (
    "task_id",
    "round",
    "position",
    "status",
    "answer",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "tokens_known",
    "success",
    "score",
    "started_at",
    "finished_at",
    "latency_ms",
    "n_attempts",
    "retried",
    *ROUTE_FIELDS,
    "served_model",
    "system_fingerprint",
    "finish_reason",
    "error_type",
    "error_message",
    "http_status",
    "actions",
)
"""Columns of `results_frame`, in order."""

ATTEMPT_COLUMNS: tuple[str, ...] = (
    "task_id",
    "round",
    "result_row",
    "attempt",
    "started_at",
    "ended_at",
    "duration_ms",
    "status_code",
    "outcome",
    "retry_after_s",
    "base_url",
    "key_fingerprint",
)
"""Columns of `attempts_frame`, in order."""


_ROUTE_ATTRS = ROUTE_FIELDS


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small tuples.

    Building the columns allocates hundreds of thousands of tuples; each allocation burst would
    trigger a collection that walks the whole (large, acyclic) pydantic log. The previous state is
    restored afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def results_frame(log: RunLog) -> pd.DataFrame:
    """One row per result, in file order (round-major).

    `status` is `error` when the result says so or carries an `error` object. `total_tokens` falls
    back to prompt + completion when only those are recorded; it is `<NA>` (unknown, not zero) when
    neither is, and `tokens_known` says which. `n_attempts` is `<NA>` when the log records no
    attempts (format 1); `retried` is true only when more than one attempt is recorded.

    Args:
        log: The parsed run log.
    """
    with _gc_paused():
        return _results_frame(log)


def _results_frame(log: RunLog) -> pd.DataFrame:
    flat = [r for rnd in log.runs for r in rnd]
    rounds = [i for i, rnd in enumerate(log.runs, start=1) for _ in rnd]
    positions = [i for rnd in log.runs for i in range(len(rnd))]
    (
        task_id,
        status,
        answer,
        pt,
        ct,
        tt,
        success,
        score,
        started,
        finished,
        latency,
        attempts,
        route,
        err,
    ) = _columns(flat, _RESULT_ATTRS)
    (served, sysfp, finish) = _columns(flat, ("served_model", "system_fingerprint", "finish_reason"))
    routes = _columns([x for x in route if x is not None], _ROUTE_ATTRS)
    has_route = [x is not None for x in route]
    errors = [e for e in err if e is not None]
    etype, emsg, ehttp = _columns(errors, ("type", "message", "http_status"))
    is_error = [e is not None for e in err]

    total = pd.array(
        [
            t if t is not None else (p + c if p is not None and c is not None else None)
            for t, p, c in zip(tt, pt, ct, strict=True)
        ],
        dtype="Int64",
    )
    n_attempts = pd.array([len(a) if a is not None else None for a in attempts], dtype="Int64")
    n = len(flat)
    data: dict[str, Any] = {
        "task_id": pd.array([str(t) for t in task_id], dtype=STRING),
        "round": np.array(rounds, dtype="int64"),
        "position": np.array(positions, dtype="int64"),
        "status": pd.array(
            ["error" if (s == "error" or e) else "ok" for s, e in zip(status, is_error, strict=True)],
            dtype=STRING,
        ),
        "answer": pd.array(answer, dtype=STRING),
        "prompt_tokens": pd.array(pt, dtype="Int64"),
        "completion_tokens": pd.array(ct, dtype="Int64"),
        "total_tokens": total,
        "tokens_known": ~pd.isna(total),
        "success": pd.array(success, dtype="boolean"),
        "score": pd.array(score, dtype="Float64"),
        "started_at": _times(started),
        "finished_at": _times(finished),
        "latency_ms": pd.array(latency, dtype="Float64"),
        "n_attempts": n_attempts,
        "retried": (n_attempts > 1).fillna(False).to_numpy(dtype=bool),
        "served_model": pd.array(served, dtype=STRING),
        "system_fingerprint": pd.array(sysfp, dtype=STRING),
        "finish_reason": pd.array(finish, dtype=STRING),
    }
    for name, values in zip(_ROUTE_ATTRS, routes, strict=True):
        data[name] = pd.array(_spread(values, has_route, n), dtype=_ROUTE_DTYPES[name])
    data["error_type"] = pd.array(_spread(etype, is_error, n), dtype=STRING)
    data["error_message"] = pd.array(_spread(emsg, is_error, n), dtype=STRING)
    data["http_status"] = pd.array(_spread(ehttp, is_error, n), dtype="Int64")
    data["actions"] = pd.array([action_signature(r.trajectory) for r in flat], dtype=STRING)
    return pd.DataFrame(data, columns=list(RESULT_COLUMNS))


def attempts_frame(log: RunLog) -> pd.DataFrame:
    """One row per recorded HTTP attempt, the SDK's own retries included.

    `result_row` is the row of the owning result in `results_frame` (same file order), so route
    parameters that only the result carries can be joined. An attempt's own `base_url` and
    `key_fingerprint` are kept as recorded (`<NA>` when the attempt did not record them).

    Args:
        log: The parsed run log.
    """
    with _gc_paused():
        return _attempts_frame(log)


def _attempts_frame(log: RunLog) -> pd.DataFrame:
    flat = [r for rnd in log.runs for r in rnd]
    per_result = [r.attempts or () for r in flat]
    counts = np.fromiter(map(len, per_result), dtype="int64", count=len(per_result))
    rows = np.repeat(np.arange(len(flat), dtype="int64"), counts)
    round_of_result = np.array([i for i, rnd in enumerate(log.runs, start=1) for _ in rnd], dtype="int64")
    task_of_result = np.array([str(r.task_id) for r in flat], dtype=object)
    flat_attempts = [a for attempts in per_result for a in attempts]
    (number, started, ended, code, outcome, retry_after, base_url, key_fp) = _columns(
        flat_attempts, _ATTEMPT_ATTRS
    )
    rounds = round_of_result[rows] if len(flat) else rows
    task_ids = task_of_result[rows] if len(flat) else np.array([], dtype=object)
    result_row = rows
    started_at = _times(started)
    ended_at = _times(ended)
    duration = (pd.Series(ended_at) - pd.Series(started_at)).dt.total_seconds() * 1000.0
    data: dict[str, Any] = {
        "task_id": pd.array(task_ids, dtype=STRING),
        "round": np.array(rounds, dtype="int64"),
        "result_row": np.array(result_row, dtype="int64"),
        "attempt": np.array(number, dtype="int64"),
        "started_at": started_at,
        "ended_at": ended_at,
        "duration_ms": pd.array(duration.to_numpy(dtype="float64", na_value=np.nan), dtype="Float64"),
        "status_code": pd.array(code, dtype="Int64"),
        "outcome": pd.array(outcome, dtype=STRING),
        "retry_after_s": pd.array(retry_after, dtype="Float64"),
        "base_url": pd.array(base_url, dtype=STRING),
        "key_fingerprint": pd.array(key_fp, dtype=STRING),
    }
    return pd.DataFrame(data, columns=list(ATTEMPT_COLUMNS))


_RESULT_ATTRS: tuple[str, ...] = (
    "task_id",
    "status",
    "answer",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "success",
    "score",
    "started_at",
    "finished_at",
    "latency_ms",
    "attempts",
    "route",
    "error",
)
_ATTEMPT_ATTRS: tuple[str, ...] = (
    "attempt",
    "started_at",
    "ended_at",
    "status_code",
    "outcome",
    "retry_after_s",
    "base_url",
    "key_fingerprint",
)
_ROUTE_DTYPES: dict[str, Any] = {
    "base_url": STRING,
    "key_fingerprint": STRING,
    "model": STRING,
    "temperature": "Float64",
    "top_p": "Float64",
    "seed": "Int64",
    "max_tokens": "Int64",
    "timeout_s": "Float64",
    "max_retries": "Int64",
}


def _columns(objects: list[Any], attrs: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """Transpose objects into one tuple per attribute.

    `attrgetter` and `zip(*...)` run in C, which is what keeps 100k results fast.
    """
    if not objects:
        return [()] * len(attrs)
    rows = map(attrgetter(*attrs), objects)
    if len(attrs) == 1:
        return [tuple(rows)]
    return list(zip(*rows, strict=True))


def _spread(values: tuple[Any, ...], present: list[bool], n: int) -> list[Any]:
    """Values of the objects that exist, put back at their rows; None elsewhere."""
    if len(values) == n:
        return list(values)
    it = iter(values)
    return [next(it) if p else None for p in present]


def _times(values: tuple[Any, ...]) -> Any:
    """UTC timestamps (microseconds); naive times are read as UTC, missing ones become NaT.

    `datetime.timestamp()` per value is several times faster than `pd.to_datetime` on objects.
    """
    nan = float("nan")
    seconds = np.array(
        [nan if d is None else (d if d.tzinfo else d.replace(tzinfo=UTC)).timestamp() for d in values],
        dtype="float64",
    )
    micros = np.round(seconds * 1e6)
    missing = np.isnan(micros)
    stamps = np.where(missing, 0, micros).astype("int64").view("datetime64[us]")
    stamps[missing] = np.datetime64("NaT")
    return pd.array(pd.DatetimeIndex(stamps).tz_localize("UTC"))
