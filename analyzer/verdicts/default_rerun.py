"""The default re-run, one plan for the CLI and the Re-run page: which tasks, how many pinned rounds
each, which tasks no pinned rounds can decide and the rounds on the parent's own route that could, and
what it all sends.

`rerunlens rerun LOG` and the page's "Re-run" button both start from `default_rerun`, so a CI job and a
click on the same log run the same tasks for the same rounds and get the same verdicts. The user may
still choose other tasks or one number of rounds for all (`--only`, `--repeat`, the page's choices): the
plan and its cost then come from the same function with those choices.
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

    def rounds(self) -> dict[str, int]:
        """Task id -> its pinned rounds."""
        return {t.task_id: t.rounds for t in self.tasks}

    def parent_route_rounds(self) -> dict[str, int]:
        """Task id -> its rounds on the parent's own route (only the tasks that run some)."""
        return {t.task_id: t.parent_route_rounds for t in self.tasks if t.parent_route_rounds is not None}

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
        return out

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
        return [*self.sentences(), "", *rows]

    def to_json(self) -> dict[str, Any]:
        """The plan as `rerun --dry-run --json` prints it."""
        return {
            "tasks": [t._asdict() for t in self.tasks],
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
) -> DefaultRerun:
    """The re-run of `ids` from the parent's analysis: by default each task runs the fewest agreeing
    pinned rounds that decide it (`planner`), a task no pinned rounds decide the plan's rounds (or,
    `with_parent_route`, the pinned rounds that go with its proposal on the parent's own route), and a
    task not tested the plan's rounds. `rounds` (one number, or task id -> rounds) overrides them."""
    wanted = list(dict.fromkeys(str(t) for t in ids))
    plan = rerun_plan_of(parent, wanted, cap)
    planner = {**{t: plan.rounds for t in wanted}, **plan.pinned_rounds(with_parent_route)}
    if isinstance(rounds, int):
        per_task = dict.fromkeys(wanted, rounds)
    else:
        per_task = {t: (rounds or {}).get(t, planner[t]) for t in wanted}
    by_id = {t.task_id: t for t in plan.tasks}
    beside = plan.parent_route_rounds() if with_parent_route else {}
    tasks = tuple(_planned(t, per_task[t], by_id.get(t), beside.get(t)) for t in wanted)
    more = [t for t in wanted if t in beside]
    extra = rerun_cost(parent, more, beside) if more else None
    chosen = rounds if isinstance(rounds, int) else None
    return DefaultRerun(tasks, plan, rerun_cost(parent, wanted, per_task), extra, chosen)


def _planned(task_id: str, rounds: int, planned: TaskPlan | None, beside: int | None) -> PlannedTask:
    if planned is None:
        return PlannedTask(task_id, rounds, None, NOT_TESTED, beside)
    if planned.rounds is not None:
        decides = rounds >= planned.rounds
    else:
        decides = beside is not None and planned.with_pinned is not None and rounds >= planned.with_pinned
    return PlannedTask(task_id, rounds, decides, plan_sentence(planned), beside)


def _sum_known(*values: int | None) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None
