"""The route factors of each result: what about its route could have changed its answer.

Five factors, each a text value per result (`unset` where the log does not say):

- `key`: the key fingerprint of the attempt that produced the answer (its last), else the result's;
- `base URL`: the effective base URL: where the last redirect pointed (scheme, host, port and path,
  so a same-origin redirect to another path is another URL), else the last attempt's, else the
  result's own;
- `parameters`: model, temperature, top_p, seed, max_tokens, timeout and max_retries as sent;
- `backend`: the served model and system fingerprint the provider reported;
- `retry state`: `first try`, or retried after a 429, a timeout, a server error (or another failure,
  by its outcome), from the attempts; `unrecorded` when the result lists no attempts.

All of it is columnar (one pass per factor over the frames, no Python per result).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import pandas as pd

from analyzer.log.frames import ROUTE_FIELDS
from analyzer.metrics.grouping import first_rows, tuple_codes

FACTORS: tuple[str, ...] = ("key", "base URL", "parameters", "backend", "retry state")
"""The route factors, in the order evidence names them."""

YOUR_ROUTE: tuple[str, ...] = ("key", "base URL", "parameters")
"""The factors a user sets and a re-run pins (the retry setting is among the parameters). The
provider's `backend` is not among them: no pin holds it; nor is `retry state`, what happened to a call."""
BACKEND_FACTORS: tuple[str, ...] = ("backend",)
"""The factors the provider decides: the served model and system fingerprint it reported."""


def your_route(levels: tuple[object, ...]) -> tuple[object, ...]:
    """A round's levels of `YOUR_ROUTE`, from its levels of every factor (in `FACTORS` order)."""
    return tuple(level for name, level in zip(FACTORS, levels, strict=True) if name in YOUR_ROUTE)


SIDED_CAUSES: tuple[str, ...] = (
    "route",
    "backend",
    "route or backend",
    "both",
    "model",
    "inconclusive",
    "unmeasured",
)
"""The causes as every count and sentence names them: a `route` cause split by whose side its factor
is on (`sided_cause`), in the order they are shown."""


class Attributed(Protocol):
    """What `side_counts` reads of an attribution (`metrics.attribution.Attribution`)."""

    @property
    def cause(self) -> str: ...
    @property
    def factor(self) -> str | None: ...
    @property
    def passes(self) -> bool: ...


def sided_cause(cause: str, factor: str | None) -> str:
    """A `route` cause by whose side its factor (or factors joined by " and ") is on: `route` (yours:
    key, base URL, parameters, retry state), `backend` (the provider's: served model, fingerprint),
    or `route or backend` when both split the rounds alike; any other cause as it is."""
    if cause != "route":
        return cause
    names = set((factor or "").split(" and ")) - {""}
    backend = names & set(BACKEND_FACTORS)
    if backend and backend == names:
        return "backend"
    return "route or backend" if backend else "route"


def side_counts(items: Sequence[Attributed]) -> dict[str, int]:
    """Tasks per `SIDED_CAUSES` entry (zeros kept); `route` and `both` only where the call passes the
    false discovery rate, as `attribution.verdict_counts` counts them. Every view and report's counts."""
    out = dict.fromkeys(SIDED_CAUSES, 0)
    for a in items:
        if a.cause in ("route", "both") and not a.passes:
            continue
        name = sided_cause(a.cause, a.factor)
        out[name] = out.get(name, 0) + 1
    return out


PARAMETER_FIELDS: tuple[str, ...] = tuple(f for f in ROUTE_FIELDS if f not in ("base_url", "key_fingerprint"))
"""Route fields that make up the `parameters` factor."""

UNSET = "unset"

_RETRIED_AFTER = {
    "rate_limited": "retried after a 429",
    "timeout": "retried after a timeout",
    "server_error": "retried after a server error",
}
_NOT_FAILURES = ("ok", "redirect")


