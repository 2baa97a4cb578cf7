"""What the simulator bills for a completion that is a tool call: its name and arguments text by the
rule the recording proxy counts with, so its honest route matches the proxy's count over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
from fake_keys import FAKE_KEY

from analyzer.audit.probes import TOOL_PROBES
from analyzer.proxy.server import ProxyConfig, RecordingProxy
from analyzer.runner.transport import KeyRing
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.engine import count_tokens
from analyzer.simulator.scenario import Distortion


def _calls(base_url: str, api_key: str) -> list[dict[str, Any]]:
    """Each tool probe asked once with a call required; the replies."""
    client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
    return [
        client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "user", "content": prompt}],
            tools=tools,  # type: ignore[arg-type]
            tool_choice="required",
        ).model_dump()
        for prompt, tools in TOOL_PROBES
    ]


def test_an_honest_route_bills_tool_calls_as_the_proxy_counts_them(tmp_path: Path) -> None:
    journal = tmp_path / "j.proxy.jsonl"
    scenario = Scenario(latency_ms=(0.0, 0.5), billing="o200k_base")
    with Simulator(scenario) as sim:
        config = ProxyConfig(upstream=sim.base_url, keys=KeyRing([FAKE_KEY]), journal=str(journal))
        with RecordingProxy(config) as proxy:
            replies = _calls(proxy.base_url, proxy.token)
    attempts = [r for r in map(json.loads, journal.read_text().splitlines()) if r["kind"] == "attempt"]
    assert len(attempts) == len(replies) == len(TOOL_PROBES)
    for attempt, reply in zip(attempts, replies, strict=True):
        message = reply["choices"][0]["message"]
        assert message["content"] is None and message["tool_calls"]
        assert attempt["counted"]["completion_tokens"] == attempt["usage"]["completion_tokens"] > 0


def test_a_route_billing_by_words_bills_a_calls_name_and_arguments() -> None:
    """Each call's name and arguments, counted each by words and punctuation (not 1 token a call)."""
    for distortion in (Distortion(), Distortion(usage_factor=2.0)):
        with Simulator(Scenario(latency_ms=(0.0, 0.5), distortion=distortion)) as sim:
            replies = _calls(sim.base_url, "sim-key")
        for reply in replies:
            function = reply["choices"][0]["message"]["tool_calls"][0]["function"]
            words = count_tokens(function["name"]) + count_tokens(function["arguments"])
            assert reply["usage"]["completion_tokens"] == round(words * distortion.usage_factor)
