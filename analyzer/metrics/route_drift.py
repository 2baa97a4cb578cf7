"""Route drift: which routes the calls went through, whether the run was pinned, what drifted per task.

A route tuple is what a result was sent with: base URL, key fingerprint and parameters (model,
temperature, top_p, seed, max_tokens, timeout, max_retries). An attempt's tuple is its result's with
the attempt's own base URL and key fingerprint where it recorded them; an attempt at another
origin (a redirect's next hop) keeps its missing fingerprint, since no key was sent there. A run is
route-pinned when every result and attempt that records a route shares exactly one tuple (docs/metrics.md).

`max_tokens` may be set per task (task files allow it): when it never changes within a task, it is
the task's setting, not the route's, and different tasks' caps do not unpin a run.

A task is route-drifted when its results or attempts use more than one value of any route field, or
the provider-reported served model or system fingerprint changes between its results. Missing values
are not a value: an errored result without `served_model` is not drift. A task none of whose results
records a key fingerprint or base URL, and that shows no drift in what it records, is neither drifted
nor not (`<NA>`): a change of key or endpoint would not show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd
from pydantic import BaseModel

import analyzer.numbers as numbers
from analyzer.log.field_labels import field_label
from analyzer.log.frames import ROUTE_FIELDS
from analyzer.metrics.grouping import (
    any_recorded,
    first_rows,
    per_task_count,
    sorted_distinct,
    task_codes,
    tuple_codes,
)

ATTEMPT_FIELDS: tuple[str, ...] = ("base_url", "key_fingerprint")
"""Route fields an attempt records for itself."""
BACKEND_FIELDS: tuple[str, ...] = ("served_model", "system_fingerprint")
"""What the provider reported back; a change means the backend changed under the same route."""
DRIFT_FIELDS: tuple[str, ...] = ROUTE_FIELDS + BACKEND_FIELDS
"""Every field whose change within a task makes the task route-drifted."""

TASK_SCOPED_FIELDS: tuple[str, ...] = ("max_tokens",)
"""Route fields a task may set for itself; they count as route only when they vary within a task."""

_SHOW_AT_MOST = 5


class RouteFigures(BaseModel):
    """The route verdict over the whole log."""

    pinned: bool | None
    """True when exactly one route tuple was used; None when the log records no routes."""
    tuples: int
    """Distinct route tuples among results and attempts that record one."""
    drifted_fields: list[str]
    """Fields with more than one value anywhere in the run."""
    drifted_tasks: list[str]
    """Tasks whose own results or attempts drifted."""
    drifted_count: int | None = None
    """How many tasks drifted; None when some task's results record no key or base URL (its drift
    is not recorded, so no count can say how many drifted)."""
    inconsistent_drifted_or_retried: list[str]
    """Inconsistent tasks that drifted or needed retries: the route may explain them."""
    inconsistent_clean: list[str]
    """Inconsistent tasks with one recorded route and no retries: the model itself varies."""
    inconsistent_unknown: list[str]
    """Inconsistent tasks, neither drifted nor retried, with results that record no route: cause unknown."""
    unrecorded_results: int
    """Results that record neither a key fingerprint nor a base URL (so their route is unknown)."""
    identity_recorded: bool = True
    """Whether any result or attempt records a key fingerprint or a base URL. Without either, one
    model and one set of settings do not make a pinned route: a key or endpoint change is invisible."""
    verdict: str
    """The verdict in plain words."""

    @property
    def held(self) -> bool:
        """Your route was pinned and the provider's backend did not change under it: all is one."""
        return bool(self.pinned) and not any(f in BACKEND_FIELDS for f in self.drifted_fields)


