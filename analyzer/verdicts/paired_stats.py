"""A paired difference between two analysed logs, with its interval, its p-value and a sentence.

Paired over the tasks both logs measured (tasks are the unit that varies): the answer gap
difference is the mean over shared tasks of (inconsistent here - inconsistent in the first) x 100,
with a paired interval (the wider of the bootstrap and Newcombe's hybrid score interval,
`analyzer.metrics.stats.paired_difference_ci`); its p-value is the exact McNemar test over the tasks
that flip. The
outcome gap difference is the same over tasks graded in both, per task (c/n - [c = n]) x 100, which
averages to Mean@n - Pass^n with each task's own n.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pydantic import BaseModel

import analyzer.numbers as numbers
from analyzer.analysis import Analysis
from analyzer.log.task_set import pairing, task_set
from analyzer.metrics.stats import (
    ALPHA,
    fisher_exact,
    mcnemar_exact,
    mcnemar_tasks_needed,
    paired_difference_ci,
)

Interval = list[float]
"""[low, high]."""


class Difference(BaseModel):
    """One group against the first, paired over shared tasks."""

    label: str
    """This group."""
    against: str
    """The group it is compared with (the first)."""
    common_tasks: int
    """Tasks with at least two answers in both groups."""
    answer_gap_diff_pp: float | None
    """This group's answer gap minus the first's over the common tasks, in points."""
    answer_gap_diff_ci: Interval | None
    """95 % paired interval of that difference: the wider of the bootstrap and Newcombe's score interval."""
    p_value: float | None
    """Exact McNemar p-value over the common tasks that flip between consistent and inconsistent."""
    turned_consistent: int
    """Common tasks inconsistent in the first group and consistent here."""
    turned_inconsistent: int
    """Common tasks consistent in the first group and inconsistent here."""
    outcome_common_tasks: int
    """Tasks graded in both groups."""
    outcome_gap_diff_pp: float | None
    """This group's outcome gap minus the first's over the tasks graded in both, in points."""
    outcome_gap_diff_ci: Interval | None
    """95 % paired interval of that difference: the wider of the bootstrap and Newcombe's score interval."""
    tasks_to_resolve: int | None
    """Paired tasks the McNemar test needs to tell an answer gap difference of this size from noise
    (5 %, 80 % power); None when nothing flips one way more than the other."""
    refused: str | None = None
    """Why no difference may be called between these groups (they differ in rounds, or in errored
    results beyond chance), or None."""
    sentence: str
    """The difference in one sentence, with its uncertainty."""


def paired_difference(against: str, first: Analysis, label: str, second: Analysis) -> Difference:
    """`second` against `first` over the tasks both share.

    Args:
        against: The first group's label.
        first: The first group's analysis.
        label: This group's label.
        second: This group's analysis.
    """
    paired = pairing(task_set(first.log), task_set(second.log))
    if not paired.comparable:
        return unpaired(against, label, paired.reason or "they are different tasks")
    a, b = _shared(_inconsistent(first), _inconsistent(second))
    answer_diff = _mean_diff(a, b)
    turned_consistent = int(((a > 0) & (b == 0)).sum())
    turned_inconsistent = int(((a == 0) & (b > 0)).sum())
    p = mcnemar_exact(turned_inconsistent, turned_consistent) if len(a) else None
    oa, ob = _shared(_outcome_gap(first), _outcome_gap(second))
    outcome_diff = _mean_diff(oa, ob)
    outcome_upper = max(_outcome_gap_upper(first), _outcome_gap_upper(second))
    diff = Difference(
        label=label,
        against=against,
        common_tasks=len(a),
        answer_gap_diff_pp=answer_diff,
        answer_gap_diff_ci=_ci(a, b),
        p_value=p,
        turned_consistent=turned_consistent,
        turned_inconsistent=turned_inconsistent,
        outcome_common_tasks=len(oa),
        outcome_gap_diff_pp=outcome_diff,
        outcome_gap_diff_ci=_ci(oa, ob, outcome_upper),
        tasks_to_resolve=mcnemar_tasks_needed(turned_inconsistent, turned_consistent, len(a)),
        refused=comparability(against, first, label, second),
        sentence="",
    )
    return diff.model_copy(update={"sentence": difference_sentence(diff)})


def unpaired(against: str, label: str, reason: str) -> Difference:
    """Two groups whose tasks are not the same: nothing paired, and why."""
    sentence = f"{label} and {against} are not the same tasks ({reason}): nothing is paired."
    return Difference(
        label=label,
        against=against,
        common_tasks=0,
        answer_gap_diff_pp=None,
        answer_gap_diff_ci=None,
        p_value=None,
        turned_consistent=0,
        turned_inconsistent=0,
        outcome_common_tasks=0,
        outcome_gap_diff_pp=None,
        outcome_gap_diff_ci=None,
        tasks_to_resolve=None,
        refused=f"not the same tasks: {reason}",
        sentence=sentence,
    )


