"""Route or model, from the log alone: the cause of each inconsistent task.

A result's route is its route tuple (`route_drift.DRIFT_FIELDS`: base URL, key fingerprint, every
parameter, served model and system fingerprint), with the base URL and key fingerprint of the attempt
that produced the answer (the last one) where the attempt recorded them. Per inconsistent task:

- `model`: two answers differ within one route. Nothing about the route changed, so the model itself
  varies. The evidence says whether this holds on first attempts alone or involves retried results.
- `route`: every route gives one answer and the routes differ. The p-value is the exact permutation
  test of `stats.route_alignment_p` over the task's rounds: how often answers would line up with the
  routes this well by chance. With 5 rounds over 2 keys it is at best 0.1, so the p-value matters.
- `unclear`: neither, with the reason (no route recorded, one round per route, answers that differ
  only where no route was recorded).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd
from pydantic import BaseModel

from analyzer.metrics.grouping import any_recorded, tuple_codes
from analyzer.metrics.route_drift import ATTEMPT_FIELDS, DRIFT_FIELDS
from analyzer.metrics.stats import route_alignment_p

Cause = Literal["model", "route", "unclear"]
"""What a task's inconsistency is put down to."""

SHOWN_FIELDS: tuple[str, ...] = ("key_fingerprint", "base_url", "served_model", "system_fingerprint")
"""Route fields named in evidence, most telling first."""

_ANSWER_CHARS = 40


class Attribution(BaseModel):
    """The cause of one inconsistent task and the evidence for it."""

    task_id: str
    """The task."""
    cause: Cause
    """`model`, `route` or `unclear`."""
    p_value: float | None
    """For `route`: the exact permutation p-value of answers aligning with routes by chance."""
    evidence: str
    """What in the log supports the cause, one sentence."""


class Round(NamedTuple):
    """One answered round of a task, as attribution needs it."""

    round: int
    """1-based round number."""
    route: Hashable | None
    """Route label (any hashable), None when the result recorded no route."""
    answer: Hashable
    """Answer cluster label."""
    retried: bool
    """The result needed more than one HTTP attempt."""
    text: str = ""
    """The answer as written (for evidence)."""


class Finding(NamedTuple):
    """`attribute_rounds`' result: cause, p-value, evidence, and the route of the within-route split."""

    cause: Cause
    p_value: float | None
    evidence: str
    split_route: Hashable | None


def result_routes(results: pd.DataFrame, attempts: pd.DataFrame) -> np.ndarray:
    """Per result, an integer route code (equal codes = equal route tuple); -1 where no route is recorded.

    Args:
        results: Result frame (`analyzer.log.frames.results_frame` columns).
        attempts: Attempt frame with `result_row` and `attempt`.
    """
    return _codes(results, route_fields(results, attempts))


def _codes(results: pd.DataFrame, fields: pd.DataFrame) -> np.ndarray:
    if fields.empty:
        return np.zeros(0, dtype=np.int64)
    codes = tuple_codes(fields, list(DRIFT_FIELDS))
    recorded = any_recorded(fields, ATTEMPT_FIELDS)  # key or URL known
    return np.where(recorded, codes, -1)


def route_fields(results: pd.DataFrame, attempts: pd.DataFrame) -> pd.DataFrame:
    """The route fields of each result, base URL and key fingerprint from its last attempt where recorded."""
    out = results[list(DRIFT_FIELDS)].reset_index(drop=True).copy()
    if attempts.empty:
        return out
    result_row = attempts["result_row"].to_numpy(dtype=np.int64)
    # attempts are listed per result in the order they were made: a result's last row is its last attempt
    is_last = np.r_[result_row[1:] != result_row[:-1], True]
    last = attempts.loc[is_last]
    rows = result_row[is_last]
    for name in ATTEMPT_FIELDS:
        own = pd.Series(pd.NA, index=out.index, dtype=out[name].dtype)
        own.iloc[rows] = last[name].to_numpy()
        out[name] = own.fillna(out[name])
    return out


