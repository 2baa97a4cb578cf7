"""The re-run planner: per task, the fewest pinned rounds whose agreement decides the verdict under the
rule it is judged by, and what a task no pinned rounds can decide needs instead.

The verdict (`rerun_verdict`) tests the parent's rounds and the re-run's together, divides by the
chance the parent was picked for disagreeing, and holds the re-run's tested tasks to a false
discovery rate of `RERUN_FDR_Q` by Benjamini-Hochberg. A task's p-value of 0.02 is therefore not
enough when the other tasks do not reach it too: with m tasks tested, BH passes every task whose p
is at most `RERUN_FDR_Q * r / m` as soon as r of them are (the r-th smallest p is then below its
step). The planner finds r by a fixed point: r = m, the tasks that can reach `RERUN_FDR_Q * r / m`
within the cap, r = their number, until it holds; each of those r tasks is named the fewest rounds
at which it reaches that level. The promise: if the planned tasks' pinned rounds agree, each of
them is `route`, whatever the others show.

A task's p at k pinned rounds is taken at its worst over where the pinned route may sit: as a route
of its own giving the parent's most common answer, or as any one of the parent's routes giving what
that route gave most (a re-run pins one of the parent's keys). A task no number up to the cap can
decide (a 3-round parent with one odd answer: the exact test's floor) gets a proposal instead:
rounds more on the parent's own route (its rotation) beside the pinned ones, if the parent's pattern
holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from functools import lru_cache
from typing import NamedTuple

from analyzer.metrics.attribution import Round
from analyzer.metrics.factor_test import factor_test, selection_adjusted
from analyzer.metrics.route_factors import FACTORS
from analyzer.metrics.stats import RERUN_FDR_Q, ROUNDS_CAP

Shape = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], tuple[str, ...]]
"""A task's (answer pattern, factor patterns, factor names), relabelled by first appearance."""


class TaskPlan(NamedTuple):
    """What one task's re-run needs."""

    task_id: str
    rounds: int | None
    """The fewest agreeing pinned rounds that decide it (None: no number up to the cap does)."""
    parent_rounds: int
    """The parent's answered rounds of the task."""
    more_parent_rounds: int | None = None
    """For a task no pinned rounds decide: rounds more on the parent's own route (beside
    `with_pinned` pinned ones) that would let it decide if the parent's pattern holds; None: none
    up to the cap, or the task can be decided as it is."""
    with_pinned: int | None = None
    """The pinned rounds that go with `more_parent_rounds`."""


class RerunPlan(NamedTuple):
    """A re-run's plan over its tasks."""

    tasks: tuple[TaskPlan, ...]
    """Every tested task (two answers or more in the parent), in the order given."""
    level: float
    """The p each decidable task is planned to reach: `RERUN_FDR_Q` x decidable / tested."""
    rounds: int
    """The rounds the re-run runs: the most any decidable task needs (at least 2); the parent's most
    rounds when none is decidable (a re-run that shows agreement, not one that decides)."""

    def decidable(self) -> list[TaskPlan]:
        """The tasks whose named rounds decide."""
        return [t for t in self.tasks if t.rounds is not None]

    def by_task(self) -> dict[str, int | None]:
        """Task id -> its rounds (None: no number up to the cap decides it)."""
        return {t.task_id: t.rounds for t in self.tasks}

    def parent_route_rounds(self) -> dict[str, int]:
        """Task id -> the rounds proposed on the parent's own route (the tasks that have a proposal)."""
        return {t.task_id: t.more_parent_rounds for t in self.tasks if t.more_parent_rounds is not None}

    def pinned_rounds(self, with_proposals: bool = False) -> dict[str, int]:
        """Task id -> the pinned rounds a re-run runs for it: a decidable task its own fewest that
        decide; with `with_proposals`, a task with a proposal the pinned rounds that go with it; any
        other the plan's `rounds` (its worst case may be pessimistic: the rounds already paid for the
        others may still decide it)."""
        out = {}
        for t in self.tasks:
            named = t.with_pinned if with_proposals and t.more_parent_rounds is not None else None
            out[t.task_id] = t.rounds or named or self.rounds
        return out