def difference_sentence(d: Difference) -> str:
    """E.g. "C's answer gap is 30.0 pp lower than A's over 30 shared tasks (95 % CI -47.3 to -10.0,
    p = 0.012)": each group named once, the interval and p-value in the one number style."""
    if d.common_tasks == 0 or d.answer_gap_diff_pp is None:
        return f"{d.label} shares no task with two answers with {d.against}: no paired comparison."
    size = abs(d.answer_gap_diff_pp)
    if size == 0:
        return (
            f"{d.label}'s answer gap equals {d.against}'s over "
            f"{numbers.counted(d.common_tasks, 'shared task')} "
            f"({numbers.counted(d.turned_consistent, 'task')} flip each way, {numbers.p_value(d.p_value)})."
        )
    direction = "lower" if d.answer_gap_diff_pp < 0 else "higher"
    ci = numbers.ci(d.answer_gap_diff_ci)
    head = (
        f"{d.label}'s answer gap is {numbers.pp(size)} {direction} than {d.against}'s over "
        f"{numbers.counted(d.common_tasks, 'shared task')} "
        f"({ci + ', ' if ci else ''}{numbers.p_value(d.p_value)})"
    )
    if d.refused:
        return f"{head}; no difference is called: {d.refused}."
    if d.p_value is not None and d.p_value <= ALPHA:
        return head + "."
    need = (
        f"; about {d.tasks_to_resolve} paired tasks would resolve a difference of this size"
        if d.tasks_to_resolve
        else ""
    )
    return f"{head}: not distinguishable from noise with {numbers.counted(d.common_tasks, 'task')}{need}."


def comparability(against: str, first: Analysis, label: str, second: Analysis) -> str | None:
    """Why two groups' consistency may not be compared, or None: different numbers of rounds (the
    rate depends on them), or errored results in shares that differ beyond chance (exact Fisher test,
    two-sided, p <= 0.05: errors take rounds away, and fewer answers agree more easily)."""
    a, b = first.headline, second.headline
    if a.rounds != b.rounds:
        rounds = f"{against} ran {a.rounds} rounds and {label} {b.rounds}"
        return f"{rounds}; the consistency rate depends on the rounds"
    p = fisher_exact(a.errors, a.results - a.errors, b.errors, b.results - b.errors)
    if p <= ALPHA:
        return (
            f"errored results differ beyond chance ({against} {a.errors} of {a.results}, {label} "
            f"{b.errors} of {b.results}, Fisher {numbers.p_value(p)}); errors take rounds away and fewer "
            "answers agree more easily"
        )
    return None


def _inconsistent(analysis: Analysis) -> pd.Series:
    """Per measured task: 100 when inconsistent, 0 when consistent."""
    tasks = analysis.tasks.dropna(subset=["consistent"])
    values = (~tasks["consistent"].astype(bool)).to_numpy(dtype=np.float64) * 100.0
    return pd.Series(values, index=tasks["task_id"].astype(str).to_numpy())


def _outcome_gap(analysis: Analysis) -> pd.Series:
    """Per graded task: (c/n - [c = n]) x 100, which averages to the outcome gap."""
    tasks = analysis.tasks
    graded = tasks["graded"].to_numpy(dtype=np.int64)
    keep = graded > 0
    c = tasks["successes"].to_numpy(dtype=np.float64, na_value=0.0)[keep]
    n = graded[keep].astype(np.float64)
    return pd.Series((c / n - (c == n)) * 100.0, index=tasks["task_id"].astype(str).to_numpy()[keep])


def _outcome_gap_upper(analysis: Analysis) -> float:
    """The largest per-task outcome gap the tasks allow: 100 (n - 1) / n for the largest graded n
    (0 for 1-round logs, whose gap is 0 by definition)."""
    graded = analysis.tasks["graded"].to_numpy(dtype=np.int64)
    n = int(graded.max()) if len(graded) else 0
    return 100.0 * (n - 1) / n if n > 0 else 0.0


def _shared(first: pd.Series, second: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    common = first.index.intersection(second.index, sort=False)
    return first.loc[common].to_numpy(), second.loc[common].to_numpy()


def _mean_diff(first: np.ndarray, second: np.ndarray) -> float | None:
    return round(float((second - first).mean()), 10) if len(first) else None


def _ci(first: np.ndarray, second: np.ndarray, upper: float = 100.0) -> Interval | None:
    """The paired interval; `upper` is the largest per-task value (100 pp for the answer gap)."""
    if not len(first):
        return None
    if upper <= 0:  # every per-task value is 0: the difference is 0, not uncertain
        return [0.0, 0.0]
    low, high = paired_difference_ci(first, second, upper=upper)
    return [round(low, 10), round(high, 10)]
