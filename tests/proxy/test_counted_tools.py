"""The proxy keeps a tool list's count by its content across turns: another list is counted anew, the
same list sent again (even spelt with other spacing) gives the same count, and a list the rule does
not cover stays not counted on every turn."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

from analyzer.metrics.prompt_rule import ToolList, tools_tokens
from analyzer.metrics.token_count import RunningCount, count_messages
from analyzer.proxy.counting import attempt_counts
from analyzer.proxy.facts import ResponseFacts, request_facts

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "A city."}},
        },
    },
}
MESSAGES = [{"role": "user", "content": "Weather in Lisbon, please, and what to wear for it."}]


def _counted(body: dict[str, Any], indent: int | None = None) -> dict[str, Any]:
    asked = request_facts("/v1/chat/completions", json.dumps(body, indent=indent).encode())
    answered = ResponseFacts(counting=RunningCount("o200k_base"), parts=["Sunny."])
    return asyncio.run(attempt_counts(asked, answered))


def _tools(*tools: dict[str, Any]) -> int:
    tokens = tools_tokens(ToolList(list(tools), []), "o200k_base")
    assert isinstance(tokens, int)
    return tokens


def test_each_tool_list_is_counted_by_its_own_content_every_turn() -> None:
    longer = copy.deepcopy(WEATHER)
    longer["function"]["description"] = "Current weather for a city, with the wind and the humidity."
    plain = count_messages(MESSAGES)
    for _turn in range(2):
        for tools in ([WEATHER], [longer], [WEATHER, longer]):
            got = _counted({"model": "gpt-4o", "messages": MESSAGES, "tools": tools})
            assert got["counted"]["prompt_tokens"] == plain + _tools(*tools) and got["not_counted"] is None
    spaced = _counted({"model": "gpt-4o", "messages": MESSAGES, "tools": [WEATHER]}, indent=3)
    assert spaced["counted"]["prompt_tokens"] == plain + _tools(WEATHER)


def test_a_tool_list_outside_the_rule_is_not_counted_on_any_turn() -> None:
    nested = copy.deepcopy(WEATHER)
    nested["function"]["parameters"]["properties"]["where"] = {"type": "object", "properties": {}}
    for _turn in range(2):
        got = _counted({"model": "gpt-4o", "messages": MESSAGES, "tools": [nested]})
        assert got["counted"]["prompt_tokens"] is None and got["counted"]["completion_tokens"] == 2
        assert got["not_counted"] == (
            "the prompt, not counted: parameter `where` of `get_weather` has type `object` "
            "(an object or a union: nested, no rule)"
        )
