"""Route or model, from the log alone: the cause of each inconsistent task, with a test behind it.

A round's factors are its route factors (`route_factors.FACTORS`: key, effective base URL,
parameters, backend, retry state); its route is all of them together. Per inconsistent task the
factors are tested (`factor_test`: an exact permutation test per factor that tolerates noise within
a level, Bonferroni over the task's distinct partitions), and the tasks' p-values are held to a false
discovery rate of `stats.FDR_Q` by Benjamini-Hochberg. The cause:

- `route`: a factor passes and each of its levels gave one answer (named, with p and q);
- `both`: a factor passes and the answers also vary within one of its levels;
- `model`: none passes, the answers differ within one route (every factor alike), and the test had
  the power to see a factor (`FactorTest.best_case` <= q: a factor whose every level gave its own
  answer would have passed), or no factor varied at all;
- `inconclusive`: none passes and the rounds could not have shown it (the re-run planner,
  `verdicts.planner`, names the rounds that would decide, for the tasks a re-run takes together);
- `unmeasured`: fewer than two answered rounds record a key or base URL, or the answers differ only
  on rounds that record neither.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

import analyzer.numbers as numbers
from analyzer.metrics.factor_test import FactorTest, factor_test
from analyzer.metrics.grouping import tuple_codes
from analyzer.metrics.route_factors import FACTORS, factor_columns
from analyzer.metrics.stats import (
    FDR_Q,
    benjamini_hochberg,
    exact_share_interval,
    reaches,
)

Cause = Literal["route", "both", "model", "inconclusive", "unmeasured"]
"""What a task's inconsistency is put down to."""

CAUSES: tuple[Cause, ...] = ("route", "both", "model", "inconclusive", "unmeasured")
"""Every cause, in the order counts are shown."""

_ANSWER_CHARS = 40


class Attribution(BaseModel):
    """The cause of one inconsistent task and the evidence for it."""

    task_id: str
    """The task."""
    cause: Cause
    """`route`, `both`, `model`, `inconclusive` or `unmeasured`."""
    factor: str | None = None
    """The route factor(s) tested best (`key`, `base URL`, ...; joined by " and " when they split the
    rounds alike); None when no factor varied."""
    p_value: float | None = None
    """The task's p-value (best factor, Bonferroni over its distinct partitions); None: unmeasured."""
    q_value: float | None = None
    """The Benjamini-Hochberg adjusted p-value over the log's measured inconsistent tasks."""
    passes: bool = False
    """q_value <= `stats.FDR_Q`: only then is the cause `route` or `both`."""
    evidence: str
    """What in the log supports the cause, one sentence."""
    by_route: list[str] = Field(default_factory=list)
    """The rounds of each route and what they gave, one item each: how `evidence` ends (joined by
    "; "). Empty where no factor was tested."""

    def reason(self) -> str:
        """`evidence` without the rounds by route (which `by_route` lists one per line)."""
        rounds = "; ".join(self.by_route)
        if not rounds or not self.evidence.endswith(rounds):
            return self.evidence
        return self.evidence.removesuffix(rounds).rstrip().removesuffix(":")


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
    factors: tuple[Hashable, ...] = ()
    """The round's level of each factor of `FACTORS`; empty: the route label is the only factor."""


class Finding(NamedTuple):
    """One task's test before the false discovery rate is applied."""

    test: FactorTest | None
    """The factor test over the recorded rounds; None when unmeasured."""
    evidence: str
    """The rounds by route, in words."""
    split_route: Hashable | None
    """A route whose rounds gave more than one answer."""
    by_route: tuple[str, ...] = ()
    """The parts of `evidence`, one per route."""


def verdict_counts(items: Sequence[Attribution]) -> dict[str, int]:
    """Tasks per cause (every cause of `CAUSES`, zeros kept). `route` and `both` count only calls
    that pass the false discovery rate, which is the only way they are made: one count for every
    view and report."""
    out: dict[str, int] = dict.fromkeys(CAUSES, 0)
    for a in items:
        if a.cause in ("route", "both") and not a.passes:
            continue
        out[a.cause] += 1
    return out


