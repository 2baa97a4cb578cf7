"""The proxy counts a Responses API exchange as the chat request it stands for, over real HTTP through
an upstream answering in the Responses shape; what it cannot count offline (a stored conversation,
Anthropic's Claude models) is journaled as not counted with the reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import openai
from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint, Received, Reply

from analyzer.metrics.token_count import count_text
from analyzer.proxy.facts import NO_CLAUDE_TOKENIZER
from analyzer.proxy.server import ProxyConfig, RecordingProxy
from analyzer.runner.transport import KeyRing

# The cookbook's weather example (tests/metrics/test_prompt_rule.py) in the Responses API's shape: the
# OpenAI API reported 101 prompt tokens for it as a chat request on gpt-4o.
SYSTEM = "You are a helpful assistant that can answer to questions about the weather."
USER = "What's the weather like in San Francisco?"
WEATHER: dict[str, Any] = {
    "type": "function",
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
}
SAID = "Let me look that up for you."
ARGS = '{"location":"San Francisco, CA","unit":"celsius"}'
USAGE = {
    "input_tokens": 101,
    "input_tokens_details": {"cached_tokens": 64},
    "output_tokens": 40,
    "output_tokens_details": {"reasoning_tokens": 12},
    "total_tokens": 141,
}


def _response() -> dict[str, Any]:
    message = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": SAID}]}
    call = {"type": "function_call", "call_id": "call_1", "name": "get_current_weather", "arguments": ARGS}
    reasoning = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "hidden"}]}
    return {
        "id": "resp_1",
        "object": "response",
        "model": "gpt-4o-2024-08-06",
        "status": "completed",
        "output": [reasoning, message, call],
        "usage": USAGE,
    }


def _whole(_got: Received) -> Reply:
    return Reply(200, {"content-type": "application/json"}, json.dumps(_response()).encode())


def _attempts(path: Path) -> list[dict[str, Any]]:
    return [r for r in map(json.loads, path.read_text().splitlines()) if r["kind"] == "attempt"]


def _proxy(upstream: str, tmp_path: Path) -> RecordingProxy:
    journal = str(tmp_path / "j.proxy.jsonl")
    return RecordingProxy(ProxyConfig(upstream=upstream, keys=KeyRing([FAKE_KEY]), journal=journal))


def test_a_responses_exchange_is_counted_like_its_chat_request(tmp_path: Path) -> None:
    with HostileEndpoint(_whole) as up, _proxy(up.base_url, tmp_path) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
        got = client.responses.create(model="gpt-4o", instructions=SYSTEM, input=USER, tools=[WEATHER])
        items = [{"role": "user", "content": [{"type": "input_text", "text": USER}]}]
        client.responses.create(model="gpt-4o", instructions=SYSTEM, input=items, tools=[WEATHER])
    assert got.output_text == SAID
    for attempt in _attempts(tmp_path / "j.proxy.jsonl"):
        assert "not_counted" not in attempt
        assert attempt["counted"]["prompt_tokens"] == 101 == attempt["usage"]["prompt_tokens"]
        visible = count_text(SAID) + count_text("get_current_weather") + count_text(ARGS)
        assert attempt["counted"]["completion_tokens"] == visible  # the reasoning item is not visible text
        assert attempt["usage"]["cached_tokens"] == 64 and attempt["usage"]["reasoning_tokens"] == 12


def test_a_streamed_response_is_counted_as_relayed(tmp_path: Path) -> None:
    pieces = [SAID[i : i + 4] for i in range(0, len(SAID), 4)]
    events = [{"type": "response.output_text.delta", "delta": p} for p in pieces]
    events.append({"type": "response.completed", "response": _response()})
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    stream = Reply(200, {"content-type": "text/event-stream"}, body.encode())
    with HostileEndpoint(lambda r: stream) as up, _proxy(up.base_url, tmp_path) as proxy:
        headers = {"Authorization": f"Bearer {proxy.token}"}
        asked = {"model": "gpt-4o", "instructions": SYSTEM, "input": USER, "tools": [WEATHER], "stream": True}
        assert httpx2.post(f"{proxy.base_url}/responses", json=asked, headers=headers, timeout=30).is_success
    (attempt,) = _attempts(tmp_path / "j.proxy.jsonl")
    assert attempt["counted"] == {
        "encoding": "o200k_base",
        "prompt_tokens": 101,
        "completion_tokens": count_text(SAID),
    }
    assert attempt["usage"]["prompt_tokens"] == 101 and attempt["usage"]["reasoning_tokens"] == 12


def test_what_cannot_be_counted_offline_is_journaled_with_its_reason(tmp_path: Path) -> None:
    claude = {"type": "message", "model": "claude-3-5-haiku", "content": [{"type": "text", "text": "Hi"}]}
    claude["usage"] = {"input_tokens": 12, "output_tokens": 2}

    def reply(got: Received) -> Reply:
        data = claude if got.path.endswith("/messages") else _response()
        return Reply(200, {"content-type": "application/json"}, json.dumps(data).encode())

    with HostileEndpoint(reply) as up, _proxy(up.base_url, tmp_path) as proxy:
        headers = {"Authorization": f"Bearer {proxy.token}"}
        stored = {"model": "gpt-4o", "input": "and tomorrow?", "previous_response_id": "resp_0"}
        asked = {
            "model": "claude-3-5-haiku",
            "max_tokens": 9,
            "messages": [{"role": "user", "content": "Hi"}],
        }
        for path, body in (("responses", stored), ("messages", asked)):
            assert httpx2.post(f"{proxy.base_url}/{path}", json=body, headers=headers, timeout=30).is_success
    continued, anthropic = _attempts(tmp_path / "j.proxy.jsonl")
    assert "prompt_tokens" not in continued["counted"] and continued["counted"]["completion_tokens"] > 0
    assert continued["not_counted"] == (
        "the prompt, not counted: it continues a stored prompt (`previous_response_id`) "
        "that the request does not carry"
    )
    assert "counted" not in anthropic and anthropic["usage"]["prompt_tokens"] == 12
    assert anthropic["not_counted"] == NO_CLAUDE_TOKENIZER
    assert "no offline tokenizer exists for Claude models" in NO_CLAUDE_TOKENIZER
