"""The Tasks page's trajectories: two chosen rounds side by side, from the tool call where they
first part (or from the start), each assistant message with its tool calls inside it.

Log text (messages, tool names, arguments, results) is shown only with `st.text`, never as markdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from analyzer.report.trajectory_view import Turn, differing_round, first_difference, from_call, turns
from app import data
from app.widgets import lazy

SECTION = "tasks.trajectories"
ROLE_NAMES = {"assistant": "assistant", "tool": "tool result", "user": "user", "system": "system"}


def render(group: data.Group, task_id: str) -> None:
    """Pick two rounds; draw them side by side from their first difference."""
    by_round = data.trajectories(group.loaded.log, task_id)
    if not by_round:
        return
    # Built once opened (the URL keeps it open): some twenty boxes per round are the page's heaviest
    # drawing, below the fold.
    box = lazy.section("Trajectories, two rounds side by side", SECTION, icon=":material/view_column:")
    if box is not None:
        with box:
            _rounds(by_round, task_id)


def _rounds(by_round: dict[int, Any], task_id: str) -> None:
    rounds = list(by_round)
    if len(rounds) == 1:
        _column(turns(by_round[rounds[0]]), rounds[0])
        return
    other = differing_round(by_round, rounds[0]) or rounds[1]
    left, right, toggle = st.columns([1, 1, 1.2])
    a = left.selectbox("Round", rounds, key=f"tasks.traj_a.{task_id}", format_func=_round)
    b = right.selectbox(
        "Beside round", rounds, index=rounds.index(other), key=f"tasks.traj_b.{task_id}", format_func=_round
    )
    part = first_difference(by_round[a], by_round[b])
    from_part = toggle.toggle("Start where they part", value=True, key="tasks.traj_from_part")
    st.caption(_summary(a, b, part))
    start = part if from_part else None
    cols = st.columns(2)
    for col, rnd in zip(cols, (a, b), strict=True):
        with col:
            _column(from_call(turns(by_round[rnd]), start), rnd)


def _round(rnd: int) -> str:
    return f"round {rnd}"


def _summary(a: int, b: int, part: int | None) -> str:
    if a == b:
        return f"Round {a} beside itself: pick another round to compare."
    if part is None:
        return f"Rounds {a} and {b} made the same tool calls, in the same order."
    same = f"the same calls up to tool call {part - 1}, " if part > 1 else ""
    return f"Rounds {a} and {b} made {same}then part at tool call {part}; the boxes start just before it."


def _column(shown: Sequence[Turn], rnd: int) -> None:
    st.markdown(f"**Round {rnd}**")
    for turn in shown:
        _turn(turn)


def _turn(turn: Turn) -> None:
    with st.container(border=True):
        head = ROLE_NAMES.get(turn.role, turn.role)
        if turn.calls:
            numbers = [c.number for c in turn.calls]
            head += (
                f" · tool call {numbers[0]}"
                if len(numbers) == 1
                else f" · tool calls {numbers[0]}-{numbers[-1]}"
            )
        st.caption(head)
        if turn.text:
            st.text(turn.text)
        for call in turn.calls:
            st.text(f"{call.number}. {call.name}({_one_line(call.arguments)})")


def _one_line(arguments: Any) -> str:
    text = " ".join(str(arguments).split())
    return text[1:-1].strip() if text.startswith("{") and text.endswith("}") else text
