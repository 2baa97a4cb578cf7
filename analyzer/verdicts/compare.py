"""Compare analysed logs side by side, find the tasks that flip, and say which differences are noise.

Each group after the first is compared with the first on the tasks both measured, paired per task:
the answer gap difference with a paired interval and the exact McNemar p-value over the tasks that
flip between consistent and inconsistent, the outcome gap difference on the tasks both graded
(`analyzer.verdicts.paired_stats`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from analyzer.analysis import Analysis
from analyzer.log.task_set import pairing, task_set
from analyzer.verdicts.paired_stats import Difference, paired_difference

TABLE_COLUMNS: tuple[str, ...] = (
    "label",
    "tasks",
    "rounds",
    "answer_key",
    "answer_gap_pp",
    "answer_gap_low",
    "answer_gap_high",
    "outcome_gap_pp",
    "outcome_gap_low",
    "outcome_gap_high",
    "mean_at_n",
    "pass_hat_n",
    "mean_score",
    "mean_score_low",
    "mean_score_high",
    "tokens_total",
    "tokens_per_task_mean",
    "cost_usd",
    "attempts_total",
    "extra_attempts",
    "results_with_retry",
    "route_pinned",
    "flagged",
)
"""Columns of `Comparison.table`, in order."""


@dataclass(frozen=True, eq=False)
class Comparison:
    """Groups side by side."""

    table: pd.DataFrame
    """One row per group with its headline figures (columns: `TABLE_COLUMNS`)."""
    consistency: pd.DataFrame
    """Every task of any group: task_id, one nullable-boolean consistency column per group label
    (`<NA>` where the group lacks the task or it has fewer than 2 answers), and `flipped`."""
    flips: pd.DataFrame
    """The rows of `consistency` whose task is consistent in one group and inconsistent in another."""
    differences: list[Difference] = field(default_factory=list)
    """One per group after the first, against the first, paired over the tasks both share."""

    @property
    def labels(self) -> list[str]:
        """Group labels, made unique, in the order given."""
        return self.table["label"].tolist()


def compare(groups: Sequence[tuple[str, Analysis]]) -> Comparison:
    """Put analysed logs side by side.

    A task flips when it is consistent in at least one group and inconsistent in another (groups
    where it has fewer than two answers do not count). Repeated labels get " (2)", " (3)", ...

    Args:
        groups: (label, analysis) pairs, e.g. [("A: default", analyze(a)), ("C: pinned", analyze(c))].
    """
    labels = _unique_labels([label for label, _ in groups])
    rows = [_row(label, analysis) for label, (_, analysis) in zip(labels, groups, strict=True)]
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    for name in (
        *_FLOAT_COLUMNS,
        "mean_at_n",
        "pass_hat_n",
        *_SCORE_COLUMNS,
        "tokens_per_task_mean",
        "cost_usd",
    ):
        table[name] = table[name].astype("Float64")
    table["route_pinned"] = table["route_pinned"].astype("boolean")
    table["tokens_total"] = table["tokens_total"].astype("Int64")

    order: dict[str, None] = {}
    for _, analysis in groups:
        order.update(dict.fromkeys(analysis.tasks["task_id"].tolist()))
    index = pd.Index(list(order), name="task_id", dtype="string")
    consistency = pd.DataFrame(index=index)
    first = task_set(groups[0][1].log) if groups else None
    for label, (_, analysis) in zip(labels, groups, strict=True):
        by_task = analysis.tasks.set_index("task_id")["consistent"]
        column = by_task.reindex(index).astype("boolean")
        if first is not None and not pairing(first, task_set(analysis.log)).comparable:
            column[:] = pd.NA  # other tasks under the same ids: never set beside the first group's
        consistency[label] = column.to_numpy()
    values = consistency[labels] if labels else consistency
    any_true = values.eq(True).any(axis=1) if labels else pd.Series(False, index=index)
    any_false = values.eq(False).any(axis=1) if labels else pd.Series(False, index=index)
    consistency["flipped"] = (any_true & any_false).to_numpy(dtype=bool)
    consistency = consistency.reset_index()
    flips = consistency.loc[consistency["flipped"]].reset_index(drop=True)
    differences = [
        paired_difference(labels[0], groups[0][1], label, analysis)
        for label, (_, analysis) in zip(labels[1:], groups[1:], strict=True)
    ]
    return Comparison(table=table, consistency=consistency, flips=flips, differences=differences)


def comparison_report(comparison: Comparison) -> dict[str, Any]:
    """What `rerunlens compare --json` prints: `groups`, `flips` and `differences`, JSON-ready."""
    return {
        "groups": json.loads(comparison.table.to_json(orient="records")),
        "flips": json.loads(comparison.flips.to_json(orient="records")),
        "differences": [d.model_dump(mode="json") for d in comparison.differences],
    }


_FLOAT_COLUMNS = (
    "answer_gap_pp",
    "answer_gap_low",
    "answer_gap_high",
    "outcome_gap_pp",
    "outcome_gap_low",
    "outcome_gap_high",
)


_SCORE_COLUMNS = ("mean_score", "mean_score_low", "mean_score_high")
"""The mean reward or score over tasks and its 95 % interval (`Headline.score`)."""


def _row(label: str, analysis: Analysis) -> dict[str, object]:
    h = analysis.headline
    outcome = h.outcome
    return {
        "label": label,
        "tasks": h.tasks,
        "rounds": h.rounds,
        "answer_key": h.answer_key,
        "answer_gap_pp": h.answer_gap_pp,
        "answer_gap_low": h.answer_gap_ci[0] if h.answer_gap_ci else None,
        "answer_gap_high": h.answer_gap_ci[1] if h.answer_gap_ci else None,
        "outcome_gap_pp": outcome.outcome_gap_pp if outcome else None,
        "outcome_gap_low": _outcome_ci(analysis, 0),
        "outcome_gap_high": _outcome_ci(analysis, 1),
        "mean_at_n": outcome.mean_at_n if outcome else None,
        "pass_hat_n": outcome.pass_hat_k[outcome.n] if outcome else None,
        "mean_score": h.score.mean if h.score else None,
        "mean_score_low": h.score.mean_ci[0] if h.score else None,
        "mean_score_high": h.score.mean_ci[1] if h.score else None,
        "tokens_total": h.tokens.total,
        "tokens_per_task_mean": h.tokens.per_task_mean,
        "cost_usd": h.cost.total_usd if h.cost else None,
        "attempts_total": h.retries.attempts_total,
        "extra_attempts": h.retries.extra_attempts,
        "results_with_retry": h.retries.results_with_retry,
        "route_pinned": h.route.pinned,
        "flagged": len(h.flagged),
    }


def _outcome_ci(analysis: Analysis, end: int) -> float | None:
    outcome = analysis.headline.outcome
    ci = outcome.outcome_gap_ci if outcome is not None else None
    return None if ci is None else ci[end]


_RESERVED = frozenset({"task_id", "flipped"})
"""Column names of `Comparison.consistency` that a group label must not take."""


def _unique_labels(labels: list[str]) -> list[str]:
    """Labels made unique and clear of the reserved column names: " (2)", " (3)", ... as needed."""
    taken: set[str] = set(_RESERVED)
    out: list[str] = []
    for label in labels:
        candidate, n = label, 1
        while candidate in taken:
            n += 1
            candidate = f"{label} ({n})"
        taken.add(candidate)
        out.append(candidate)
    return out