def attribution_summary(items: Sequence[Attribution]) -> dict[str, object]:
    """`analyze --json`'s `attribution_counts`: tasks per cause, with the rule they were counted by."""
    return {
        "counts": verdict_counts(items),
        "fdr_q": FDR_Q,
        "rule": (
            "route/both: an exact permutation test per route factor (key, base URL, parameters, backend, "
            "retry state), Bonferroni over the task's distinct factor partitions, then Benjamini-Hochberg "
            f"across the log's measured inconsistent tasks; a call passes at q <= {FDR_Q}"
        ),
    }


def attribution_caption(items: Sequence[Attribution]) -> str:
    """The counts' rule and uncertainty in one sentence: how many calls pass, the share of inconsistent
    tasks they are with its exact 95 % interval, and (when some pass) how many of them may be false
    at this rate."""
    counts = verdict_counts(items)
    called = counts["route"] + counts["both"]
    share = called / len(items) if items else None
    bounds = exact_share_interval(called, len(items)) if items else None
    text = (
        f"Route and both count only calls that pass a false discovery rate of {100 * FDR_Q:.0f} % (Benjamini-"
        f"Hochberg over the {len(items)} inconsistent tasks): {called} of {len(items)}, "
        f"{numbers.pct_ci(share, bounds)} of such tasks"
    )
    if not called:
        return text + "."
    return text + f"; at this rate up to about {FDR_Q * called:.1f} of the {called} may be false."


def decide(finding: Finding, q: float | None) -> Cause:
    """The cause of a task from its finding and its q-value."""
    test = finding.test
    if test is None or q is None:
        return "unmeasured"
    if reaches(q, FDR_Q):
        return "route" if test.explains else "both"
    if test.split_within_route and reaches(test.best_case, FDR_Q):
        return "model"
    return "inconclusive"


def attribute_rounds(rounds: Sequence[Round], describe: dict[Hashable, str] | None = None) -> Finding:
    """One task's factor test and evidence from its answered rounds (a pure function).

    Args:
        rounds: The task's answered rounds (errored results left out).
        describe: Optional route label -> short description, used in the evidence.
    """
    names = describe or {}
    known = [r for r in rounds if r.route is not None]
    if len(known) < 2:
        return Finding(None, "fewer than two answered rounds record a key or base URL", None)
    if len({r.answer for r in known}) == 1:
        n = len(rounds) - len(known)
        return Finding(
            None, f"answers differ only on the {numbers.counted(n, 'round')} with no route recorded", None
        )
    levels, factor_names = _levels(known)
    test = factor_test([r.answer for r in known], levels, factor_names)
    by_route = _group(known)
    split = _split_route(by_route)
    parts = [
        f"{names.get(route, 'route ' + str(i + 1))}: {_answers_by_round(rows)}"
        for i, (route, rows) in enumerate(by_route.items())
    ]
    return Finding(test, "; ".join(parts), split, tuple(parts))


def _levels(known: Sequence[Round]) -> tuple[list[list[Hashable]], list[str]]:
    if known[0].factors:
        return [list(col) for col in zip(*(r.factors for r in known), strict=True)], list(FACTORS)
    return [[r.route for r in known]], ["route"]


def finished(task: str, finding: Finding, q: float | None) -> Attribution:
    """The attribution of a task from its finding and q-value. No re-run is planned here: the rounds
    that decide depend on the tasks a re-run takes together (`verdicts.planner`), and planning every
    inconclusive task of a large log cost more than the rest of its analysis."""
    cause = decide(finding, q)
    test = finding.test
    factor = " and ".join(test.factors) if test is not None and test.factors else None
    return Attribution(
        task_id=task,
        cause=cause,
        factor=factor,
        p_value=None if test is None else test.p_value,
        q_value=q,
        passes=q is not None and reaches(q, FDR_Q),
        evidence=_sentence(cause, finding, q, factor),
        by_route=list(finding.by_route) if test is not None else [],
    )