def attribute_rounds(rounds: Sequence[Round], describe: dict[Hashable, str] | None = None) -> Finding:
    """The cause of one task's disagreement from its answered rounds (a pure function).

    Args:
        rounds: The task's answered rounds (errored results left out).
        describe: Optional route label -> short description, used in the evidence.
    """
    names = describe or {}
    known = [r for r in rounds if r.route is not None]
    if not known:
        return Finding("unclear", None, "the log records no key or base URL for this task's answers", None)
    by_route = _group(known)
    split = _split_route(by_route)
    if split is not None:
        retried = any(r.retried for r in known)
        first_only = _split_route(_group([r for r in known if not r.retried])) if retried else split
        where = "on first attempts" if first_only is not None else "involving retried results"
        route = first_only if first_only is not None else split
        return Finding(
            "model",
            None,
            f"answers differ within one route ({names.get(route, 'same key, URL, parameters and backend')}) "
            f"{where}: {_answers_by_round(by_route[route])}",
            route,
        )
    if len({r.answer for r in known}) == 1:
        n = len(rounds) - len(known)
        return Finding(
            "unclear", None, f"answers differ only on the {n} round(s) with no route recorded", None
        )
    if all(len(rows) == 1 for rows in by_route.values()):
        return Finding(
            "unclear", None, f"one round per route ({len(by_route)} routes): no route was tried twice", None
        )
    p = route_alignment_p([r.route for r in known], [r.answer for r in known])
    parts = [
        f"{names.get(route, 'route ' + str(i + 1))}: {_answers_by_round(rows)}"
        for i, (route, rows) in enumerate(by_route.items())
    ]
    return Finding(
        "route",
        p,
        f"each of {len(by_route)} routes gave one answer and the routes differ ({'; '.join(parts)})",
        None,
    )


def _group(rounds: Sequence[Round]) -> dict[Hashable, list[Round]]:
    out: dict[Hashable, list[Round]] = {}
    for r in rounds:
        out.setdefault(r.route, []).append(r)
    return out


def _split_route(by_route: dict[Hashable, list[Round]]) -> Hashable | None:
    """The first route whose rounds gave more than one answer, or None."""
    for route, rows in by_route.items():
        first = rows[0].answer
        if any(r.answer != first for r in rows):
            return route
    return None


def _answers_by_round(rows: Sequence[Round]) -> str:
    """`rounds 1, 3 gave "x"; round 5 gave "y"`."""
    by_answer: dict[Hashable, list[Round]] = {}
    for r in rows:
        by_answer.setdefault(r.answer, []).append(r)
    parts = []
    for group in by_answer.values():
        nums = ", ".join(str(r.round) for r in group)
        text = group[0].text.strip()
        shown = text if len(text) <= _ANSWER_CHARS else text[: _ANSWER_CHARS - 1] + "…"
        parts.append(f"round{'s' if len(group) > 1 else ''} {nums} gave {shown!r}")
    return "; ".join(parts)


def task_attribution(results: pd.DataFrame, attempts: pd.DataFrame, tasks: pd.DataFrame) -> list[Attribution]:
    """The cause of every inconsistent task, in task order.

    Args:
        results: Result frame with `cluster` (from `assign_clusters`) and `retried`.
        attempts: Attempt frame.
        tasks: Task frame with `task_id` and `consistent`.
    """
    inconsistent = tasks.loc[tasks["consistent"].eq(False).fillna(False).astype(bool), "task_id"].astype(str)
    if inconsistent.empty:
        return []
    per_task, values = answered_rounds(results, attempts, set(inconsistent))
    out = []
    described: dict[frozenset[Hashable], dict[Hashable, str]] = {}  # tasks often share their routes
    for task in inconsistent:
        rounds = per_task.get(task, [])
        labels = frozenset(r.route for r in rounds if r.route is not None)
        if labels not in described:
            described[labels] = describe_routes(values, set(labels))
        finding = attribute_rounds(rounds, described[labels])
        out.append(
            Attribution(task_id=task, cause=finding.cause, p_value=finding.p_value, evidence=finding.evidence)
        )
    return out


