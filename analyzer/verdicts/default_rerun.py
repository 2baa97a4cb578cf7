"""The default re-run, one plan for the CLI and the Re-run page: which tasks, how many pinned rounds
each, which tasks no pinned rounds can decide and the rounds on the parent's own route that could, and
what it all sends.

`rerunlens rerun LOG` and the page's "Re-run" button both start from `default_rerun`, so a CI job and a
click on the same log run the same tasks for the same rounds and get the same verdicts. The user may
still choose other tasks or one number of rounds for all (`--only`, `--repeat`, the page's choices): the
plan and its cost then come from the same function with those choices.

A named selection at the planner's rounds (the default) sends no round that cannot decide anything: a
task no pinned rounds can decide is left out (with `with_parent_route` it runs its proposal), as is a
task no re-run can decide and one with a single answer in the parent and no error (nothing to decide).
Each left-out task is said, with what would run it. A task with a single answer that errored (or gave
no answer) in the parent runs the parent's own rounds: a verdict needs two answers after the re-run,
and the same rounds as the parent make its errors before and after a like-for-like count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple

import pandas as pd

from analyzer.analysis import Analysis
from analyzer.metrics.stats import ROUNDS_CAP
from analyzer.verdicts.before_after import rerun_plan_of
from analyzer.verdicts.planner import RerunPlan, TaskPlan, plan_sentence, plan_summary
from analyzer.verdicts.rerun_cost import RerunCost, cost_sentence, rerun_cost

Named = Literal["flagged", "inconsistent"]
"""A selection by name, as `rerun --only` takes it."""
DEFAULT_SELECTION: Named = "flagged"
"""The tasks a re-run takes unless told otherwise: inconsistent, drifted or errored."""
BESIDE = "Beside them, the parent's own route"
"""What sends the rounds on the parent's own route, in the cost sentence."""
NOT_TESTED = "fewer than two answers in the parent: shows whether it is consistent on the pinned route"
"""What a task with fewer than two parent answers gets from the re-run."""
NOTHING_TO_DECIDE = "one answer in the parent and no error: nothing to decide"
"""Why a task is left out of the default re-run when it was flagged only for its route."""
ERRORED = "errored in the parent: the parent's own rounds show whether it answers on the pinned route"
"""What a task with fewer than two parent answers that errored gets from the default re-run."""
RUN_BY_ID = "--only with its id runs it"
RUN_BESIDE = "--with-parent-route runs it"
RUN_NONE = "no re-run runs it usefully"


class LeftOut(NamedTuple):
    """A task of the selection the default re-run does not run: why, and what would run it."""

    task_id: str
    why: str
    runs_it: str


class PlannedTask(NamedTuple):
    """One task of a re-run: its pinned rounds and what they can do."""

    task_id: str
    rounds: int
    """The pinned rounds run for it."""
    decides: bool | None
    """True: its rounds (with those on the parent's own route) decide it if they agree, as planned;
    False: they do not (none up to the cap could, or fewer were chosen); None: not tested (fewer than
    two answers in the parent)."""
    needs: str
    """What it needs, in words (`planner.plan_sentence`, or `NOT_TESTED`)."""
    parent_route_rounds: int | None = None
    """Rounds on the parent's own route beside the pinned ones (with the parent's route only)."""


