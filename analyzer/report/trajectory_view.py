"""A round's trajectory as a person reads it, and two rounds side by side from where they part.

- Turns: an assistant message and the tool calls that follow it are one turn (the calls drawn
  inside it); an assistant message with no text and no call is left out; tool results, user and
  system messages are turns of their own.
- One numbering: tool calls are counted from 1 (`tool call 1` is the analyzer's step 0), the same
  on the divergence tree, the histogram and here.
- Two rounds part at the first tool call where their calls (name and canonical arguments) differ,
  or where one has a call the other has not.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from analyzer.log.call_tokens import call_token
from analyzer.log.redaction import shown_text


class Call(BaseModel):
    """One tool call inside a turn."""

    number: int
    """1-based, counted over the round's tool calls."""
    name: str
    arguments: str
    """Pretty JSON, secrets masked."""


class Turn(BaseModel):
    """One box of the trajectory."""

    role: str
    """system, user, assistant or tool."""
    text: str
    """The message text, secrets masked ('' when the message had none)."""
    calls: list[Call] = []
    first_call: int | None = None
    """The number of the first tool call at or after this turn (to start a view there)."""


def turns(steps: Sequence[Any]) -> list[Turn]:
    """The round's steps as turns (see the module docstring)."""
    out: list[Turn] = []
    number = 0
    for step in steps:
        if step.type == "tool_call":
            number += 1
            call = Call(number=number, name=shown_text(step.name), arguments=_arguments(step.arguments))
            if out and out[-1].role == "assistant":  # the calls of the message just before
                out[-1].calls.append(call)
                continue
            out.append(Turn(role="assistant", text="", calls=[call]))
            continue
        out.append(Turn(role=step.role, text=shown_text(step.content) or ""))
    kept = [t for t in out if t.text.strip() or t.calls]
    nxt = number + 1
    for turn in reversed(kept):  # each turn knows the first call at or after it
        if turn.calls:
            nxt = turn.calls[0].number
        turn.first_call = nxt
    return kept


def _arguments(arguments: Any) -> str:
    return shown_text(json.dumps(arguments, indent=2, ensure_ascii=False, default=str)) or ""


def call_sequence(steps: Sequence[Any]) -> list[str]:
    """The round's tool calls as comparable tokens, in order."""
    return [call_token(s.name, s.arguments) for s in steps if s.type == "tool_call"]


def first_difference(a: Sequence[Any], b: Sequence[Any]) -> int | None:
    """The 1-based number of the first tool call where rounds `a` and `b` differ; None when they
    made the same calls."""
    left, right = call_sequence(a), call_sequence(b)
    for i, (x, y) in enumerate(zip(left, right, strict=False), start=1):
        if x != y:
            return i
    return None if len(left) == len(right) else min(len(left), len(right)) + 1


def from_call(all_turns: list[Turn], number: int | None) -> list[Turn]:
    """The turns from the one holding tool call `number` on (the turn just before it too, for what
    the agent had just seen); every turn when `number` is None."""
    if number is None:
        return all_turns
    start = next((i for i, t in enumerate(all_turns) if t.calls and t.calls[-1].number >= number), None)
    if start is None:
        start = len(all_turns) - 1
    return all_turns[max(0, start - 1) :]


def differing_round(rounds: Mapping[int, Sequence[Any]], first: int) -> int | None:
    """The first round whose calls differ from round `first`'s (a default to set beside it)."""
    for rnd, steps in rounds.items():
        if rnd != first and first_difference(rounds[first], steps) is not None:
            return rnd
    return None