def route_usage(results: pd.DataFrame, attempts: pd.DataFrame) -> pd.DataFrame:
    """Every route field value per result and attempt: a new long-ish frame with `source`.

    Columns: task_id, source (`result` or `attempt`), and every field of `ROUTE_FIELDS`. Rows whose
    route fields are all missing (route not recorded) are left out.

    Args:
        results: Result frame.
        attempts: Attempt frame with `result_row`.
    """
    fields = list(ROUTE_FIELDS)
    res = results[["task_id", *fields]].copy()
    res.insert(1, "source", "result")
    att = results[["task_id", *fields]].iloc[attempts["result_row"].to_numpy()].reset_index(drop=True)
    own_url = attempts["base_url"].reset_index(drop=True)
    elsewhere = (own_url.notna() & (own_url != att["base_url"])).fillna(False).to_numpy(dtype=bool)
    for name in ATTEMPT_FIELDS:
        own = attempts[name].reset_index(drop=True)
        filled = own.fillna(att[name])
        if name == "key_fingerprint":  # a hop at another origin was sent no key: it borrows none
            filled = filled.where(~elsewhere, own)
        att[name] = filled
    att.insert(1, "source", "attempt")
    both = pd.concat([res, att], ignore_index=True)
    recorded = any_recorded(both, fields)
    return both.loc[recorded].reset_index(drop=True)


def route_table(usage: pd.DataFrame) -> pd.DataFrame:
    """One row per distinct route tuple, most used first: the fields, `results` and `attempts` counts.

    Args:
        usage: Frame from `route_usage`.
    """
    fields = list(ROUTE_FIELDS)
    if usage.empty:
        return pd.DataFrame(columns=[*fields, "results", "attempts"])
    per_task = task_settings(usage)
    if per_task:  # a per-task setting is shown blank: it is the task's, not the route's
        usage = usage.assign(**{name: pd.NA for name in per_task}).astype(usage[per_task].dtypes.to_dict())
    codes = tuple_codes(usage, fields)
    n = int(codes.max()) + 1
    is_result = (usage["source"] == "result").to_numpy(dtype=bool)
    table = usage[fields].iloc[first_rows(codes)].reset_index(drop=True)
    table["results"] = np.bincount(codes[is_result], minlength=n).astype("int64")
    table["attempts"] = np.bincount(codes[~is_result], minlength=n).astype("int64")
    table = table.sort_values(["results", "attempts"], ascending=False, kind="stable")
    return table.reset_index(drop=True)


def task_settings(usage: pd.DataFrame) -> list[str]:
    """Task-scoped fields (`TASK_SCOPED_FIELDS`) that differ between tasks but never within one.

    Args:
        usage: Frame from `route_usage`.
    """
    out = []
    for name in TASK_SCOPED_FIELDS:
        values = usage[["task_id", name]].dropna()
        if values[name].nunique() > 1 and values.groupby("task_id")[name].nunique().max() <= 1:
            out.append(name)
    return out


def task_drift(results: pd.DataFrame, usage: pd.DataFrame) -> pd.DataFrame:
    """Per task (first-appearance order): `drifted`, `drift` (e.g. "base URL: https://a, https://b")
    and `drift_fields`, the fields alone ("base URL, backend": what fits a table's cell).

    Counting distinct values per task is done on integer codes (factorize + unique pairs), so only
    the drifted tasks cost any Python work.

    Args:
        results: Result frame (for task order and the served model / system fingerprint).
        usage: Frame from `route_usage`.
    """
    order, result_tasks = task_codes(results)
    usage_codes, usage_ids = pd.factorize(usage["task_id"])  # look up each task once, not each row
    usage_tasks = order.get_indexer(usage_ids)[usage_codes] if len(usage_codes) else usage_codes
    texts: dict[int, list[tuple[str, str]]] = {}
    sources = [(name, usage_tasks, usage[name]) for name in ROUTE_FIELDS]
    sources += [(name, result_tasks, results[name]) for name in BACKEND_FIELDS]
    for name, tasks, values in sources:
        for task, shown in _drifted_values(tasks, values, len(order)):
            texts.setdefault(task, []).append((field_label(name), shown))
    parts = [texts.get(i, []) for i in range(len(order))]
    unseen = per_task_count(result_tasks, len(order), ~any_recorded(results, ATTEMPT_FIELDS))
    known = unseen == 0  # every result of the task records a key or base URL
    drifted = [True if p else (False if k else pd.NA) for p, k in zip(parts, known, strict=True)]
    return pd.DataFrame(
        {
            "task_id": pd.array(order, dtype="string"),
            "drifted": pd.array(drifted, dtype="boolean"),
            "drift": pd.array(["; ".join(f"{f}: {v}" for f, v in p) for p in parts], dtype="string"),
            "drift_fields": pd.array([", ".join(f for f, _ in p) for p in parts], dtype="string"),
        }
    )


