"""A request's prompt by the cookbook's rules, tool definitions included, or "not counted" with the
reason: never a count that is silently too low."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from analyzer.metrics.exchange_count import count_exchange
from analyzer.metrics.prompt_rule import (
    PromptParts,
    ToolList,
    Uncovered,
    chat_tokens,
    count_prompt,
    responses_prompt,
    tools_tokens,
)
from analyzer.metrics.token_count import CL100K, O200K, count_messages, count_text

# The notebook's own example (openai-cookbook, examples/How_to_count_tokens_with_tiktoken.ipynb,
# section 7, commit c81359cdc6744f001e40c08a192604c5113fdab3, MIT licence), with the prompt_tokens the
# OpenAI API reported for it there: 101 on gpt-4o and gpt-4o-mini, 105 on gpt-4 and gpt-3.5-turbo.
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {
                    "type": "string",
                    "description": "The unit of temperature to return",
                    "enum": ["celsius", "fahrenheit"],
                },
            },
            "required": ["location"],
        },
    },
}
MESSAGES = [
    {
        "role": "system",
        "content": "You are a helpful assistant that can answer to questions about the weather.",
    },
    {"role": "user", "content": "What's the weather like in San Francisco?"},
]


def _count(body: dict[str, Any], encoding: str = O200K) -> int:
    tokens = chat_tokens(body, encoding)
    assert isinstance(tokens, int), tokens
    return tokens


def _why(body: dict[str, Any]) -> str:
    tokens = chat_tokens(body, O200K)
    assert isinstance(tokens, Uncovered)
    return tokens.reason


def count_tools(functions: list[dict[str, Any]], encoding: str) -> int:
    tokens = tools_tokens(ToolList([], functions), encoding)
    assert isinstance(tokens, int), tokens
    return tokens


@pytest.mark.parametrize(
    ("model", "encoding", "api_reported"), [("gpt-4o", O200K, 101), ("gpt-4", CL100K, 105)]
)
def test_the_cookbooks_tool_example_counts_what_the_api_reported_there(
    model: str, encoding: str, api_reported: int
) -> None:
    body = {"model": model, "messages": MESSAGES, "tools": [WEATHER]}
    assert _count(body, encoding) == api_reported
    assert _count({"model": model, "messages": MESSAGES}, encoding) == count_messages(MESSAGES, encoding)


def test_legacy_functions_count_as_their_tools_and_one_trailing_full_stop_is_dropped() -> None:
    assert _count({"messages": MESSAGES, "functions": [WEATHER["function"]]}) == _count(
        {"messages": MESSAGES, "tools": [WEATHER]}
    )
    dotted = copy.deepcopy(WEATHER)
    dotted["function"]["description"] += "."
    assert count_tools([dotted["function"]], O200K) == count_tools([WEATHER["function"]], O200K)
    two = count_tools([WEATHER["function"], WEATHER["function"]], O200K)
    one = count_tools([WEATHER["function"]], O200K)
    assert two == 2 * one - 12  # the definitions' closing tokens are counted once


def _with_property(prop: dict[str, Any]) -> dict[str, Any]:
    tool = copy.deepcopy(WEATHER)
    tool["function"]["parameters"]["properties"]["extra"] = prop
    return {"messages": MESSAGES, "tools": [tool]}


def test_an_array_of_plain_values_is_counted_by_the_rule() -> None:
    body = _with_property({"type": "array", "items": {"type": "string"}, "description": "Tags."})
    assert _count(body) == _count({"messages": MESSAGES, "tools": [WEATHER]}) + 3 + count_text(
        "extra:array:Tags"
    )


@pytest.mark.parametrize(
    ("prop", "named"),
    [
        ({"type": "object", "properties": {"a": {"type": "string"}}}, "type `object`"),
        ({"type": "array", "items": {"type": "object", "properties": {}}}, "array of objects"),
        ({"type": "integer", "minimum": 1}, "`minimum`"),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "`anyOf`"),
        ({"type": ["string", "null"]}, "a union"),
    ],
)
def test_a_parameter_the_rule_does_not_cover_is_not_counted_and_named(
    prop: dict[str, Any], named: str
) -> None:
    why = _why(_with_property(prop))
    assert "parameter `extra` of `get_current_weather`" in why and named in why


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]},
            "image_url",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}]},
            "input_audio",
        ),
        ({"messages": [{"role": "user", "content": [{"type": "file", "file": {}}]}]}, "`file`"),
        ({"messages": [{"role": "user", "content": [{"type": "hologram"}]}]}, "`hologram`"),
        ({"response_format": {"type": "json_schema", "json_schema": {"name": "x"}}}, "json_schema"),
        ({"tools": [{"type": "custom", "custom": {"name": "x"}}]}, "tool of type `custom`"),
        ({"tools": [WEATHER], "tool_choice": "required"}, "tool_choice `required`"),
        (
            {
                "tools": [WEATHER],
                "tool_choice": {"type": "function", "function": {"name": "get_current_weather"}},
            },
            "a named function",
        ),
    ],
)
def test_a_request_shape_outside_the_rules_is_not_counted_with_its_reason(
    change: dict[str, Any], named: str
) -> None:
    assert named in _why({"model": "gpt-4o", "messages": MESSAGES} | change)


def test_tool_call_turns_are_not_counted_but_text_parts_and_tool_free_choices_are() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "get_current_weather", "arguments": "{}"}}
    turns = [*MESSAGES, {"role": "assistant", "content": None, "tool_calls": [call]}]
    turns.append({"role": "tool", "tool_call_id": "c1", "content": "18 C"})
    assert "tool calls" in _why({"messages": turns, "tools": [WEATHER]})
    parts = [
        {"role": "user", "content": [{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}]}
    ]
    assert _count({"messages": parts}) == count_messages([{"role": "user", "content": "Hi there"}])
    assert _count({"messages": MESSAGES, "tools": [WEATHER], "tool_choice": "auto"}) == 101


def test_an_exchange_says_why_its_prompt_is_not_counted() -> None:
    image = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]}]
    got = count_exchange({"model": "gpt-4o", "messages": image}, {"usage": {"prompt_tokens": 900}})
    assert got.prompt_counted is None and got.not_counted is not None and "image_url" in got.not_counted
    assert got.prompt_reported == 900


def test_a_responses_request_counts_as_the_chat_request_it_stands_for() -> None:
    tool = {"type": "function", **WEATHER["function"]}
    as_chat = _count({"messages": MESSAGES, "tools": [WEATHER]})
    as_text = responses_prompt(
        {"instructions": MESSAGES[0]["content"], "input": MESSAGES[1]["content"], "tools": [tool]}
    )
    items = [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": MESSAGES[1]["content"]}],
        }
    ]
    as_items = responses_prompt({"instructions": MESSAGES[0]["content"], "input": items, "tools": [tool]})
    for parts in (as_text, as_items):
        assert isinstance(parts, PromptParts) and count_prompt(parts, O200K) == as_chat


def test_a_responses_tool_outside_the_rule_is_named_when_counted() -> None:
    nested = {"type": "function", "name": "f", "parameters": {"properties": {"o": {"type": "object"}}}}
    parts = responses_prompt({"input": "hi", "tools": [nested]})
    assert isinstance(parts, PromptParts)
    counted = count_prompt(parts, O200K)
    assert isinstance(counted, Uncovered) and "parameter `o` of `f` has type `object`" in counted.reason


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"input": "go on", "previous_response_id": "resp_1"}, "previous_response_id"),
        (
            {"input": [{"type": "function_call_output", "call_id": "c", "output": "1"}]},
            "function_call_output",
        ),
        (
            {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}]},
            "input_image",
        ),
        ({"input": "hi", "tools": [{"type": "web_search"}]}, "web_search"),
        ({"input": "hi", "text": {"format": {"type": "json_schema", "schema": {}}}}, "json_schema"),
        ({"input": "hi", "instructions": [{"role": "system", "content": "x"}]}, "`instructions`"),
    ],
)
def test_a_responses_request_outside_the_rules_is_not_counted(body: dict[str, Any], named: str) -> None:
    parts = responses_prompt(body)
    counted = parts if isinstance(parts, Uncovered) else count_prompt(parts, O200K)
    assert isinstance(counted, Uncovered) and named in counted.reason


def test_a_reason_shows_at_most_a_short_piece_of_a_name_from_the_request() -> None:
    long_name = "secret_" + "x" * 500
    tool = {
        "type": "function",
        "function": {"name": long_name, "parameters": {"properties": {"p": {"type": "object"}}}},
    }
    why = _why({"messages": MESSAGES, "tools": [tool]})
    assert long_name not in why and len(why) < 200 and "`secret_xxx" in why
    assert "a content part of type `dict`" in _why(
        {"messages": [{"role": "user", "content": [{"type": {"a": 1}}]}]}
    )