def answered_rounds(
    results: pd.DataFrame, attempts: pd.DataFrame, wanted: set[str]
) -> tuple[dict[str, list[Round]], dict[int, dict[str, str]]]:
    """The answered rounds of the `wanted` tasks, and the route fields of every route code they use.

    A round's answer is its cluster, named by the cluster's first answer key (so the same answer is
    the same label in two logs); its route is the route code (see `portable_routes`).

    Args:
        results: Result frame with `cluster` and `retried`.
        attempts: Attempt frame.
        wanted: Task ids (strings).
    """
    fields = route_fields(results, attempts)
    codes = _codes(results, fields)
    answered = results["cluster"].notna().to_numpy(dtype=bool) & results["task_id"].isin(wanted).to_numpy()
    task_code, _ = pd.factorize(results["task_id"])
    cluster = results["cluster"].to_numpy(dtype=np.int64, na_value=-1)
    rows = np.flatnonzero(answered)
    rows = rows[np.argsort(task_code[rows], kind="stable")]  # grouped by task, rounds in file order
    picked = results[["task_id", "round", "answer_key", "retried", "answer"]].iloc[rows]  # only these rows
    # a cluster is named by its first answer key, so the same answer is the same label in two logs
    width = int(cluster.max()) + 1 if len(cluster) else 1
    pair = task_code[rows].astype(np.int64) * width + cluster[rows]
    _, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    keys = picked["answer_key"].to_numpy(dtype=object)
    routes = [None if c < 0 else c for c in codes[rows].tolist()]
    made = list(
        map(
            Round,
            picked["round"].to_numpy(dtype=np.int64).tolist(),
            routes,
            [str(k) for k in keys[first][inverse.reshape(-1)]],
            picked["retried"].to_numpy(dtype=bool).tolist(),
            [str(t) for t in picked["answer"].fillna("").to_numpy(dtype=object)],
        )
    )
    tasks_in_order = picked["task_id"].to_numpy(dtype=object)
    cuts = np.flatnonzero(np.diff(task_code[rows])) + 1
    starts = [0, *cuts.tolist()]
    ends = [*cuts.tolist(), len(rows)]
    per_task = {str(tasks_in_order[a]): made[a:b] for a, b in zip(starts, ends, strict=True) if b > a}
    used = np.unique(codes[rows][codes[rows] >= 0])
    first = np.searchsorted(np.sort(codes), used)  # any row of each code will do: they share the tuple
    any_row = np.argsort(codes, kind="stable")[first]
    columns = {f: fields[f].to_numpy(dtype=object, na_value=None)[any_row].tolist() for f in fields.columns}
    values = {
        code: {f: _text(column[i]) for f, column in columns.items()} for i, code in enumerate(used.tolist())
    }
    return per_task, values


def portable_routes(
    per_task: dict[str, list[Round]], values: dict[int, dict[str, str]]
) -> dict[str, list[Round]]:
    """The same rounds with each route code replaced by its tuple of field values (alike across logs)."""
    return {
        task: [r._replace(route=None if r.route is None else _route_key(values[r.route])) for r in rounds]  # type: ignore[index]
        for task, rounds in per_task.items()
    }


def _route_key(fields: dict[str, str]) -> tuple[str, ...]:
    return tuple(fields[f] for f in DRIFT_FIELDS)


def describe_routes(values: dict[int, dict[str, str]], codes: set[Hashable]) -> dict[Hashable, str]:
    """Route code -> short description naming the fields that tell the task's routes apart.

    Args:
        values: Route fields per route code.
        codes: The task's route codes.
    """
    if not codes:
        return {}
    rows = {code: values[code] for code in codes}  # type: ignore[index]
    differ = [f for f in DRIFT_FIELDS if len({row[f] for row in rows.values()}) > 1]
    if not differ:
        differ = [f for f in SHOWN_FIELDS[:2] if any(row[f] != "unset" for row in rows.values())]
    out: dict[Hashable, str] = {}
    for code, row in rows.items():
        out[code] = (
            ", ".join(f"{_FIELD_NAMES.get(f, f)} {row[f]}" for f in differ) or "the only route recorded"
        )
    return out


_FIELD_NAMES = {
    "key_fingerprint": "key",
    "base_url": "URL",
    "served_model": "served",
    "system_fingerprint": "backend",
}


def _text(value: object) -> str:
    return (
        "unset"
        if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))
        else str(value)
    )


def attribution_frame(items: Sequence[Attribution]) -> pd.DataFrame:
    """The attributions as a table: task_id, cause, p_value, evidence (for pages and exports)."""
    return pd.DataFrame(
        {
            "task_id": pd.array([a.task_id for a in items], dtype="string"),
            "cause": pd.array([a.cause for a in items], dtype="string"),
            "p_value": pd.array([a.p_value for a in items], dtype="Float64"),
            "evidence": pd.array([a.evidence for a in items], dtype="string"),
        }
    )