def _drifted_values(tasks: np.ndarray, values: pd.Series, n_tasks: int) -> list[tuple[int, str]]:
    """(task index, "a, b") for every task with more than one distinct non-missing value."""
    codes, uniques = pd.factorize(values)
    keep = codes >= 0
    if not keep.any():
        return []
    width = len(uniques)
    pairs = sorted_distinct(tasks[keep].astype("int64") * width + codes[keep])
    pair_task = pairs // width
    distinct = np.bincount(pair_task, minlength=n_tasks)
    hit = distinct[pair_task] > 1
    if not hit.any():
        return []
    shown_values = [str(v) for v in np.asarray(uniques, dtype=object)]  # each value once, not per task
    out: dict[int, list[str]] = {}
    for task, code in zip(pair_task[hit].tolist(), (pairs[hit] % width).tolist(), strict=True):
        out.setdefault(task, []).append(shown_values[code])
    return [(task, ", ".join(shown)) for task, shown in out.items()]


def run_drifted_fields(results: pd.DataFrame, usage: pd.DataFrame) -> list[str]:
    """Fields with more than one value anywhere in the run, in `DRIFT_FIELDS` order.

    Args:
        results: Result frame.
        usage: Frame from `route_usage`.
    """
    per_task = set(task_settings(usage)) if not usage.empty else set()
    out = [name for name in ROUTE_FIELDS if name not in per_task and usage[name].nunique(dropna=True) > 1]
    out += [name for name in BACKEND_FIELDS if results[name].nunique(dropna=True) > 1]
    return out


def route_figures(
    results: pd.DataFrame, usage: pd.DataFrame, routes: pd.DataFrame, tasks: pd.DataFrame
) -> RouteFigures:
    """The pinned verdict, what drifted, and the split of inconsistent tasks.

    Args:
        results: Result frame.
        usage: Frame from `route_usage`.
        routes: Frame from `route_table`.
        tasks: Task frame with `task_id`, `consistent`, `drifted` and `retries`.
    """
    recorded = not usage.empty
    identity = bool(any_recorded(usage, ATTEMPT_FIELDS).any()) if recorded else False
    pinned = None if not recorded or (len(routes) == 1 and not identity) else len(routes) == 1
    fields = run_drifted_fields(results, usage)
    drifted = tasks["drifted"].fillna(False).astype(bool)
    drifted_tasks = tasks.loc[drifted, "task_id"].tolist()
    inconsistent = ~tasks["consistent"].fillna(True).astype(bool).to_numpy()
    explained = (drifted | (tasks["retries"] > 0).fillna(False).astype(bool)).to_numpy(dtype=bool)
    no_route = ~any_recorded(results, ATTEMPT_FIELDS)
    order, codes = task_codes(results)
    route_known = per_task_count(codes, len(order), no_route) == 0
    ids = tasks["task_id"].to_numpy(dtype=object)
    to_blame = ids[inconsistent & explained].tolist()
    clean = ids[inconsistent & ~explained & route_known].tolist()
    unknown = ids[inconsistent & ~explained & ~route_known].tolist()
    unrecorded = int(no_route.sum())
    figures = RouteFigures(
        pinned=pinned,
        tuples=len(routes),
        drifted_fields=fields,
        drifted_tasks=[str(t) for t in drifted_tasks],
        drifted_count=None if tasks["drifted"].isna().any() else len(drifted_tasks),
        inconsistent_drifted_or_retried=[str(t) for t in to_blame],
        inconsistent_clean=[str(t) for t in clean],
        inconsistent_unknown=[str(t) for t in unknown],
        unrecorded_results=unrecorded,
        identity_recorded=identity,
        verdict="",
    )
    measured = int(tasks["consistent"].notna().sum())
    return figures.model_copy(update={"verdict": verdict_sentence(figures, measured)})