def _sentence(cause: Cause, finding: Finding, q: float | None, factor: str | None) -> str:
    test = finding.test
    if test is None:
        return finding.evidence
    odds = numbers.p_value(test.p_value) + (f", {numbers.p_value(q, 'q')}" if q is not None else "")
    if cause == "route":
        return f"answers follow the {factor} ({odds}, passes q <= {FDR_Q}): {finding.evidence}"
    if cause == "both":
        return f"answers shift with the {factor} ({odds}) and also vary within it: {finding.evidence}"
    if cause == "model":
        why = (
            "no route factor varied"
            if not test.factors
            else f"no route factor explains it (best: {factor}, {odds}, and the rounds could have shown one)"
        )
        return f"answers differ within one route; {why}: {finding.evidence}"
    best = f"best: {factor}, {odds}" if factor else "no factor varied twice"
    return f"not enough rounds to tell ({best}); a pinned re-run may decide: {finding.evidence}"


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
    """The cause of every inconsistent task, in task order, with q-values over the measured ones.

    Args:
        results: Result frame with `cluster` (from `assign_clusters`) and `retried`.
        attempts: Attempt frame.
        tasks: Task frame with `task_id` and `consistent`.
    """
    inconsistent = tasks.loc[tasks["consistent"].eq(False).fillna(False).astype(bool), "task_id"].astype(str)
    if inconsistent.empty:
        return []
    per_task, values = answered_rounds(results, attempts, set(inconsistent))
    findings: list[tuple[str, Finding]] = []
    described: dict[frozenset[Hashable], dict[Hashable, str]] = {}  # tasks often share their routes
    for task in inconsistent:
        rounds = per_task.get(task, [])
        labels = frozenset(r.route for r in rounds if r.route is not None)
        if labels not in described:
            described[labels] = describe_routes(values, set(labels))
        findings.append((task, attribute_rounds(rounds, described[labels])))
    measured = [i for i, (_, f) in enumerate(findings) if f.test is not None]
    q = dict(zip(measured, benjamini_hochberg([findings[i][1].test.p_value for i in measured]), strict=True))  # type: ignore[union-attr]
    return [finished(task, finding, q.get(i)) for i, (task, finding) in enumerate(findings)]


def route_codes(factors: pd.DataFrame) -> np.ndarray:
    """Per row of `factor_columns`, an integer route code; -1 where no route is recorded."""
    if factors.empty:
        return np.zeros(0, dtype=np.int64)
    codes = tuple_codes(factors, list(FACTORS))
    return np.where(factors["recorded"].to_numpy(dtype=bool), codes, -1)


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
    fields = factor_columns(results, attempts)
    codes = route_codes(fields)
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
    levels = zip(*(fields[f].to_numpy(dtype=object)[rows].tolist() for f in FACTORS), strict=True)
    made = list(
        map(
            Round,
            picked["round"].to_numpy(dtype=np.int64).tolist(),
            routes,
            [str(k) for k in keys[first][inverse.reshape(-1)]],
            picked["retried"].to_numpy(dtype=bool).tolist(),
            [str(t) for t in picked["answer"].fillna("").to_numpy(dtype=object)],
            levels,
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
    columns = {f: fields[f].to_numpy(dtype=object)[any_row].tolist() for f in FACTORS}
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
    return tuple(fields[f] for f in FACTORS)


def describe_routes(values: dict[int, dict[str, str]], codes: set[Hashable]) -> dict[Hashable, str]:
    """Route code -> short description naming the fields that tell the task's routes apart.

    Args:
        values: Route fields per route code.
        codes: The task's route codes.
    """
    if not codes:
        return {}
    rows = {code: values[code] for code in codes}  # type: ignore[index]
    differ = [f for f in FACTORS if len({row[f] for row in rows.values()}) > 1]
    if not differ:
        differ = [f for f in FACTORS[:2] if any(row[f] != "unset" for row in rows.values())]
    out: dict[Hashable, str] = {}
    for code, row in rows.items():
        out[code] = ", ".join(f"{f} {row[f]}" for f in differ) or "the only route recorded"
    return out


def _text(value: object) -> str:
    return (
        "unset"
        if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))
        else str(value)
    )


def attribution_frame(items: Sequence[Attribution]) -> pd.DataFrame:
    """The attributions as a table: task_id, cause, factor, p_value, q_value, passes, evidence (for
    pages and exports)."""
    return pd.DataFrame(
        {
            "task_id": pd.array([a.task_id for a in items], dtype="string"),
            "cause": pd.array([a.cause for a in items], dtype="string"),
            "factor": pd.array([a.factor for a in items], dtype="string"),
            "p_value": pd.array([a.p_value for a in items], dtype="Float64"),
            "q_value": pd.array([a.q_value for a in items], dtype="Float64"),
            "passes": pd.array([a.passes for a in items], dtype="boolean"),
            "evidence": pd.array([a.evidence for a in items], dtype="string"),
        }
    )
