"""A trajectory as turns: calls inside their assistant message, empty messages gone, one numbering."""

from __future__ import annotations

from analyzer.log.model import MessageStep, ToolCallStep
from analyzer.report.trajectory_view import differing_round, first_difference, from_call, turns


def msg(role: str, content: str | None = None) -> MessageStep:
    return MessageStep(type="message", role=role, content=content)


def call(name: str, **arguments: object) -> ToolCallStep:
    return ToolCallStep(type="tool_call", name=name, arguments=arguments)


ROUND_1 = [
    msg("user", "refund the lamp"),
    msg("assistant"),  # empty: only its calls matter
    call("find", email="a@b.c"),
    msg("tool", "C-1"),
    msg("assistant", "Looking up both orders."),
    call("get", id=1),
    call("get", id=2),
    msg("tool", "two orders"),
    msg("assistant", "$24.50"),
]
ROUND_2 = [*ROUND_1[:5], call("get", id=2), msg("tool", "one order"), msg("assistant", "$24.50")]


def test_calls_sit_in_their_assistant_message_and_empty_messages_are_gone() -> None:
    shown = turns(ROUND_1)
    assert [(t.role, t.text, [c.number for c in t.calls]) for t in shown] == [
        ("user", "refund the lamp", []),
        ("assistant", "", [1]),
        ("tool", "C-1", []),
        ("assistant", "Looking up both orders.", [2, 3]),
        ("tool", "two orders", []),
        ("assistant", "$24.50", []),
    ]
    assert shown[3].calls[1].name == "get" and '"id": 2' in shown[3].calls[1].arguments
    assert len(turns([msg("assistant"), msg("assistant", " ")])) == 0


def test_rounds_part_at_the_first_differing_call_counted_from_one() -> None:
    assert first_difference(ROUND_1, ROUND_2) == 2  # get(1) against get(2)
    assert first_difference(ROUND_1, ROUND_1) is None
    assert first_difference(ROUND_1, ROUND_1[:6]) == 3  # one round stops: it parts at the missing call
    assert differing_round({1: ROUND_1, 2: ROUND_1, 3: ROUND_2}, 1) == 3
    start = from_call(turns(ROUND_2), 2)
    assert [t.role for t in start] == ["tool", "assistant", "tool", "assistant"]  # the result just seen first
    assert from_call(turns(ROUND_2), None) == turns(ROUND_2)