class DriftedFigure(NamedTuple):
    """The count of drifted tasks as every page and report shows it."""

    figure: str
    """`3`; `at least 3` when some tasks' drift is not recorded but 3 are known to have drifted;
    `not recorded` when none is known to have."""
    unrecorded: int
    """Tasks whose drift is not recorded (their results name no key or base URL)."""
    note: str
    """Why the figure is a lower bound or unknown, in one sentence (empty when every task records)."""


def drifted_figure(drifted: pd.Series) -> DriftedFigure:
    """The drifted-task count from the task frame's `drifted` column (`<NA>`: not recorded): exact
    when every task records its route, else `at least` the known ones (the Overview and Routes tiles,
    the HTML and text reports)."""
    known = int(drifted.fillna(False).astype(bool).sum())
    unrecorded = int(drifted.isna().sum())
    if not unrecorded:
        return DriftedFigure(numbers.count(known), 0, "")
    note = (
        f"{unrecorded} of {numbers.counted(len(drifted), 'task')} record no key or base URL in any "
        "result: a change of key or endpoint would not show for them."
    )
    figure = f"at least {numbers.count(known)}" if known else numbers.NOT_RECORDED
    return DriftedFigure(figure, unrecorded, note)


def drift_sentence(drifted: pd.Series) -> str:
    """How many tasks drifted, in one sentence, or how many record too little to tell (the Routes
    page, the HTML and text reports); `drifted`: the task frame's `drifted` column."""
    said = drifted_figure(drifted)
    if said.figure == numbers.NOT_RECORDED:
        return f"Drifted tasks not recorded: {said.note}"
    if said.unrecorded:
        return f"Drifted tasks: {said.figure}. {said.note}"
    if said.figure == "0":
        return "No task changed its route or the provider's backend between its runs."
    return f"Drifted tasks: {said.figure}."


def verdict_sentence(
    figures: RouteFigures, measured_tasks: int, causes: Mapping[str, int] | None = None
) -> str:
    """The route verdict in plain words.

    Args:
        figures: Route figures (the verdict field is ignored).
        measured_tasks: Tasks with at least two answers to compare.
        causes: How many inconsistent tasks the log attributes to `model`, `route` and `unclear`
            (`metrics.attribution`); without it, the split says only which tasks saw drift or retries,
            which is not evidence that the route explains them.
    """
    parts = _pinned_parts(figures)
    clean, blamed = figures.inconsistent_clean, figures.inconsistent_drifted_or_retried
    unknown = figures.inconsistent_unknown
    inconsistent = len(clean) + len(blamed) + len(unknown)
    if measured_tasks == 0:
        parts.append("No task has two answers to compare.")
    elif inconsistent == 0:
        parts.append(f"All {measured_tasks} measured tasks gave consistent answers.")
    elif len(unknown) == inconsistent:
        parts.append(
            f"{inconsistent} of {measured_tasks} measured tasks gave inconsistent answers; without route "
            "records, route and model cannot be told apart."
        )
    elif causes is not None:
        parts.append(_cause_split(inconsistent, causes))
    else:
        task_word = "task" if inconsistent == 1 else "tasks"
        split = [
            f"{len(blamed)} saw route drift or retries (which alone does not show the route is to blame)",
            f"{len(clean)} ran clean (the model itself varies{_examples(clean)})",
        ]
        if unknown:
            split.append(f"{len(unknown)} did not record a route (cause unknown)")
        parts.append(f"Of {inconsistent} inconsistent {task_word}, {', '.join(split[:-1])} and {split[-1]}.")
    return " ".join(parts)


