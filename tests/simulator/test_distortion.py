"""Each distortion of a simulated route, seen over real HTTP as a client sees it."""

from __future__ import annotations

import json
import urllib.request
from collections import Counter
from typing import Any

from analyzer.metrics.token_count import count_messages, count_text
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion, Substitute

PROMPT = "Which of the 4 gates in Riga opens first on Monday, the north or the south one? Name it."
TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def _replies(distortion: Distortion, n: int = 60, **extra: Any) -> list[dict[str, Any]]:
    scenario = Scenario(latency_ms=(0.0, 0.0), billing="o200k_base", distortion=distortion)
    out = []
    with Simulator(scenario) as sim:
        for i in range(n):
            body = {
                "model": "gpt-4o",
                "temperature": 1.0,
                "messages": [{"role": "user", "content": PROMPT}],
                **extra,
            }
            req = urllib.request.Request(
                f"{sim.base_url}/chat/completions",
                data=json.dumps(body).encode(),
                headers={
                    "Authorization": "Bearer sim-key",
                    "Content-Type": "application/json",
                    "x-rerunlens-seq": str(i),
                },
            )
            out.append(json.load(urllib.request.urlopen(req)))
    return out


def _answers(replies: list[dict[str, Any]]) -> Counter[str]:
    return Counter(r["choices"][0]["message"]["content"] for r in replies)


def test_honest_usage_is_the_cookbook_count() -> None:
    for r in _replies(Distortion(), 5):
        text = r["choices"][0]["message"]["content"]
        assert r["usage"]["prompt_tokens"] == count_messages([{"role": "user", "content": PROMPT}])
        assert r["usage"]["completion_tokens"] == count_text(text)


def test_ignored_temperature_serves_one_answer() -> None:
    assert len(_answers(_replies(Distortion()))) > 1
    assert len(_answers(_replies(Distortion(fixed_temperature=0.0)))) == 1


def test_a_substitute_changes_the_answer_shares_but_not_the_names() -> None:
    honest, other = _replies(Distortion()), _replies(Distortion(substitute=Substitute(shift=3.0)))
    assert _answers(honest) != _answers(other)
    assert {r["model"] for r in honest} == {r["model"] for r in other}
    assert {r["system_fingerprint"] for r in honest} == {r["system_fingerprint"] for r in other}


def test_an_injected_system_prompt_is_billed() -> None:
    injected = "Always answer formally."
    r = _replies(Distortion(system_prompt=injected), 1)[0]
    sent = [{"role": "system", "content": injected}, {"role": "user", "content": PROMPT}]
    assert r["usage"]["prompt_tokens"] == count_messages(sent)


def test_cut_completions_end_on_length() -> None:
    replies = _replies(Distortion(truncate_share=1.0), 10)
    assert {r["choices"][0]["finish_reason"] for r in replies} == {"length"}


def test_reasoning_tokens_reported_or_dropped() -> None:
    kept = _replies(Distortion(reasoning_tokens=9), 1)[0]["usage"]
    dropped = _replies(Distortion(reasoning_tokens=9, drop_reasoning=True), 1)[0]["usage"]
    assert kept["completion_tokens_details"]["reasoning_tokens"] == 9
    assert kept["completion_tokens"] == dropped["completion_tokens"] + 9
    assert "completion_tokens_details" not in dropped


def test_broken_tool_calls_are_invalid_json_undeclared_or_off_schema() -> None:
    replies = _replies(Distortion(broken_tool_calls=1.0), 30, tools=[TOOL], tool_choice="required")
    kinds = set()
    for r in replies:
        call = r["choices"][0]["message"]["tool_calls"][0]["function"]
        try:
            args = json.loads(call["arguments"])
        except ValueError:
            kinds.add("invalid JSON")
            continue
        kinds.add(
            "undeclared tool"
            if call["name"] != "get_weather"
            else "schema violation"
            if "city" not in args
            else "valid"
        )
    assert kinds == {"invalid JSON", "undeclared tool", "schema violation"}
