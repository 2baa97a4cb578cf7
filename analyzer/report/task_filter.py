"""Which tasks a reader asked for: by state (inconsistent, drifted, errored), by cause, by cluster
count, by success, by task id or by a word in their answers.

The dashboard's Overview counts the three states apart (a task that is only drifted is not
inconsistent) and its Tasks page filters by them, with the same definitions:

- `inconsistent`: measured (two or more answers) and its answers fall into more than one cluster;
- `drifted`: its results did not all use one route tuple;
- `errored`: at least one of its results errored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

import analyzer.numbers as numbers

if TYPE_CHECKING:
    from analyzer.analysis import Analysis

STATES: dict[str, str] = {
    "inconsistent": "Inconsistent tasks",
    "drifted": "Drifted tasks",
    "errored": "Errored tasks",
}
"""Each state's name (in a URL) and its label."""

STATE_MEANING: dict[str, str] = {
    "inconsistent": "its answers (two or more) fall into more than one cluster across rounds",
    "drifted": "its own runs did not all go through one route (key, base URL, parameters) and one "
    "provider backend (served model, fingerprint)",
    "errored": "at least one of its results errored",
}
"""What each state means, as a page and a report say it beside the counts."""


def drift_defined() -> str:
    """The line that defines drift beside the counts: drift is not inconsistency."""
    return (
        f"Drifted: a task whose {STATE_MEANING['drifted'].removeprefix('its ')}. A drifted task may give "
        "one answer, and an inconsistent one may not have drifted."
    )


SUCCESS = ("any", "every round succeeds", "some round fails", "ungraded")
"""The success filter's choices."""

SORTS: dict[str, tuple[str, bool]] = {
    "log order": ("", True),
    "least consistent first": ("majority_share", True),
    "most answers first": ("n_clusters", False),
    "most tokens first": ("tokens_total", False),
    "most retries first": ("retries", False),
    "most errors first": ("n_errors", False),
    "task id": ("task_id", True),
}
"""Each order's name (in a URL) and the task-table column and direction it sorts by; the first keeps
the log's order. Ties keep the log's order, and tasks without a value come last."""
LOG_ORDER = next(iter(SORTS))


def order_phrase(order: str) -> str:
    """How a caption names `order`: `in the log's order`, `by task id`, `most tokens first`."""
    return {LOG_ORDER: "in the log's order", "task id": "by task id"}.get(order, order)


@dataclass(frozen=True)
class TaskFilter:
    """What to keep; the default keeps every task."""

    states: tuple[str, ...] = ()
    """Keep tasks in any of these states (`STATES`); none: every task."""
    causes: tuple[str, ...] = ()
    """Keep inconsistent tasks with one of these causes (the attribution's words)."""
    min_clusters: int = 0
    """Keep tasks with at least this many answer clusters."""
    success: str = "any"
    """One of `SUCCESS`."""
    id_contains: str = ""
    """Task id contains this (case-insensitive)."""
    answer_contains: str = ""
    """Some answer of the task contains this (case-insensitive)."""
    sort: str = LOG_ORDER
    """The order of the rows kept, one of `SORTS` (not a criterion: it keeps every row)."""

    def active(self) -> int:
        """How many criteria keep fewer than every task (0 for the default)."""
        return sum(
            bool(v)
            for v in (
                self.states,
                self.causes,
                self.min_clusters,
                self.success != SUCCESS[0],
                self.id_contains,
                self.answer_contains,
            )
        )


def state_masks(tasks: pd.DataFrame) -> dict[str, pd.Series]:
    """Per state, which rows of the analysis' task table are in it."""
    return {
        "inconsistent": tasks["consistent"].eq(False).fillna(False).astype(bool),
        "drifted": tasks["drifted"].fillna(False).astype(bool),
        "errored": tasks["n_errors"].fillna(0).gt(0),
    }


def state_counts(tasks: pd.DataFrame) -> dict[str, int | None]:
    """How many tasks are in each state (a task may be in several); None for `drifted` when some
    task's drift is not recorded (its results name no key or base URL)."""
    counts: dict[str, int | None] = {name: int(mask.sum()) for name, mask in state_masks(tasks).items()}
    if tasks["drifted"].isna().any():
        counts["drifted"] = None
    return counts


def causes_by_task(analysis: Analysis) -> pd.Series:
    """Each task's cause from the log (empty for a task without one), in task-table order."""
    causes = {a.task_id: a.cause for a in analysis.headline.attribution}
    return analysis.tasks["task_id"].astype(str).map(lambda task: causes.get(task, ""))


def cause_names(analysis: Analysis) -> list[str]:
    """The causes present in this log, first seen first."""
    return list(dict.fromkeys(a.cause for a in analysis.headline.attribution))


def filter_tasks(analysis: Analysis, chosen: TaskFilter) -> pd.DataFrame:
    """The task table's rows `chosen` keeps, with a `cause` column, in `chosen.sort`'s order."""
    tasks = analysis.tasks.assign(cause=causes_by_task(analysis))
    keep = pd.Series(True, index=tasks.index)
    if chosen.states:
        masks = state_masks(tasks)
        keep &= pd.concat([masks[s] for s in chosen.states if s in masks], axis=1).any(axis=1)
    if chosen.causes:
        keep &= tasks["cause"].isin(chosen.causes)
    if chosen.min_clusters:
        keep &= tasks["n_clusters"].fillna(0).ge(chosen.min_clusters)
    keep &= _success(tasks, chosen.success)
    if chosen.id_contains:
        keep &= tasks["task_id"].astype(str).str.contains(chosen.id_contains, case=False, regex=False)
    if chosen.answer_contains:
        keep &= tasks["task_id"].astype(str).isin(answer_matches(analysis, chosen.answer_contains))
    return sort_tasks(tasks[keep], chosen.sort).reset_index(drop=True)


def sort_tasks(tasks: pd.DataFrame, order: str) -> pd.DataFrame:
    """`tasks` in `order` (one of `SORTS`; an unknown one keeps the log's order), ties as they were."""
    column, ascending = SORTS.get(order, ("", True))
    if not column or column not in tasks.columns:
        return tasks
    if column == "task_id":  # 9, 10, 100, 110 as people count them, never 10, 100, 110, 9
        ordered = sorted(tasks.index, key=lambda i: numbers.natural_key(str(tasks.at[i, "task_id"])))
        return tasks.loc[ordered]
    values = pd.to_numeric(tasks[column], errors="coerce")
    return tasks.loc[values.sort_values(ascending=ascending, kind="stable", na_position="last").index]


def _success(tasks: pd.DataFrame, choice: str) -> pd.Series:
    graded = tasks["graded"].fillna(0).gt(0)
    rate = tasks["success_rate"]
    if choice == SUCCESS[1]:
        return graded & rate.eq(1.0)
    if choice == SUCCESS[2]:
        return graded & rate.lt(1.0)
    if choice == SUCCESS[3]:
        return ~graded
    return pd.Series(True, index=tasks.index)


def answer_matches(analysis: Analysis, text: str) -> set[str]:
    """Tasks with an answer containing `text` (case-insensitive)."""
    results = analysis.results
    hit = results["answer"].astype("string").str.contains(text, case=False, regex=False).fillna(False)
    return set(results.loc[hit.astype(bool), "task_id"].astype(str))