def _pinned_parts(figures: RouteFigures) -> list[str]:
    """Whether the run was pinned, routes left unrecorded, and backend changes, one sentence each."""
    route_fields = [f for f in figures.drifted_fields if f in ROUTE_FIELDS]
    backend = [f for f in figures.drifted_fields if f in BACKEND_FIELDS]
    if figures.pinned is None and figures.tuples:
        parts = [
            "This log records the model and its settings but no key or base URL, so a change of key or "
            "endpoint cannot be ruled out."
        ]
    elif figures.pinned is None:
        parts = ["This log does not record routes, so route drift cannot be ruled out."]
    elif figures.pinned and backend:
        what = " and ".join(field_label(f) for f in backend)
        parts = [
            "Your route held (one key, base URL and set of parameters), but the provider's backend did "
            f"not: it reported a different {what} during the run, which no pin of yours can hold."
        ]
        backend = []  # said
    elif figures.pinned:
        parts = ["Route pinned: every result and attempt went through one route."]
    else:
        changed = (
            f"{', '.join(field_label(f) for f in route_fields)} changed"
            if route_fields
            else "some leave route fields unset"
        )
        parts = [f"Route not pinned: {figures.tuples} different routes ({changed})."]
    if figures.unrecorded_results and figures.pinned is not None:
        parts.append(
            f"{numbers.counted(figures.unrecorded_results, 'result')} did not record a key or base URL."
        )
    if backend:
        what = " and ".join(field_label(f) for f in backend)
        parts.append(f"The provider's backend changed too: it reported a different {what} during the run.")
    return parts


def _cause_split(inconsistent: int, causes: Mapping[str, int]) -> str:
    """`Of 13 inconsistent tasks, 5 follow your route ...`, from `route_factors.side_counts`."""
    route, backend, either, both, model, unsure, unmeasured = (
        int(causes.get(c, 0))
        for c in ("route", "backend", "route or backend", "both", "model", "inconclusive", "unmeasured")
    )
    split = []
    if route:
        split.append(
            f"{route} {_verb(route, 'follows', 'follow')} your route: key, base URL or parameters "
            "(false discovery rate 5 %)"
        )
    if backend:
        split.append(
            f"{backend} {_verb(backend, 'follows', 'follow')} the provider's backend: served model or "
            "fingerprint, which no pin holds (false discovery rate 5 %)"
        )
    if either:
        split.append(
            f"{either} {_verb(either, 'follows', 'follow')} your route or the provider's backend, which "
            "changed together (false discovery rate 5 %)"
        )
    if both:
        split.append(
            f"{both} {_verb(both, 'shifts', 'shift')} with a route factor and also vary within it (both)"
        )
    if model:
        split.append(
            f"{model} {_verb(model, 'varies', 'vary')} within one route, no factor explaining it (model)"
        )
    if unsure:
        split.append(f"{unsure} cannot be told apart from this log alone (inconclusive: a pinned re-run can)")
    if unmeasured:
        split.append(f"{unmeasured} {_verb(unmeasured, 'records', 'record')} no route (unmeasured)")
    if not split:
        return f"Of {inconsistent} inconsistent tasks, none was attributed."
    task_word = "task" if inconsistent == 1 else "tasks"
    listed = split[0] if len(split) == 1 else f"{', '.join(split[:-1])} and {split[-1]}"
    return f"Of {inconsistent} inconsistent {task_word}, {listed}."


def _verb(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _examples(ids: list[str]) -> str:
    if not ids:
        return ""
    shown = ", ".join(ids[:_SHOW_AT_MOST]) + (" ..." if len(ids) > _SHOW_AT_MOST else "")
    return f": {shown}"
