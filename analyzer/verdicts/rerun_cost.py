"""What a re-run will cost, said before it runs: requests and expected tokens.

Expected tokens are the parent's own: per task, its mean tokens per result times the rounds the re-run
runs for it (a re-run sends the same prompts on the same model). A task whose parent recorded no tokens adds
requests but no tokens, and the sentence says how many such tasks there are. No price table is kept,
so no cost in money is given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import analyzer.numbers as numbers
from analyzer.analysis import Analysis


class RerunCost(NamedTuple):
    """A re-run's size before it runs."""

    tasks: int
    """Tasks re-run."""
    rounds: int
    """Rounds per task (the most any task runs, when they differ)."""
    requests: int
    """The sum of every task's rounds: one request per result (a retry after a 429 or a timeout adds more)."""
    tokens: int | None
    """Expected tokens (the parent's mean per result x rounds, over the tasks that recorded some);
    None when none of them did."""
    unknown_tasks: int
    """Tasks whose parent recorded no tokens (they count in `requests`, not in `tokens`)."""
    parent_tokens: int | None
    """The parent's own tokens over all its tasks, for scale; None when it recorded none."""
    fewest_rounds: int | None = None
    """The fewest rounds any task runs, when the planner names rounds per task (else as `rounds`)."""


def rerun_cost(parent: Analysis, ids: Sequence[str], rounds: int | Mapping[str, int]) -> RerunCost:
    """The requests and expected tokens of re-running `ids` for `rounds` rounds each, or per task
    (task id -> its rounds, as a planned re-run runs them)."""
    wanted = list(dict.fromkeys(str(t) for t in ids))
    per_task = {t: rounds if isinstance(rounds, int) else rounds[t] for t in wanted}
    tasks = parent.tasks.assign(task_id=parent.tasks["task_id"].astype(str))
    tasks = tasks[tasks["task_id"].isin(per_task)]
    mean = tasks.set_index("task_id")["tokens_mean"].astype("Float64").dropna()
    tokens = round(sum(float(m) * per_task[t] for t, m in mean.items())) if len(mean) else None
    total = parent.tasks["tokens_total"].astype("Int64")
    parent_tokens = int(total.sum()) if total.notna().any() else None
    most, fewest = max(per_task.values(), default=0), min(per_task.values(), default=0)
    requests = sum(per_task.values())
    return RerunCost(len(wanted), most, requests, tokens, len(wanted) - len(mean), parent_tokens, fewest)


def cost_sentence(cost: RerunCost, what: str = "This re-run") -> str:
    """The cost in one sentence, for the CLI and the Re-run page alike; `what` names what sends it."""
    if cost.fewest_rounds is None or cost.fewest_rounds == cost.rounds:
        each = f" x {numbers.counted(cost.rounds, 'round')}"
    else:
        each = f" at {cost.fewest_rounds} to {cost.rounds} rounds each (the planner's per task)"
    head = f"{numbers.counted(cost.tasks, 'task')}{each} = {cost.requests:,} requests"
    if cost.tokens is None:
        tokens = "expected tokens not known (the parent recorded none for these tasks)"
    else:
        scale = f"; the whole parent used {cost.parent_tokens:,}" if cost.parent_tokens else ""
        none = numbers.counted(cost.unknown_tasks, "task")
        missing = f", not counting {none} with none recorded" if cost.unknown_tasks else ""
        tokens = f"about {cost.tokens:,} tokens (the parent's tokens per result x rounds{missing}{scale})"
    return f"{what} sends {head}, {tokens}; no price is known, so no cost in money."
