"""Compare's readable side: short group names, which open logs to compare by default, and the
side-by-side table with human headers and each interval beside its figure.

- A group's short name is the part of its label before `: ` when that is short (`A: baseline ...`
  reads `A`), else its first 16 characters and `…`; names are made unique with ` 2`, ` 3`, ...
- By default Compare sets the baseline beside the open logs that share at least half of its tasks
  (another task set, such as an agent log or one task's step resample, is left out until picked).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

import analyzer.numbers as numbers

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
    whose own tasks are at least half the baseline's (a re-run of some of its tasks)."""
    base = set(analyses[baseline].tasks["task_id"].astype(str))
    chosen = [baseline]
    for i, a in enumerate(analyses):
        own = set(a.tasks["task_id"].astype(str))
        if i != baseline and base and own:
            shared = len(base & own)
            if shared >= SHARED_AT_LEAST * min(len(base), len(own)):
                chosen.append(i)
    return chosen


def _ci_text(low: float | None, high: float | None, digits: int = 1) -> str:
    """`27.4–60.8` (the column header says `95 % CI`), or `—`."""
    if numbers.missing(low) or numbers.missing(high):
        return numbers.NONE
    bounds = [float(low), float(high)]  # type: ignore[arg-type]
    return numbers.ci(bounds, digits=digits).removeprefix("95 % CI ")


def side_by_side(comparison: Comparison) -> pd.DataFrame:
    """One row per group: its short name and figures, each interval in the column after its figure.

    Shares are in % (Pass^n), tokens per task whole; a missing figure is empty (shown as `—`).
    """
    t = comparison.table
    pairs = zip(t["tasks"], t["rounds"], strict=True)
    return pd.DataFrame(
        {
            "group": t["label"],
            "tasks x rounds": [f"{numbers.count(a)} x {numbers.count(b)}" for a, b in pairs],
            "answer gap (pp)": t["answer_gap_pp"],
            "answer gap CI": [
                _ci_text(a, b) for a, b in zip(t["answer_gap_low"], t["answer_gap_high"], strict=True)
            ],
            "outcome gap (pp)": t["outcome_gap_pp"],
            "outcome gap CI": [
                _ci_text(a, b) for a, b in zip(t["outcome_gap_low"], t["outcome_gap_high"], strict=True)
            ],
            "Pass^n (%)": t["pass_hat_n"] * 100,
            "mean reward/score": t["mean_score"],
            "mean reward/score CI": [
                _ci_text(a, b, 3) for a, b in zip(t["mean_score_low"], t["mean_score_high"], strict=True)
            ],
            "tokens per task": t["tokens_per_task_mean"].round().astype("Int64"),
            "retries": t["extra_attempts"],
            "route pinned": t["route_pinned"],
        }
    )


def flip_table(comparison: Comparison) -> pd.DataFrame:
    """The tasks that flip, one column per group (short names): consistent, inconsistent or `—`."""
    flips = comparison.flips
    out = pd.DataFrame({"task": flips["task_id"].astype(str)})
    for name in comparison.labels:
        out[name] = flips[name].map(lambda v: numbers.NONE if pd.isna(v) else ("yes" if v else "no"))
    return out
