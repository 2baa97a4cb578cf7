"""One task set's history: its runs in time order, each task's label, the change points with what
changed in the route, each figure's trend, and the gate `--fail-on-regression` reads.

Built from the run store's rows only (no log is opened). Labels are tested on the newest `WINDOW` runs.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from analyzer.history.labels import TaskLabel, label_tasks, task_series
from analyzer.history.trend import Trend, band, trend

WINDOW = 60
"""Runs the labels are tested on (the newest)."""
FIGURES = ("answer_gap_pp", "outcome_gap_pp", "mean_score", "pass_hat_k", "tokens_per_task")
ROUTE_FIELDS = (
    ("key_fingerprint", "key"),
    ("base_url", "base URL"),
    ("model", "model"),
    ("served_model", "served model"),
    ("system_fingerprint", "fingerprint"),
)
Cell = Literal["consistent", "inconsistent", "errored", "absent"]


@dataclass(frozen=True)
class Change:
    """A run where tasks changed, and what changed in the route at that run."""

    position: int
    run_id: str
    regressed: list[str]
    fixed: list[str]
    route_changes: list[tuple[str, str, str]]
    """(field name, before, after) for every route field that differs from the run before."""


@dataclass
class History:
    task_set_key: str
    runs: list[dict[str, Any]]
    labels: list[TaskLabel]
    changes: list[Change]
    trends: dict[str, Trend]
    cells: dict[str, list[Cell]]
    """Per task, its state in each run (time order)."""
    gate: dict[str, Any] = field(default_factory=dict)


def run_name(row: dict[str, Any]) -> str:
    """A run's id as the history names it: the log's run id, else its file name."""
    return str(row["run_id"] or Path(row["path"]).name)


def group_by_task_set(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Runs grouped by task-set key (ids and prompt hashes), each group in time order."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["task_set_key"]].append(row)
    return dict(groups)


def route_changes(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str, str]]:
    """What differs in the route between two consecutive runs: (field name, before, after)."""
    out = [
        (name, str(before[col]), str(after[col]))
        for col, name in ROUTE_FIELDS
        if before[col] is not None and after[col] is not None and before[col] != after[col]
    ]
    old, new = json.loads(before["parameters"] or "{}"), json.loads(after["parameters"] or "{}")
    out += [
        (p, _set(old.get(p)), _set(new.get(p)))
        for p in sorted(old.keys() | new.keys())
        if old.get(p) != new.get(p)
    ]
    return out


def _set(value: Any) -> str:
    return "not set" if value is None else str(value)


def _cell(row: dict[str, Any] | None) -> Cell:
    if row is None:
        return "absent"
    if row["errors"] and row["errors"] >= row["results"]:
        return "errored"
    return "inconsistent" if row["consistent"] is False else "consistent"


def build_history(key: str, runs: list[dict[str, Any]], tasks: list[dict[str, Any]]) -> History:
    """The history of one task set from its run rows (time order) and their task rows."""
    position = {row["id"]: i for i, row in enumerate(runs)}
    by_task: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for t in tasks:
        by_task[t["task_id"]][position[t["log_id"]]] = t
    first = max(0, len(runs) - WINDOW)
    series = [
        task_series(task_id, sorted((p, r) for p, r in cells.items() if p >= first))
        for task_id, cells in sorted(by_task.items())
    ]
    labels = label_tasks(series)
    cells = {task_id: [_cell(c.get(i)) for i in range(len(runs))] for task_id, c in sorted(by_task.items())}
    history = History(key, runs, labels, _changes(runs, labels), {}, cells)
    history.trends = {f: trend([r[f] for r in runs]) for f in FIGURES}
    history.gate = _gate(history)
    return history


def _changes(runs: list[dict[str, Any]], labels: list[TaskLabel]) -> list[Change]:
    at: dict[int, list[TaskLabel]] = defaultdict(list)
    for label in labels:
        if label.changed_at is not None:
            at[label.changed_at].append(label)
    return [
        Change(
            position=p,
            run_id=run_name(runs[p]),
            regressed=[t.task_id for t in at[p] if t.label == "regressed"],
            fixed=[t.task_id for t in at[p] if t.label == "fixed"],
            route_changes=route_changes(runs[p - 1], runs[p]) if p > 0 else [],
        )
        for p in sorted(at)
    ]


def _gate(history: History) -> dict[str, Any]:
    """Whether the newest run regressed beyond the history's own band (for `--fail-on-regression`)."""
    runs = history.runs
    newest = len(runs) - 1
    regressed = [t.task_id for t in history.labels if t.label == "regressed" and t.changed_at == newest]
    gap_band = band([r["answer_gap_pp"] for r in runs[:newest]])
    gap = runs[newest]["answer_gap_pp"] if runs else None
    above = gap_band is not None and gap is not None and gap > gap_band[1]
    reasons = [f"{len(regressed)} task(s) regressed at this run"] if regressed else []
    if above and gap_band is not None:
        reasons.append(
            f"answer gap {gap:.1f} pp is above the earlier runs' band (up to {gap_band[1]:.1f} pp)"
        )
    return {
        "run_id": run_name(runs[newest]) if runs else None,
        "regressed_tasks": regressed,
        "answer_gap_pp": gap,
        "answer_gap_band_pp": list(gap_band) if gap_band else None,
        "tripped": bool(reasons),
        "reasons": reasons,
    }
