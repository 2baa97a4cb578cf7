"""A run log's results as columns: what the frames, the metrics and the structural warnings read.

One table is built per log, either from the pydantic result objects (a log the runner built, or
one read the slow way) or straight from the fast decoder's records (`analyzer.log.fast_decode`), with
the same code: both kinds of record have the same attribute names. Columns are plain sequences in
file order (round-major); `analyzer.log.frames` turns them into typed pandas columns.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import numpy as np
from pydantic import BaseModel

from analyzer.log.call_tokens import CallTokens, trajectory_calls
from analyzer.log.model import Attempt, Result, ResultError, Route, RunLog

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

RESULT_FIELDS: tuple[str, ...] = (
    "task_id",
    "status",
    "answer",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cached_tokens",
    "reasoning_tokens",
    "success",
    "score",
    "started_at",
    "finished_at",
    "latency_ms",
    "served_model",
    "system_fingerprint",
    "finish_reason",
    "round",
)
"""Result fields kept as columns (nested objects are handled apart)."""

UNUSED_RESULT_FIELDS: tuple[str, ...] = ("expected", "trajectory", "grade_reason")
"""Result fields no figure reads as such; the fast decoder still validates them (a trajectory is kept
as its tool-call signature, the `actions` column)."""

ATTEMPT_FIELDS: tuple[str, ...] = (
    "attempt",
    "retry",
    "started_at",
    "ended_at",
    "status_code",
    "outcome",
    "retry_after_s",
    "base_url",
    "key_fingerprint",
    "redirect_to",
)
"""Attempt fields kept as columns."""

ERROR_FIELDS: tuple[str, ...] = ("type", "message", "http_status")
"""Error fields kept as columns."""

ALL_ROUTE_FIELDS: tuple[str, ...] = tuple(Route.model_fields)
"""Every route field (the fast decoder validates those no figure reads too)."""

Fix = Callable[[type[BaseModel], str, Sequence[Any]], Sequence[Any]]
"""Turns one raw column of a model's field into validated values (identity for pydantic objects)."""


@dataclass
class LogTable:
    """Every result and attempt of a log as columns, in file order."""

    round_sizes: list[int]
    """Results per round, in round order."""
    results: dict[str, Sequence[Any]]
    """Result columns by field name (`RESULT_FIELDS`), plus `actions` (the tool-call signature of
    each trajectory), `tool_calls` (its calls as (name, token) pairs, None without a trajectory),
    `error` (whether it carries one) and
    `n_attempts` (None when no attempts are recorded) and `n_retries` (attempts that retried a call)."""
    routes: dict[str, Sequence[Any]]
    """Route columns (`ROUTE_FIELDS`), one value per result, None where a result has no route."""
    errors: dict[str, Sequence[Any]]
    """Error columns (`ERROR_FIELDS`), one value per result, None where it has no error."""
    attempt_counts: list[int]
    """Attempts recorded per result (0 when none)."""
    attempts: dict[str, Sequence[Any]]
    """Attempt columns (`ATTEMPT_FIELDS`), one value per attempt, in file order."""
    cache: dict[str, Any] = field(default_factory=dict)
    """Figures derived once per table (the structural warnings, the task ids as text)."""

    @property
    def n_results(self) -> int:
        """Number of results."""
        return len(self.results["task_id"])


def log_table(log: RunLog | LogTable) -> LogTable:
    """The log's table: the one a fast load kept, else built from its result objects.

    Args:
        log: A run log (or a table, returned as it is).
    """
    if isinstance(log, LogTable):
        return log
    kept = log._table
    if isinstance(kept, LogTable):
        return kept
    return table_from_records(log.runs, _as_is)


def keep_table(log: RunLog) -> RunLog:
    """Build the log's table once and keep it with the log (for a loaded log, which is read-only)."""
    if not isinstance(log._table, LogTable):
        log._table = table_from_records(log.runs, _as_is)
    return log


def has_trajectories(log: RunLog) -> bool:
    """Whether any result records a trajectory, without building a loaded log's result objects."""
    kept = log._table
    if isinstance(kept, LogTable):
        actions = kept.results["actions"]
        return actions.count(None) < len(actions)
    return any(r.trajectory is not None for _rnd, r in log.results())


def round_count(log: RunLog | LogTable) -> int:
    """Rounds in the log, without building result objects for a fast-loaded log."""
    if isinstance(log, RunLog) and not isinstance(log._table, LogTable):
        return len(log.runs)
    return len(log_table(log).round_sizes)