class DefaultRerun(NamedTuple):
    """A re-run's plan before it runs: tasks, rounds, what cannot be decided, and the cost."""

    tasks: tuple[PlannedTask, ...]
    plan: RerunPlan
    """The planner's plan over the tasks (its level, its decidable tasks)."""
    cost: RerunCost
    """The pinned rounds' requests and expected tokens."""
    beside_cost: RerunCost | None
    """The rounds on the parent's own route, when asked for and proposed."""
    chosen_rounds: int | None = None
    """One number of rounds for every task, when the user gave it (else the planner's per task)."""
    left_out: tuple[LeftOut, ...] = ()
    """The selection's tasks this re-run does not run (a named selection at the planner's rounds)."""

    def rounds(self) -> dict[str, int]:
        """Task id -> its pinned rounds (the tasks it runs)."""
        return {t.task_id: t.rounds for t in self.tasks}

    def ids(self) -> list[str]:
        """The tasks it runs, in the selection's order."""
        return [t.task_id for t in self.tasks]

    def parent_route_rounds(self) -> dict[str, int]:
        """Task id -> its rounds on the parent's own route (only the tasks that run some)."""
        return {t.task_id: t.parent_route_rounds for t in self.tasks if t.parent_route_rounds is not None}

    def proposes_parent_route(self) -> bool:
        """Whether rounds on the parent's own route would decide a task (run or left out for it)."""
        return bool(self.plan.parent_route_rounds()) or any(t.runs_it == RUN_BESIDE for t in self.left_out)

    def undecidable(self) -> list[PlannedTask]:
        """The tested tasks this re-run's rounds cannot decide (each says what would)."""
        return [t for t in self.tasks if t.decides is False]

    @property
    def requests(self) -> int:
        """Every request the re-run sends, the parent's own route's included."""
        return self.cost.requests + (self.beside_cost.requests if self.beside_cost else 0)

    def rounds_text(self) -> str:
        """`5`, or `2 to 27` when the tasks run different pinned rounds (a button's label)."""
        counts = [t.rounds for t in self.tasks] or [self.chosen_rounds or self.plan.rounds]
        return str(max(counts)) if min(counts) == max(counts) else f"{min(counts)} to {max(counts)}"

    def plan_sentences(self) -> list[str]:
        """The plan (`planner.plan_summary`), and a warning when one number of rounds chosen for all is
        fewer than some task needs."""
        out = [plan_summary(self.plan)]
        if self.chosen_rounds is not None and self.chosen_rounds < self.plan.rounds:
            out.append(f"This re-run runs {self.chosen_rounds}: a task that needs more stays inconclusive.")
        return out + left_out_sentences(self.left_out)

    def cost_sentences(self) -> list[str]:
        """The pinned rounds' cost, and that of the rounds on the parent's own route beside them."""
        beside = [cost_sentence(self.beside_cost, BESIDE)] if self.beside_cost is not None else []
        return [cost_sentence(self.cost), *beside]

    def sentences(self) -> list[str]:
        """The plan and its cost (the CLI on stderr, `--dry-run` and the Re-run page alike)."""
        return [*self.plan_sentences(), *self.cost_sentences()]

    def lines(self) -> list[str]:
        """The sentences, then one line per task: its pinned rounds (and those on the parent's own
        route) and what they can do, for a terminal (`rerun --dry-run`)."""
        width = max((len(t.task_id) for t in self.tasks), default=4)
        rows = [f"{'task':<{width}}  pinned  parent route  needs"]
        for t in self.tasks:
            beside = "" if t.parent_route_rounds is None else str(t.parent_route_rounds)
            rows.append(f"{t.task_id:<{width}}  {t.rounds:>6}  {beside:>12}  {t.needs}")
        rows += [
            f"{t.task_id:<{width}}  {'-':>6}  {'':>12}  not run: {t.why}; {t.runs_it}" for t in self.left_out
        ]
        return [*self.sentences(), "", *rows]

    def to_json(self) -> dict[str, Any]:
        """The plan as `rerun --dry-run --json` prints it."""
        return {
            "tasks": [t._asdict() for t in self.tasks],
            "left_out": [t._asdict() for t in self.left_out],
            "rounds_chosen": self.chosen_rounds,
            "level": self.plan.level,
            "requests": self.requests,
            "tokens": _sum_known(self.cost.tokens, self.beside_cost.tokens if self.beside_cost else None),
            "cost": self.cost._asdict(),
            "parent_route_cost": self.beside_cost._asdict() if self.beside_cost else None,
            "sentences": self.sentences(),
        }


def selected_ids(tasks: pd.DataFrame, which: str) -> list[str]:
    """The ids of an analysis's `flagged` (inconsistent, drifted or errored) tasks, else of its
    `inconsistent` ones."""
    if which == "flagged":
        mask = tasks["flagged"].astype(bool)
    else:
        mask = tasks["consistent"].eq(False).fillna(False).astype(bool)
    return [str(t) for t in tasks.loc[mask, "task_id"]]


def default_rerun(
    parent: Analysis,
    ids: Sequence[str],
    rounds: int | Mapping[str, int] | None = None,
    with_parent_route: bool = False,
    cap: int = ROUNDS_CAP,
    leave_out: bool = False,
) -> DefaultRerun:
    """The re-run of `ids` from the parent's analysis: by default each task runs the fewest agreeing
    pinned rounds that decide it (`planner`), a task no pinned rounds decide the plan's rounds (or,
    `with_parent_route`, the pinned rounds that go with its proposal on the parent's own route), and a
    task not tested the plan's rounds. `rounds` (one number, or task id -> rounds) overrides them.

    `leave_out` (a named selection, not one number of rounds for all): the tasks these rounds cannot
    decide are not run but listed in `left_out` (`runnable`), and a task not tested that errored in
    the parent runs the parent's own rounds."""
    wanted = list(dict.fromkeys(str(t) for t in ids))
    left: list[LeftOut] = []
    if leave_out and not isinstance(rounds, int):
        wanted, plan, left = runnable(parent, wanted, with_parent_route, cap)
    else:
        plan = rerun_plan_of(parent, wanted, cap)
    own = _parent_rounds(parent, wanted, cap) if leave_out and not isinstance(rounds, int) else {}
    planner = {**{t: own.get(t, plan.rounds) for t in wanted}, **plan.pinned_rounds(with_parent_route)}
    if isinstance(rounds, int):
        per_task = dict.fromkeys(wanted, rounds)
    else:
        per_task = {t: (rounds or {}).get(t, planner[t]) for t in wanted}
    by_id = {t.task_id: t for t in plan.tasks}
    beside = plan.parent_route_rounds() if with_parent_route else {}
    tasks = tuple(_planned(t, per_task[t], by_id.get(t), beside.get(t), t in own) for t in wanted)
    more = [t for t in wanted if t in beside]
    extra = rerun_cost(parent, more, beside) if more else None
    chosen = rounds if isinstance(rounds, int) else None
    return DefaultRerun(tasks, plan, rerun_cost(parent, wanted, per_task), extra, chosen, tuple(left))


