"""The proxy's journal carries tokens counted here, offline, for every chat attempt: beside what the
upstream reported, never with the texts they were counted from."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import openai
from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint, Reply

from analyzer.metrics.token_count import MAX_COUNTED_CHARS, count_completion, count_messages, count_text
from analyzer.proxy.server import ProxyConfig, RecordingProxy
from analyzer.runner.transport import KeyRing
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion

PROMPT = "Name the three largest moons of Jupiter, then say which one has a subsurface ocean."


def _attempts(path: Path) -> list[dict]:
    return [r for r in map(json.loads, path.read_text().splitlines()) if r["kind"] == "attempt"]


def _proxy(upstream: str, tmp_path: Path) -> RecordingProxy:
    journal = str(tmp_path / "j.proxy.jsonl")
    return RecordingProxy(ProxyConfig(upstream=upstream, keys=KeyRing([FAKE_KEY]), journal=journal))


def _ask(distortion: Distortion, tmp_path: Path, n: int = 3) -> tuple[list[dict], list[dict]]:
    """n chat requests through the proxy to a simulator billing by o200k_base; the attempts and replies."""
    scenario = Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=distortion)
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": PROMPT}]
    with Simulator(scenario) as sim, _proxy(sim.base_url, tmp_path) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
        ask = client.chat.completions.create
        replies = [ask(model="gpt-4o-mini", messages=messages).model_dump() for _ in range(n)]
    return _attempts(tmp_path / "j.proxy.jsonl"), replies


def test_an_honest_route_reports_what_the_proxy_counted_and_no_text_is_journaled(tmp_path: Path) -> None:
    attempts, replies = _ask(Distortion(), tmp_path)
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": PROMPT}]
    for attempt, reply in zip(attempts, replies, strict=True):
        counted = attempt["counted"]
        assert counted["encoding"] == "o200k_base" and "not_counted" not in attempt
        assert counted["prompt_tokens"] == count_messages(messages) == attempt["usage"]["prompt_tokens"]
        assert counted["completion_tokens"] == count_completion(reply["choices"][0]["message"])
        assert counted["completion_tokens"] == attempt["usage"]["completion_tokens"]
    journal = (tmp_path / "j.proxy.jsonl").read_text()
    assert PROMPT not in journal and replies[0]["choices"][0]["message"]["content"] not in journal


def test_an_over_reporting_route_is_seen_against_the_count_reasoning_kept_apart(tmp_path: Path) -> None:
    attempts, _ = _ask(Distortion(usage_factor=1.3, reasoning_tokens=40), tmp_path)
    for attempt in attempts:
        usage, counted = attempt["usage"], attempt["counted"]
        assert usage["reasoning_tokens"] == 40  # from the usage details, not folded into the count
        assert usage["prompt_tokens"] == round(counted["prompt_tokens"] * 1.3)
        assert usage["completion_tokens"] == round((counted["completion_tokens"] + 40) * 1.3)


def test_a_stream_is_counted_as_relayed_even_when_deltas_cut_words(tmp_path: Path) -> None:
    text = "Ganymede, Callisto and Io; Europa hides an ocean beneath its icy crust. 木卫二有海洋。"
    pieces = [text[i : i + 5] for i in range(0, len(text), 5)]  # cut mid-word, mid-space
    events = [{"model": "m-1", "choices": [{"delta": {"content": p}}]} for p in pieces]
    events.append({"model": "m-1", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 30}})
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    stream = Reply(200, {"content-type": "text/event-stream"}, body.encode())
    with HostileEndpoint(lambda r: stream) as up, _proxy(up.base_url, tmp_path) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
        asked = [{"role": "user", "content": "moons?"}]
        got = client.chat.completions.create(model="gpt-4o", messages=asked, stream=True)
        relayed = "".join(c.choices[0].delta.content or "" for c in got if c.choices)
    (attempt,) = _attempts(tmp_path / "j.proxy.jsonl")
    assert relayed == text
    assert attempt["counted"]["completion_tokens"] == count_text(text)
    assert attempt["counted"]["prompt_tokens"] == count_messages(asked)
    assert attempt["usage"] == {"prompt_tokens": 9, "completion_tokens": 30, "total_tokens": 39}


def test_a_request_over_the_counting_bound_is_journaled_as_not_counted(tmp_path: Path) -> None:
    with Simulator(Scenario(latency_ms=(0.0, 0.5))) as sim, _proxy(sim.base_url, tmp_path) as proxy:
        long = "word " * (MAX_COUNTED_CHARS // 5 + 1)
        big = {"model": "m", "messages": [{"role": "user", "content": long}]}
        headers = {"Authorization": f"Bearer {proxy.token}"}
        sent = httpx2.post(f"{proxy.base_url}/chat/completions", json=big, headers=headers, timeout=30)
        assert sent.is_success
        listed = httpx2.get(f"{proxy.base_url}/models", headers=headers)
    big_one, models = sorted(
        _attempts(tmp_path / "j.proxy.jsonl"), key=lambda r: r["n"]
    )  # written as counted
    assert "prompt_tokens" not in big_one["counted"] and big_one["counted"]["completion_tokens"] >= 1
    assert big_one["not_counted"] == f"the request over {MAX_COUNTED_CHARS:,} characters, not counted"
    assert listed.status_code == models["status"] and "counted" not in models
    assert models["not_counted"].startswith("not a chat completion")