def plan_rerun(parent: Mapping[str, Sequence[Round]], ids: Sequence[str], cap: int = ROUNDS_CAP) -> RerunPlan:
    """The plan of a re-run of `ids` from the parent's answered rounds (portable routes, per task).

    Args:
        parent: Task id -> the parent's answered rounds (`attribution.portable_routes`).
        ids: The tasks to re-run; those with fewer than two answers are not tested and not planned.
        cap: The most pinned rounds considered.
    """
    shapes = {str(t): task_shape(parent.get(str(t), [])) for t in ids}
    tested = {t: s for t, s in shapes.items() if s is not None}
    m, r = len(tested), len(tested)
    need: dict[str, int | None] = {}
    while r > 0:
        level = RERUN_FDR_Q * r / m
        need = {t: rounds_to_reach(s, level, cap) for t, s in tested.items()}
        found = sum(n is not None for n in need.values())
        if found == r:
            break
        r = found
    level = RERUN_FDR_Q * max(r, 1) / m if m else RERUN_FDR_Q  # none decidable: as one task that passes
    plans = []
    for task, shape in tested.items():
        rounds = need.get(task) if r else None
        more = None if rounds is not None else parent_rounds_to_reach(shape, level, cap)
        plans.append(TaskPlan(task, rounds, len(shape[0]), *(more or (None, None))))
    known = [p.rounds for p in plans if p.rounds is not None]
    most = max((p.parent_rounds for p in plans), default=2)
    return RerunPlan(tuple(plans), level, max(2, max(known)) if known else max(2, min(most, cap)))


def task_shape(rounds: Sequence[Round]) -> Shape | None:
    """The task's shape as the verdict's test sees its parent rounds (`rerun_verdict._levels`); None
    with fewer than two answers (nothing to test)."""
    if len({r.answer for r in rounds}) < 2:
        return None
    if all(r.factors and r.route is not None for r in rounds):
        levels = [list(col) for col in zip(*(r.factors for r in rounds), strict=True)]
        names: tuple[str, ...] = tuple(FACTORS)
    else:
        levels = [[r.route if r.route is not None else ("unrecorded", i) for i, r in enumerate(rounds)]]
        names = ("route",)
    return _pattern([r.answer for r in rounds]), tuple(_pattern(col) for col in levels), names


def _pattern(values: Sequence[Hashable]) -> tuple[int, ...]:
    seen: dict[Hashable, int] = {}
    return tuple(seen.setdefault(v, len(seen)) for v in values)


def _pinned_cases(shape: Shape) -> list[tuple[tuple[int, ...], int]]:
    """Where the pinned route may sit, and what it gives: (its level per factor, its answer). A new
    route giving the parent's most common answer, or each parent route giving its own most common."""
    answers, levels, _ = shape
    majority = Counter(answers).most_common(1)[0][0]
    cases = [(tuple(-1 for _ in levels), majority)]
    routes: dict[tuple[int, ...], Counter[int]] = {}
    for i, a in enumerate(answers):
        routes.setdefault(tuple(col[i] for col in levels), Counter())[a] += 1
    cases += [(route, given.most_common(1)[0][0]) for route, given in routes.items()]
    return cases


def decided_p(shape: Shape, pinned: int, extra: int = 0) -> float:
    """The verdict's p-value (before BH) if `pinned` agreeing rounds ran, at its worst over the
    pinned route's place (`_pinned_cases`), with `extra` rounds more on the parent's route repeating
    its pattern (those are re-run rounds too)."""
    answers, levels, names = shape
    n = len(answers)
    again = [i % n for i in range(extra)]
    worst = 0.0
    for route, answer in _pinned_cases(shape):
        cols = [
            [*col, *(col[i] for i in again), *[at] * pinned] for col, at in zip(levels, route, strict=True)
        ]
        run = [*[0] * n, *[1] * (extra + pinned)]
        combined = [*answers, *(answers[i] for i in again), *[answer] * pinned]
        test = factor_test(combined, [*cols, run], [*names, "re-run"])
        worst = max(worst, selection_adjusted(test.p_value, combined, n))
    return worst