def runnable(
    parent: Analysis, ids: Sequence[str], with_parent_route: bool = False, cap: int = ROUNDS_CAP
) -> tuple[list[str], RerunPlan, list[LeftOut]]:
    """The tasks of `ids` whose rounds can decide something, their plan, and the others (in order).

    Left out: a task with one answer in the parent and no error (nothing to decide), one no re-run
    can decide, and (without `with_parent_route`) one no pinned rounds can decide. The plan is made
    again over the tasks kept, since the Benjamini-Hochberg step each task faces counts the re-run's
    tested tasks: fewer of them ask less of each, so a kept task stays decidable."""
    troubled = _errored(parent)
    kept = [str(t) for t in ids]
    left: dict[str, LeftOut] = {}
    while True:
        plan = rerun_plan_of(parent, kept, cap)
        tested = {t.task_id: t for t in plan.tasks}
        out = {t: _left_out(t, tested.get(t), t in troubled, with_parent_route) for t in kept}
        dropped = {t: why for t, why in out.items() if why is not None}
        if not dropped:
            return kept, plan, [left[str(t)] for t in ids if str(t) in left]
        left.update(dropped)
        kept = [t for t in kept if t not in dropped]


def _left_out(
    task_id: str, planned: TaskPlan | None, errored: bool, with_parent_route: bool
) -> LeftOut | None:
    """Why the default re-run leaves a task out and what would run it; None when it runs."""
    if planned is None:
        return None if errored else LeftOut(task_id, NOTHING_TO_DECIDE, RUN_BY_ID)
    if planned.rounds is not None or (with_parent_route and planned.more_parent_rounds is not None):
        return None
    runs_it = RUN_NONE if planned.more_parent_rounds is None else RUN_BESIDE
    return LeftOut(task_id, plan_sentence(planned), runs_it)


def left_out_sentences(left: Sequence[LeftOut]) -> list[str]:
    """What the re-run leaves out, grouped by what would run it (the CLI and the page alike)."""
    out = []
    for runs_it, what in (
        (RUN_BY_ID, "`--only` with their ids runs them (or `--repeat N`, every task N rounds)"),
        (RUN_BESIDE, "`--with-parent-route` runs them with their proposals"),
        (RUN_NONE, "nothing runs them usefully"),
    ):
        named = [t for t in left if t.runs_it == runs_it]
        if named:
            why = {RUN_BY_ID: NOTHING_TO_DECIDE, RUN_BESIDE: "no pinned rounds can decide them"}.get(
                runs_it, "no re-run can decide them"
            )
            shown = ", ".join(t.task_id for t in named)
            out.append(f"Not run ({len(named)}, {why}): {shown}; {what}.")
    return out


def _errored(parent: Analysis) -> set[str]:
    """The tasks with an error or a round without an answer in the parent."""
    tasks = parent.tasks
    bad = tasks["n_errors"].fillna(0).astype(int).gt(0) | tasks["n_no_answer"].fillna(0).astype(int).gt(0)
    return {str(t) for t in tasks.loc[bad, "task_id"]}


def _parent_rounds(parent: Analysis, ids: Sequence[str], cap: int) -> dict[str, int]:
    """The parent's own rounds (2 to `cap`) of each task of `ids` that errored (a tested one runs the
    planner's rounds instead)."""
    tasks = parent.tasks.assign(task_id=parent.tasks["task_id"].astype(str)).set_index("task_id")
    troubled = _errored(parent)
    wanted = [t for t in ids if t in troubled and t in tasks.index]
    return {t: max(2, min(int(tasks.at[t, "n_results"]), cap)) for t in wanted}


def _planned(
    task_id: str, rounds: int, planned: TaskPlan | None, beside: int | None, errored: bool = False
) -> PlannedTask:
    if planned is None:
        return PlannedTask(task_id, rounds, None, ERRORED if errored else NOT_TESTED, beside)
    if planned.rounds is not None:
        decides = rounds >= planned.rounds
    else:
        decides = beside is not None and planned.with_pinned is not None and rounds >= planned.with_pinned
    return PlannedTask(task_id, rounds, decides, plan_sentence(planned), beside)


def _sum_known(*values: int | None) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None
