"""Where one task's rounds part ways, laid out for reading: the divergence tree and the rounds side by
side at a step.

The tree merges rounds on shared call prefixes: a node is one call at one step, reached by the rounds
that made the same calls up to it; an `(end)` node marks where rounds stopped calling tools. The
layout is a subway map: x is the step, each branch gets its own lane, the branch most rounds took
stays on the top lane, so a task whose rounds agree is one straight line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from analyzer.log.model import MessageStep, RunLog, ToolCallStep
from analyzer.log.redaction import shown_text
from analyzer.metrics.trajectories import END_LABEL, call_token, short_label

__all__ = ["END_LABEL", "divergence_tree", "rounds_at_step"]

RESULT_CHARS = 400
"""Tool results are shortened to this many characters in the side-by-side table."""


@dataclass
class _Node:
    step: int
    call: str
    name: str
    label: str
    parent: int
    rounds: list[int] = field(default_factory=list)
    children: list[int] = field(default_factory=list)


def divergence_tree(calls: pd.DataFrame, sequences: pd.DataFrame, task_id: str) -> pd.DataFrame:
    """The task's rounds merged on shared call prefixes, with a lane for every branch.

    Args:
        calls: `call_frame`'s calls (task_id, round, step, name, call).
        sequences: `call_frame`'s sequences (task_id, round, n_calls).
        task_id: The task.

    Returns:
        One row per node: node, parent (-1 for the first step), step, call, name, label (short
        call), rounds (list),
        n_rounds, lane (0 = top), branch (True where the parent has several children).
    """
    mine = calls[calls["task_id"] == task_id]
    by_round = {rnd: g for rnd, g in mine.groupby("round", sort=True)}
    nodes: list[_Node] = []
    index: dict[tuple[int, str], int] = {}  # (parent, call) -> node
    for rnd in sorted(sequences.loc[sequences["task_id"] == task_id, "round"]):
        parent = -1
        g = by_round.get(rnd)
        walk = [] if g is None else list(zip(g["call"], g["name"], strict=True))
        for step, (call, name) in enumerate([*walk, (END_LABEL, END_LABEL)]):
            key = (parent, call)
            if key not in index:
                index[key] = len(nodes)
                nodes.append(_Node(step, call, name, _label(call, name), parent))
                if parent >= 0:
                    nodes[parent].children.append(index[key])
            node = index[key]
            nodes[node].rounds.append(int(rnd))
            parent = node
    lanes = _lanes(nodes)
    return pd.DataFrame(
        {
            "node": range(len(nodes)),
            "parent": [n.parent for n in nodes],
            "step": [n.step for n in nodes],
            "call": [shown_text(n.call) for n in nodes],  # shown on hover: no key in it
            "name": [shown_text(n.name) for n in nodes],
            "label": [shown_text(n.label) for n in nodes],
            "rounds": [n.rounds for n in nodes],
            "n_rounds": [len(n.rounds) for n in nodes],
            "lane": lanes,
            "branch": [n.parent >= 0 and len(nodes[n.parent].children) > 1 for n in nodes],
        }
    )


def _label(call: str, name: str) -> str:
    """The short chart label of a call token (`name {canonical arguments}`)."""
    if name == END_LABEL:
        return END_LABEL
    return short_label(name, json.loads(call[len(name) + 1 :]))


def _lanes(nodes: list[_Node]) -> list[int]:
    """Lane of every node: a node stays on the lane of its most-travelled child; other children
    open new lanes below, in depth-first order (iterative, so 50-step chains need no recursion)."""
    lanes = [0] * len(nodes)
    next_lane = 0
    roots = [i for i, n in enumerate(nodes) if n.parent < 0]
    stack: list[tuple[int, int | None]] = [(r, None) for r in reversed(_by_traffic(nodes, roots))]
    while stack:
        node, lane = stack.pop()
        if lane is None:
            lane, next_lane = next_lane, next_lane + 1
        lanes[node] = lane
        kids = _by_traffic(nodes, nodes[node].children)
        stack.extend((k, None) for k in reversed(kids[1:]))
        if kids:
            stack.append((kids[0], lane))
    return lanes


def _by_traffic(nodes: list[_Node], ids: list[int]) -> list[int]:
    """Most rounds first; ties keep the order of the first round that went there."""
    return sorted(ids, key=lambda i: (-len(nodes[i].rounds), min(nodes[i].rounds)))


def rounds_at_step(log: RunLog, task_id: str, step: int) -> pd.DataFrame:
    """What every round of the task did at tool-call `step`, with what it had seen just before.

    Returns:
        One row per round that recorded a trajectory: round, call (the call at `step`, or `(end)`),
        previous_call (at `step - 1`), previous_result (the last tool result before `step`,
        shortened), answer.
    """
    rows: list[dict[str, Any]] = []
    for rnd, result in log.results():
        if str(result.task_id) != task_id or result.trajectory is None:
            continue
        k, call, previous, seen = 0, END_LABEL, None, None
        for item in result.trajectory:
            if isinstance(item, ToolCallStep):
                if k == step:
                    call = call_token(item.name, item.arguments)
                    break
                previous = call_token(item.name, item.arguments)
                k += 1
            elif isinstance(item, MessageStep) and item.role == "tool":
                seen = item.content
        rows.append(
            {
                "round": rnd,
                "call": shown_text(call),
                "previous_call": shown_text(previous),
                "previous_result": None if seen is None else shown_text(_short(seen)),
                "answer": shown_text(result.answer),
            }
        )
    return pd.DataFrame(rows, columns=["round", "call", "previous_call", "previous_result", "answer"])


def _short(text: str) -> str:
    return text if len(text) <= RESULT_CHARS else text[:RESULT_CHARS] + " …"
