"""pandas frames over a run log: one row per result and one row per HTTP attempt.

The frames are built from the log's columns (`analyzer.log.table`), not a dict per row, so every
metric after this point is vectorised pandas. Task ids are compared as strings, so `1`
and `"1"` are the same task; a result's round is its position in `runs` (1-based).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pydantic import TypeAdapter

from analyzer.log.model import RunLog
from analyzer.log.redaction import redacted_urls, scrubbed_texts
from analyzer.log.table import ROUTE_FIELDS, LogTable, gc_paused, log_table

__all__ = ["ATTEMPT_COLUMNS", "RESULT_COLUMNS", "ROUTE_FIELDS", "STRING", "attempts_frame", "results_frame"]

STRING = pd.StringDtype()
"""Text columns: pandas' nullable string dtype, `<NA>` for missing."""

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
    "n_retries",
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
    "retry",
    "redirect_to",
)
"""Columns of `attempts_frame`, in order."""


def results_frame(log: RunLog | LogTable) -> pd.DataFrame:
    """One row per result, in file order (round-major).

    `status` is `error` when the result says so or carries an `error` object. `total_tokens` falls
    back to prompt + completion when only those are recorded; it is `<NA>` (unknown, not zero) when
    neither is, and `tokens_known` says which. `n_attempts` is `<NA>` when the log records no
    attempts (format 1); `retried` is true only when more than one attempt is recorded.

    Args:
        log: The parsed run log (or its table).
    """
    with gc_paused():
        return _results_frame(log_table(log))


def _results_frame(table: LogTable) -> pd.DataFrame:
    col = table.results
    pt, ct, tt = col["prompt_tokens"], col["completion_tokens"], col["total_tokens"]
    total = _ints(
        [
            t if t is not None else (p + c if p is not None and c is not None else None)
            for t, p, c in zip(tt, pt, ct, strict=True)
        ]
    )
    n_attempts = _ints(col["n_attempts"])
    n_retries = _ints(col["n_retries"])
    data: dict[str, Any] = {
        "task_id": _arrow_strings(_task_ids(table)),
        "round": np.repeat(np.arange(1, len(table.round_sizes) + 1, dtype="int64"), table.round_sizes),
        "position": _positions(table.round_sizes),
        "status": _strings(
            [
                "error" if (s == "error" or e) else "ok"
                for s, e in zip(col["status"], col["error"], strict=True)
            ]
        ),
        "answer": _scrubbed(col["answer"]),
        "prompt_tokens": _ints(pt),
        "completion_tokens": _ints(ct),
        "total_tokens": total,
        "tokens_known": ~pd.isna(total),
        "success": pd.array(col["success"], dtype="boolean"),
        "score": _floats(col["score"]),
        "started_at": _times(col["started_at"]),
        "finished_at": _times(col["finished_at"]),
        "latency_ms": _floats(col["latency_ms"]),
        "n_attempts": n_attempts,
        "n_retries": n_retries,
        "retried": (n_retries > 0).fillna(False).to_numpy(dtype=bool),
        "served_model": _strings(col["served_model"]),
        "system_fingerprint": _strings(col["system_fingerprint"]),
        "finish_reason": _strings(col["finish_reason"]),
    }
    for name in ROUTE_FIELDS:
        values = table.routes[name]
        data[name] = _typed(redacted_urls(values) if name == "base_url" else values, _ROUTE_DTYPES[name])
    data["error_type"] = _strings(table.errors["type"])
    data["error_message"] = _scrubbed(table.errors["message"])
    data["http_status"] = _ints(table.errors["http_status"])
    data["actions"] = _strings(table.results["actions"])
    return pd.DataFrame(data, columns=list(RESULT_COLUMNS))


def attempts_frame(log: RunLog | LogTable) -> pd.DataFrame:
    """One row per recorded HTTP attempt, the SDK's own retries included.

    `result_row` is the row of the owning result in `results_frame` (same file order), so route
    parameters that only the result carries can be joined. An attempt's own `base_url` and
    `key_fingerprint` are kept as recorded (`<NA>` when the attempt did not record them).

    Args:
        log: The parsed run log (or its table).
    """
    with gc_paused():
        return _attempts_frame(log_table(log))


def _attempts_frame(table: LogTable) -> pd.DataFrame:
    n = table.n_results
    counts = np.asarray(table.attempt_counts, dtype="int64")
    rows = np.repeat(np.arange(n, dtype="int64"), counts)
    round_of_result = np.repeat(np.arange(1, len(table.round_sizes) + 1, dtype="int64"), table.round_sizes)
    col = table.attempts
    task_ids = _arrow_strings(_task_ids(table).take(pa.array(rows, type=pa.int64())))
    started_at = _times(col["started_at"])
    ended_at = _times(col["ended_at"])
    duration = (pd.Series(ended_at) - pd.Series(started_at)).dt.total_seconds() * 1000.0
    data: dict[str, Any] = {
        "task_id": task_ids,
        "round": round_of_result[rows],
        "result_row": rows,
        "attempt": np.array(col["attempt"], dtype="int64"),
        "started_at": started_at,
        "ended_at": ended_at,
        "duration_ms": pd.array(duration.to_numpy(dtype="float64", na_value=np.nan), dtype="Float64"),
        "status_code": _ints(col["status_code"]),
        "outcome": _strings(col["outcome"]),
        "retry_after_s": _floats(col["retry_after_s"]),
        "base_url": _strings(redacted_urls(col["base_url"])),
        "key_fingerprint": _strings(col["key_fingerprint"]),
        "retry": _ints(col["retry"]),
        "redirect_to": _strings(redacted_urls(col["redirect_to"])),
    }
    return pd.DataFrame(data, columns=list(ATTEMPT_COLUMNS))


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


