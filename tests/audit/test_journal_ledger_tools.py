"""A tool-using route through the recording proxy, over real HTTP to the simulator: the tool definitions
are counted by the cookbook's rule, so an honest route reads "as counted" and one that adds 20 %
"overbilled"; a prompt the rules do not cover is left out of the verdict, counted and named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest
from fake_keys import FAKE_KEY

from analyzer.cli.main import main
from analyzer.metrics.token_count import count_messages
from analyzer.proxy.server import ProxyConfig, RecordingProxy
from analyzer.runner.transport import KeyRing
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion

CITIES = ("Lisbon", "Oslo", "Nairobi", "Quito", "Hanoi", "Perth", "Tunis", "Lima", "北京", "Reykjavik")
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_current_weather",
            "description": "Get the current weather in a given location.",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {
                        "type": "string",
                        "description": "The city and state, e.g. San Francisco, CA",
                    },
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "days": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Days to forecast.",
                    },
                },
                "required": ["location"],
            },
        },
    },
    {
        "type": "function",
        "function": {"name": "list_alerts", "description": "Weather alerts in force.", "parameters": {}},
    },
]
SYSTEM = {"role": "system", "content": "You answer questions about the weather; use the tools when useful."}


def _journal(tmp_path: Path, distortion: Distortion, extra: list[dict[str, Any]] | None = None) -> Path:
    """Each city asked twice with the tools through the proxy (plus `extra` requests); the journal."""
    journal = tmp_path / "tools.proxy.jsonl"
    scenario = Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=distortion)
    with Simulator(scenario) as sim:
        config = ProxyConfig(upstream=sim.base_url, keys=KeyRing([FAKE_KEY]), journal=str(journal))
        with RecordingProxy(config) as proxy:
            client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
            for _ in range(2):
                for city in CITIES:
                    asked = [SYSTEM, {"role": "user", "content": f"Will it rain in {city} tomorrow?"}]
                    client.chat.completions.create(model="gpt-4o-mini", messages=asked, tools=TOOLS)
            for body in extra or []:
                client.chat.completions.create(model="gpt-4o-mini", **body)
            client.models.list()  # answered, no usage: nothing to read against a count, not left out
    return journal


def _tokens(journal: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    assert main(["audit", str(journal), "--json"]) == 0
    tokens = json.loads(capsys.readouterr().out)["tokens"]
    assert main(["audit", str(journal)]) == 0
    return tokens, capsys.readouterr().out


def test_an_honest_tool_using_route_is_as_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = _journal(tmp_path, Distortion())
    lines = map(json.loads, journal.read_text().splitlines())
    attempts = [r for r in lines if r["kind"] == "attempt" and r["path"].endswith("/chat/completions")]
    without_tools = [SYSTEM, {"role": "user", "content": "Will it rain in Lisbon tomorrow?"}]
    assert attempts[0]["counted"]["prompt_tokens"] > count_messages(without_tools) + 30  # the tools count
    assert all(a["counted"]["prompt_tokens"] == a["usage"]["prompt_tokens"] for a in attempts)
    assert "Get the current weather" not in journal.read_text()  # counts only, never the definitions
    tokens, text = _tokens(journal, capsys)
    assert tokens["verdict"] == "as counted" and tokens["prompt_ratio"] == pytest.approx(1.0, abs=0.01)
    assert tokens["not_counted"] == 0 and "the route is as counted" in text


def test_a_tool_using_route_that_adds_a_fifth_is_overbilled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tokens, text = _tokens(_journal(tmp_path, Distortion(usage_factor=1.2)), capsys)
    assert tokens["verdict"] == "overbilled" and tokens["prompt_ratio"] == pytest.approx(1.2, abs=0.01)
    assert tokens["prompt"]["interval"][0] > 1.05 and "the route is overbilled" in text


def test_prompts_the_rules_do_not_cover_are_left_out_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    look = [{"role": "user", "content": [{"type": "text", "text": "What is this?"}, image]}]
    call = {"id": "call_1", "type": "function", "function": {"name": "list_alerts", "arguments": "{}"}}
    turn = [SYSTEM, {"role": "assistant", "content": None, "tool_calls": [call]}]
    turn.append({"role": "tool", "tool_call_id": "call_1", "content": "No alerts."})
    extra = [{"messages": look}, {"messages": look}, {"messages": turn, "tools": TOOLS}]
    tokens, text = _tokens(_journal(tmp_path, Distortion(), extra), capsys)
    assert tokens["verdict"] == "as counted" and tokens["prompt"]["results"] == 2 * len(CITIES)
    assert tokens["not_counted"] == 3
    why = tokens["not_counted_why"]
    assert why["a content part of type `image_url` (only text is counted offline)"] == 2
    assert sum(n for reason, n in why.items() if "tool calls" in reason) == 1
    assert "3 answered calls whose prompt the proxy could not count left out of the prompt ratio" in text
    assert "(2: a content part of type `image_url`" in text
