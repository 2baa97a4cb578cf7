"""Each task's label over the runs of a task set: `stable`, `regressed`, `fixed` or `flaky`.

The rule (docs/metrics.md, "History"): per task, the change test (`change_points.change_p`) and the
homogeneity test (`change_points.homogeneity_p`); Benjamini-Hochberg across the task set's tasks, each
test family on its own, at q <= 0.05. A task whose change test passes is `regressed` or `fixed` (by the
direction at its best split, since the first run after it) unless the runs before or after the split
still disagree among themselves (homogeneity p <= 0.05 within either side), then `flaky`; a task whose
change test does not pass but whose homogeneity test does is `flaky`; any other is `stable`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from analyzer.history.change_points import change_p, homogeneity_p
from analyzer.metrics.stats import benjamini_hochberg

ALPHA = 0.05
Label = Literal["stable", "regressed", "fixed", "flaky"]


@dataclass(frozen=True)
class TaskSeries:
    """One task's rounds in each run that has it: good rounds and rounds, by run position."""

    task_id: str
    positions: list[int]
    good: list[int]
    rounds: list[int]
    measure: Literal["outcome", "answer"]


@dataclass(frozen=True)
class TaskLabel:
    task_id: str
    label: Label
    changed_at: int | None
    """Position of the first run after the change (regressed or fixed), else None."""
    p_change: float
    q_change: float
    q_flaky: float
    measure: str


def task_series(task_id: str, cells: Sequence[tuple[int, dict[str, Any]]]) -> TaskSeries:
    """The task's binary rounds per run: successes where every run grades it, else its usual answer."""
    graded = all(row["graded"] > 0 for _, row in cells)
    usual: str | None = None
    if not graded:
        totals: Counter[str] = Counter()
        for _, row in cells:
            totals.update(json.loads(row["answers"]))
        usual = min(totals, key=lambda a: (-totals[a], a)) if totals else None
    positions, good, rounds = [], [], []
    for position, row in cells:
        if graded:
            g, n = row["successes"], row["graded"] + row["errors"]
        else:
            g, n = (json.loads(row["answers"]).get(usual, 0) if usual else 0), row["results"]
        if n > 0:
            positions.append(position)
            good.append(int(g))
            rounds.append(int(n))
    return TaskSeries(task_id, positions, good, rounds, "outcome" if graded else "answer")


def label_tasks(series: Sequence[TaskSeries], alpha: float = ALPHA) -> list[TaskLabel]:
    """Every task's label, the multiple-testing rule applied across `series`."""
    splits = [change_p(s.good, s.rounds) for s in series]
    spread = [homogeneity_p(s.good, s.rounds, s.task_id) for s in series]
    q_change = benjamini_hochberg([s.p for s in splits])
    q_flaky = benjamini_hochberg(spread)
    out = []
    for s, split, qc, qf in zip(series, splits, q_change, q_flaky, strict=True):
        label: Label = "stable"
        changed_at = None
        if qc <= alpha:
            a = split.after
            before = homogeneity_p(s.good[:a], s.rounds[:a], s.task_id + "/before")
            after = homogeneity_p(s.good[a:], s.rounds[a:], s.task_id + "/after")
            if min(before, after) <= alpha:
                label = "flaky"
            else:
                label = "regressed" if split.worse else "fixed"
                changed_at = s.positions[a]
        elif qf <= alpha:
            label = "flaky"
        out.append(TaskLabel(s.task_id, label, changed_at, split.p, qc, qf, s.measure))
    return out