def _positions(sizes: list[int]) -> np.ndarray:
    """0-based position of each result within its round."""
    total = int(sum(sizes))
    starts = np.repeat(np.cumsum([0, *sizes[:-1]]).astype("int64"), sizes) if sizes else np.zeros(0, "int64")
    return np.arange(total, dtype="int64") - starts


def _typed(values: Sequence[Any], dtype: Any) -> Any:
    if dtype == "Int64":
        return _ints(values)
    if dtype == "Float64":
        return _floats(values)
    return _strings(values)


def _strings(values: Any) -> Any:
    """A `STRING` column from text values and None, straight through pyarrow (3x `pd.array`)."""
    if isinstance(values, np.ndarray):
        values = values.tolist()
    return pd.arrays.ArrowStringArray(pa.chunked_array([pa.array(values, type=pa.large_string())]))


def _scrubbed(values: Any) -> Any:
    """A `STRING` column of text shown to people: key-like words redacted (see `analyzer.log.redaction`)."""
    if isinstance(values, np.ndarray):
        values = values.tolist()
    column = scrubbed_texts(pa.chunked_array([pa.array(values, type=pa.large_string())]))
    return pd.arrays.ArrowStringArray(column)


def _arrow_strings(values: pa.Array) -> Any:
    """A `STRING` column from a pyarrow large-string array."""
    return pd.arrays.ArrowStringArray(pa.chunked_array([values], type=pa.large_string()))


def _task_ids(table: LogTable) -> pa.Array:
    """Each result's task id as text, made once per table (both frames need it)."""
    ids = table.cache.get("task_id_text")
    if ids is None:
        ids = table.cache["task_id_text"] = pa.array(
            [str(t) for t in table.results["task_id"]], type=pa.large_string()
        )
    return ids


def _ints(values: Sequence[Any]) -> Any:
    """A nullable Int64 column, built through pyarrow (several times faster than `pd.array`)."""
    data, mask = _numbers(values, pa.int64(), 0)
    return pd.arrays.IntegerArray(data, mask)


def _floats(values: Sequence[Any]) -> Any:
    """A nullable Float64 column (NaN never occurs: the loader refuses it)."""
    data, mask = _numbers(values, pa.float64(), 0.0)
    return pd.arrays.FloatingArray(data, mask)


def _numbers(values: Sequence[Any], kind: pa.DataType, zero: float) -> tuple[np.ndarray, np.ndarray]:
    """Values and a missing-value mask as numpy arrays."""
    numbers = pa.array(values, type=kind)
    mask = numbers.is_null().to_numpy(zero_copy_only=False)
    return pc.fill_null(numbers, zero).to_numpy(zero_copy_only=False).copy(), mask


def _times(values: Sequence[Any]) -> Any:
    """UTC timestamps (microseconds); naive times are read as UTC, missing ones become NaT.

    Values are datetimes, or (from the fast reader) the file's own text that the model already
    accepted: text in the plain RFC 3339 shape is parsed by pyarrow in C, the same instant pydantic
    reads (checked in tests/test_loader_limits.py); any other text goes through the model's type.
    """
    first = next((v for v in values if v is not None), None)
    if isinstance(first, str):
        text = pa.array(values, type=pa.large_string())
        if pc.all(pc.match_substring_regex(text, _ZONED)).as_py():
            return _utc(pc.cast(text, pa.timestamp("us", tz="UTC")))
        if pc.all(pc.match_substring_regex(text, _NAIVE)).as_py():
            return _utc(pc.assume_timezone(pc.cast(text, pa.timestamp("us")), "UTC"))
        values = _DATETIMES.validate_python(values)
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


def _utc(stamps: pa.Array) -> Any:
    micros = pc.fill_null(stamps.cast(pa.int64()), 0).to_numpy().view("datetime64[us]").copy()
    micros[pc.is_null(stamps).to_numpy(zero_copy_only=False)] = np.datetime64("NaT")
    return pd.array(pd.DatetimeIndex(micros).tz_localize("UTC"))


_STAMP = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?"
_ZONED = _STAMP + r"(Z|[+-]\d\d:\d\d)$"
"""Times pydantic and pyarrow both read as the same instant (six fraction digits at most)."""
_NAIVE = _STAMP + "$"
_DATETIMES = TypeAdapter(list[datetime | None])