def factor_columns(results: pd.DataFrame, attempts: pd.DataFrame) -> pd.DataFrame:
    """Per result (same row order), one text column per factor of `FACTORS`, and `recorded`: whether
    the result records its key or base URL (without either its route is unknown).

    Args:
        results: Result frame (`analyzer.log.frames.results_frame` columns).
        attempts: Attempt frame (`attempts_frame` columns), attempts in the order they were made.
    """
    n = len(results)
    key = results["key_fingerprint"].reset_index(drop=True).astype(object)
    url = results["base_url"].reset_index(drop=True).astype(object)
    retry = pd.Series(
        np.where(results["n_attempts"].isna().to_numpy(), "unrecorded", "first try"), dtype=object
    )
    if not attempts.empty:
        row = attempts["result_row"].to_numpy(dtype=np.int64)
        last = np.r_[row[1:] != row[:-1], True]
        key = _overlay(
            key, row[last], attempts["key_fingerprint"].to_numpy(dtype=object, na_value=None)[last]
        )
        url = _overlay(url, row[last], attempts["base_url"].to_numpy(dtype=object, na_value=None)[last])
        url = _overlay(
            url,
            *_last_where(row, attempts["redirect_to"].notna().to_numpy(dtype=bool), attempts["redirect_to"]),
        )
        retry = _retry_state(results, attempts, row, retry)
    out = pd.DataFrame(
        {
            "key": _text(key),
            "base URL": _text(url),
            "parameters": _joined(results, PARAMETER_FIELDS),
            "backend": _joined(results, ("served_model", "system_fingerprint")),
            "retry state": retry.to_numpy(dtype=object),
        },
        index=pd.RangeIndex(n),
    )
    out["recorded"] = (key.notna() | url.notna()).to_numpy(dtype=bool)
    return out


def _overlay(base: pd.Series, rows: np.ndarray, values: np.ndarray) -> pd.Series:
    """`base` with `values` put at `rows` where they are not missing."""
    out = base.copy()
    keep = pd.notna(values)
    out.iloc[rows[keep]] = values[keep]
    return out


def _last_where(row: np.ndarray, mask: np.ndarray, values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """The rows and values of each result's last attempt where `mask` holds."""
    idx = np.flatnonzero(mask)
    if not len(idx):
        return idx, np.zeros(0, dtype=object)
    picked = row[idx]
    last = np.r_[picked[1:] != picked[:-1], True]
    return picked[last], values.to_numpy(dtype=object, na_value=None)[idx[last]]


def _retry_state(
    results: pd.DataFrame, attempts: pd.DataFrame, row: np.ndarray, base: pd.Series
) -> pd.Series:
    """`first try`, or `retried after ...` by the outcome of the result's last failed attempt."""
    retried = results["retried"].to_numpy(dtype=bool)
    outcome = attempts["outcome"].to_numpy(dtype=object, na_value=None)
    failed = ~np.isin(outcome, _NOT_FAILURES) & pd.notna(outcome)
    rows, why = _last_where(row, failed, attempts["outcome"])
    state = base.to_numpy(dtype=object).copy()
    named = np.array([_RETRIED_AFTER.get(str(w), f"retried after {w}") for w in why], dtype=object)
    state[np.flatnonzero(retried)] = "retried"
    hit = retried[rows] if len(rows) else np.zeros(0, dtype=bool)
    state[rows[hit]] = named[hit]
    return pd.Series(state, dtype=object)


def _joined(results: pd.DataFrame, fields: tuple[str, ...]) -> np.ndarray:
    """One text per result joining the fields (`unset` for a missing one), each distinct tuple built once."""
    frame = results[list(fields)].reset_index(drop=True).astype(object).fillna(UNSET)
    codes = tuple_codes(frame, list(fields))  # digits of per-column codes: no tuple per row
    if not len(codes):
        return np.zeros(0, dtype=object)
    firsts = frame.iloc[first_rows(codes)].itertuples(index=False)
    joined = [" ".join(f"{f}={v}" for f, v in zip(fields, u, strict=True)) for u in firsts]
    texts = np.array(joined, dtype=object)
    return texts[codes]


def _text(values: pd.Series) -> np.ndarray:
    return values.astype(object).where(values.notna(), UNSET).astype(str).to_numpy(dtype=object)