def table_from_records(runs: Sequence[Sequence[Any]], fix: Fix) -> LogTable:
    """Columns from round-major records (pydantic results or the fast decoder's records).

    Args:
        runs: Round-major records with the attribute names of `Result`.
        fix: Validates a raw column (see `Fix`); records that are already validated pass `_as_is`.
    """
    flat = [r for rnd in runs for r in rnd]
    n = len(flat)
    raw = dict(zip(RESULT_FIELDS, _columns(flat, RESULT_FIELDS), strict=True))
    results: dict[str, Sequence[Any]] = {name: fix(Result, name, values) for name, values in raw.items()}
    for name, values in zip(UNUSED_RESULT_FIELDS, _columns(flat, UNUSED_RESULT_FIELDS), strict=True):
        checked = fix(Result, name, values)
        if name == "trajectory":  # kept as the `actions` signature and the calls' tokens
            results["actions"], results["tool_calls"] = _trajectory_columns(checked)
    raw_route, raw_error, raw_attempts = _columns(flat, ("route", "error", "attempts"))
    route, error, attempts = (
        fix(Result, "route", raw_route),
        fix(Result, "error", raw_error),
        fix(Result, "attempts", raw_attempts),
    )

    has_route = [x is not None for x in route]
    present_routes = [x for x in route if x is not None]
    route_cols = dict(zip(ALL_ROUTE_FIELDS, _columns(present_routes, ALL_ROUTE_FIELDS), strict=True))
    routes = {name: _spread(fix(Route, name, route_cols[name]), has_route, n) for name in ALL_ROUTE_FIELDS}

    has_error = [x is not None for x in error]
    present_errors = [x for x in error if x is not None]
    error_cols = dict(zip(ERROR_FIELDS, _columns(present_errors, ERROR_FIELDS), strict=True))
    errors = {name: _spread(fix(ResultError, name, error_cols[name]), has_error, n) for name in ERROR_FIELDS}

    counts = [len(a) if a is not None else 0 for a in attempts]
    flat_attempts = [a for group in attempts if group is not None for a in group]
    attempt_cols = dict(zip(ATTEMPT_FIELDS, _columns(flat_attempts, ATTEMPT_FIELDS), strict=True))
    results["error"] = has_error
    results["n_attempts"] = [len(a) if a is not None else None for a in attempts]
    checked_attempts = {name: fix(Attempt, name, values) for name, values in attempt_cols.items()}
    results["n_retries"] = _retries(results["n_attempts"], checked_attempts["retry"])
    return LogTable(
        round_sizes=[len(rnd) for rnd in runs],
        results=results,
        routes={name: routes[name] for name in ROUTE_FIELDS},
        errors=errors,
        attempt_counts=counts,
        attempts=checked_attempts,
    )


def _trajectory_columns(trajectories: Sequence[Any]) -> tuple[list[str | None], list[CallTokens | None]]:
    """Each trajectory's `actions` signature and its calls' tokens (None where none was recorded)."""
    if trajectories.count(None) == len(trajectories):  # most logs: no agent, nothing to walk
        return [None] * len(trajectories), [None] * len(trajectories)
    known: dict[tuple[str, str], tuple[str, str]] = {}
    pairs = [trajectory_calls(t, known) for t in trajectories]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _as_is(model: type[BaseModel], name: str, values: Sequence[Any]) -> Sequence[Any]:
    del model, name
    return values


def _columns(objects: list[Any], attrs: tuple[str, ...]) -> list[list[Any]]:
    """One list per attribute; `map(attrgetter)` runs in C, which is what keeps 1M results fast."""
    return [list(map(attrgetter(name), objects)) for name in attrs]


def _spread(values: Sequence[Any], present: list[bool], n: int) -> Sequence[Any]:
    """Values of the objects that exist, put back at their rows; None elsewhere."""
    if len(values) == n:
        return values
    it = iter(values)
    return [next(it) if p else None for p in present]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small objects.

    Each allocation burst would otherwise trigger a collection that walks every object the log
    holds (millions of acyclic ones), which makes building frames grow faster than the log. The
    previous state is restored afterwards; what was built meanwhile goes straight to the oldest
    generation (`freeze` then `unfreeze`: no scan), where the next full collection sees it, instead
    of being walked by the young collection that re-enabling would trigger at once (0.1 s of a
    100k-result analysis).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def _retries(n_attempts: Sequence[int | None], retry: Sequence[int | None]) -> list[int | None]:
    """Retries per result: its attempts whose SDK retry number is above 0, where every attempt of the
    result records one; else every attempt after its first (older logs). None without attempts.

    `retry` holds every attempt's number in file order, `n_attempts[i]` of them for result i."""
    counts = np.array([0 if c is None else c for c in n_attempts], dtype=np.int64)
    numbers = np.array([-1 if r is None else r for r in retry], dtype=np.int64)  # -1: not recorded
    owner = np.repeat(np.arange(len(counts)), counts)
    unrecorded = np.bincount(owner[numbers < 0], minlength=len(counts))
    retried = np.bincount(owner[numbers > 0], minlength=len(counts))
    out: list[int | None] = np.where(
        (unrecorded == 0) & (counts > 0), retried, np.maximum(counts - 1, 0)
    ).tolist()
    for i, count in enumerate(n_attempts):
        if count is None:
            out[i] = None
    return out
