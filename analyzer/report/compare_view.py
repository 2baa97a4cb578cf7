"""Compare's readable side: short group names, which open logs to compare by default, and the
side-by-side table with human headers and each interval beside its figure.

- A group's short name is the part of its label before `: ` when that is short (`A: baseline ...`
  reads `A`), else its first 16 characters and `…`; names are made unique with ` 2`, ` 3`, ...
- By default Compare sets the baseline beside the open logs that share at least half of its tasks
  (another task set, such as an agent log or one task's step resample, is left out until picked).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

import pandas as pd

import analyzer.numbers as numbers
from analyzer.log.task_set import pairing, task_set
from analyzer.metrics.cost import CostFigures, cost_phrase
from analyzer.numbers import Bounds

if TYPE_CHECKING:
    from analyzer.analysis import Analysis
    from analyzer.verdicts.compare import Comparison

SHORT_CHARS = 16
SHARED_AT_LEAST = 0.5
"""The share of the baseline's tasks a log must hold to be compared by default."""

_PREFIX = re.compile(r"^\s*([^:]{1,12}):\s")


def short_names(labels: Sequence[str]) -> list[str]:
    """`A: baseline (two keys...)` -> `A`; a long label without such a prefix -> its start and `…`."""
    out: list[str] = []
    for label in labels:
        match = _PREFIX.match(label)
        name = match.group(1).strip() if match else label.strip()
        if len(name) > SHORT_CHARS:
            name = name[: SHORT_CHARS - 1].rstrip() + "…"
        base, n = name or "log", 2
        while name in out or not name:
            name, n = f"{base} {n}", n + 1
        out.append(name)
    return out


def name_legend(names: Sequence[str], labels: Sequence[str]) -> list[tuple[str, str]]:
    """Each short name with what the legend adds to it: the label's rest after `A:` when the name is
    that prefix (`A`, `baseline (...)`: never `A = A: baseline`), else the whole label ("" when the
    name is the whole label)."""
    out = []
    for name, label in zip(names, labels, strict=True):
        match = _PREFIX.match(label)
        rest = label[match.end() :].strip() if match and match.group(1).strip() == name else label
        out.append((name, "" if rest.strip() == name else rest))
    return out


def sharing(analyses: Sequence[Analysis], baseline: int) -> list[int]:
    """Indices of the analyses (the baseline first) that share at least half the baseline's tasks, or
    whose own tasks are at least half the baseline's (a re-run of some of its tasks); tasks are shared
    when `task_set.pairing` pairs them (ids and prompts), never by id alone."""
    base = task_set(analyses[baseline].log)
    chosen = [baseline]
    for i, a in enumerate(analyses):
        own = task_set(a.log)
        paired = pairing(base, own)
        enough = len(paired.shared) >= SHARED_AT_LEAST * min(len(base.ids), len(own.ids))
        if i != baseline and paired.comparable and enough:
            chosen.append(i)
    return chosen


SIDE_BY_SIDE_LEGEND = {
    "answer gap": "gaps in percentage points with their 95 % interval over tasks (bootstrap)",
    "Pass^n": "Pass^n: every round succeeds",
    "score": "score: mean over tasks of each task's mean reward or score",
    "retries": "retries: HTTP attempts beyond each result's first",
    "pinned": "pinned: one route for every call",
}
"""What the side-by-side table's less obvious headers mean, by header."""


def legend(table: pd.DataFrame) -> str:
    """The legend of the headers `table` shows, one line (the page writes it under the table)."""
    return " · ".join(text for column, text in SIDE_BY_SIDE_LEGEND.items() if column in table)


def side_by_side(comparison: Comparison) -> pd.DataFrame:
    """One row per group, as read: its short name, size, figures with their intervals in the one
    number style (`46.7 pp (95 % CI 28.3–65.7)`), `—` for a missing figure.

    The outcome gap, Pass^n and score columns are left out when no group has them (logs without
    grading, or without rewards or scores)."""
    t = comparison.table
    pairs = zip(t["tasks"], t["rounds"], strict=True)
    table = pd.DataFrame(
        {
            "group": t["label"],
            "tasks x rounds": [f"{numbers.count(a)} x {numbers.count(b)}" for a, b in pairs],
            "answer gap": _with_ci(t, "answer_gap_pp", "answer_gap", numbers.pp_ci),
            "outcome gap": _with_ci(t, "outcome_gap_pp", "outcome_gap", numbers.pp_ci),
            "Pass^n": [numbers.pct(v) for v in t["pass_hat_n"]],
            "score": _with_ci(t, "mean_score", "mean_score", partial(numbers.num_ci, digits=3)),
            "tokens per task": [numbers.count(v) for v in t["tokens_per_task_mean"]],
            "retries": [numbers.count(v) for v in t["extra_attempts"]],
            "pinned": [numbers.yes_no(v) for v in t["route_pinned"]],
        }
    )
    unmeasured = [c for c in ("outcome gap", "Pass^n", "score") if table[c].eq(numbers.NONE).all()]
    return table.drop(columns=unmeasured)


def _with_ci(t: pd.DataFrame, value: str, stem: str, style: Callable[[float, Bounds], str]) -> list[str]:
    """Each row's `value` column with its `<stem>_low`-`<stem>_high` interval, written by `style`."""
    return [
        style(v, (low, high))
        for v, low, high in zip(t[value], t[f"{stem}_low"], t[f"{stem}_high"], strict=True)
    ]


def cost_caption(names: Sequence[str], costs: Sequence[CostFigures | None]) -> str:
    """Each group's cost in the words every view uses (`metrics.cost.cost_phrase`), one line; kept
    out of the side-by-side table, which must fit the page's width."""
    return "Cost: " + " · ".join(
        f"{name} {cost_phrase(cost) if cost is not None else 'cost not recorded'}"
        for name, cost in zip(names, costs, strict=True)
    )


def flip_table(comparison: Comparison) -> pd.DataFrame:
    """The tasks that flip, one column per group (short names): consistent, inconsistent or `—`."""
    flips = comparison.flips
    out = pd.DataFrame({"task": flips["task_id"].astype(str)})
    for name in comparison.labels:
        out[name] = flips[name].map(numbers.yes_no)
    return out