@lru_cache(maxsize=65536)
def rounds_to_reach(shape: Shape, level: float, cap: int = ROUNDS_CAP, extra: int = 0) -> int | None:
    """The fewest agreeing pinned rounds (2..cap) at which `decided_p` is at most `level`, by
    bisection (more agreeing rounds only strengthen the evidence); None past the cap."""
    if decided_p(shape, cap, extra) > level:
        return None
    low, high = 2, cap
    while low < high:
        mid = (low + high) // 2
        if decided_p(shape, mid, extra) <= level:
            high = mid
        else:
            low = mid + 1
    return high


def parent_rounds_to_reach(shape: Shape, level: float, cap: int = ROUNDS_CAP) -> tuple[int, int] | None:
    """For a task no pinned rounds decide: the rounds more on the parent's own route (its rotation,
    repeating what it gave) and the pinned rounds beside them that reach `level`, fewest in all."""
    best: tuple[int, int] | None = None
    for extra in range(1, cap + 1):
        if best is not None and extra + 2 > sum(best):
            break
        pinned = rounds_to_reach(shape, level, cap, extra)
        if pinned is not None and (best is None or extra + pinned < sum(best)):
            best = (extra, pinned)
    return best


def plan_sentence(task: TaskPlan) -> str:
    """What a task's re-run needs, in words (CLI, Re-run page and verdict reasons alike)."""
    if task.rounds is not None:
        return f"{task.rounds} agreeing pinned rounds decide"
    if task.more_parent_rounds is None:
        return f"no re-run of up to {ROUNDS_CAP} rounds can decide it"
    return (
        f"no number of pinned rounds up to {ROUNDS_CAP} decides it from {task.parent_rounds} parent rounds; "
        f"{task.more_parent_rounds} rounds more on the parent's own route beside {task.with_pinned} pinned "
        "ones could, if the parent's pattern holds"
    )


def plan_summary(plan: RerunPlan) -> str:
    """The plan in one sentence: how many tested tasks its rounds decide, at what level, and which not."""
    if not plan.tasks:
        return "No task to test: none of them gave two answers in the parent."
    sure, m = plan.decidable(), len(plan.tasks)
    if not sure:
        return (
            f"None of the {m} tested tasks can be decided by up to {ROUNDS_CAP} agreeing pinned rounds "
            f"(beside each other, the Benjamini-Hochberg step at {100 * RERUN_FDR_Q:.0f} % asks one alone "
            f"for p <= {plan.level:.3g}); {plan.rounds} rounds show whether the pinned route agrees. "
            f"{_named(plan.tasks)}."
        )
    text = (
        f"{len(sure)} of {m} tested tasks can be decided by agreeing pinned rounds (each must reach "
        f"p <= {plan.level:.3g}, the Benjamini-Hochberg step at {100 * RERUN_FDR_Q:.0f} % with {len(sure)} "
        f"of {m} passing): the planner's rounds, {plan.rounds}"
    )
    rest = [t for t in plan.tasks if t.rounds is None]
    if not rest:
        return text + "."
    return f"{text}. Not decidable in this re-run ({len(rest)}): {_named(rest)}."


def _named(tasks: Sequence[TaskPlan], most: int = 5) -> str:
    """The first `most` tasks with what each needs, and how many more."""
    shown = "; ".join(f"{t.task_id}: {plan_sentence(t)}" for t in tasks[:most])
    return shown + (f"; and {len(tasks) - most} more" if len(tasks) > most else "")
