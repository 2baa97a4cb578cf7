"""The recording proxy as a user relies on it: the token gate, loopback only, the key kept home,
every attempt journaled (429s with Retry-After, streams, Anthropic messages), nothing leaked."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx2
import openai
import pytest
from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint, Received, Reply, completion

from analyzer.proxy.server import ProxyConfig, RecordingProxy
from analyzer.runner.transport import KeyRing
from analyzer.safety.keys import key_fingerprint
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import KeyConfig, ScriptRule


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _attempts(path: Path) -> list[dict]:
    return [r for r in _records(path) if r["kind"] == "attempt"]


def _proxy(upstream: str, tmp_path: Path, keys: list[str] | None = None) -> RecordingProxy:
    ring = KeyRing(keys if keys is not None else [FAKE_KEY])
    return RecordingProxy(ProxyConfig(upstream=upstream, keys=ring, journal=str(tmp_path / "j.proxy.jsonl")))


def test_a_request_without_the_local_token_is_refused_and_never_forwarded(tmp_path: Path) -> None:
    with Simulator() as sim, _proxy(sim.base_url, tmp_path) as proxy:
        url = f"{proxy.base_url}/chat/completions"
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        none = httpx2.post(url, json=body)
        wrong = httpx2.post(url, json=body, headers={"Authorization": f"Bearer {proxy.token}x"})
        anthropic_wrong = httpx2.post(f"{proxy.base_url}/messages", json=body, headers={"x-api-key": "nope"})
        right = httpx2.post(url, json=body, headers={"Authorization": f"Bearer {proxy.token}"})
    assert [none.status_code, wrong.status_code, anthropic_wrong.status_code] == [401, 401, 401]
    assert right.status_code == 200
    assert proxy.refused == 3
    assert sim.state.requests == 1  # only the authorised request reached the upstream
    assert len(_attempts(tmp_path / "j.proxy.jsonl")) == 1


def test_the_proxy_listens_on_loopback_only(tmp_path: Path) -> None:
    with Simulator() as sim, _proxy(sim.base_url, tmp_path) as proxy:
        assert proxy._sock is not None and proxy._sock.getsockname()[0] == "127.0.0.1"
        with pytest.raises(OSError):  # another loopback address is another interface: nothing listens
            socket.create_connection(("127.0.0.2", proxy.port), timeout=2).close()
        socket.create_connection(("127.0.0.1", proxy.port), timeout=2).close()


def test_the_key_reaches_the_upstream_and_is_journaled_only_as_its_fingerprint(tmp_path: Path) -> None:
    only_the_key = Scenario(accept_any_key=False, keys={FAKE_KEY: KeyConfig()})
    with Simulator(only_the_key) as sim, _proxy(sim.base_url, tmp_path) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
        reply = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "Say hi"}], temperature=0, seed=7
        )
    assert reply.model.startswith("gpt-4o-mini")  # the simulator accepted the real key, not the token
    text = (tmp_path / "j.proxy.jsonl").read_text()
    assert FAKE_KEY not in text and proxy.token not in text
    (attempt,) = _attempts(tmp_path / "j.proxy.jsonl")
    assert attempt["key_fingerprint"] == key_fingerprint(FAKE_KEY)
    assert attempt["params"] == {"model": "gpt-4o-mini", "temperature": 0, "seed": 7}
    assert attempt["served_model"] == reply.model
    assert attempt["system_fingerprint"] == reply.system_fingerprint
    assert attempt["usage"]["total_tokens"] == reply.usage.total_tokens
    assert "request_body" not in attempt and "response_body" not in attempt  # bodies not kept


def test_a_429_is_journaled_with_its_retry_after_and_the_sdk_retry_after_it(tmp_path: Path) -> None:
    scenario = Scenario(script=[ScriptRule(match="busy", actions=["429"], retry_after_s=0.2)])
    with Simulator(scenario) as sim, _proxy(sim.base_url, tmp_path) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=2)
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "busy now?"}])
    first, second = _attempts(tmp_path / "j.proxy.jsonl")
    assert (first["status"], first["outcome"], first["retry"]) == (429, "rate_limited", 0)
    assert first["retry_after_s"] == pytest.approx(0.2)
    assert (second["status"], second["retry"]) == (200, 1)
    assert first["messages_hash"] == second["messages_hash"]


def test_a_redirect_to_another_host_is_followed_without_the_key(tmp_path: Path) -> None:
    with HostileEndpoint(lambda r: completion("elsewhere")) as other:
        target = f"{other.origin}/v1/chat/completions"
        home_reply = Reply(307, {"location": target})
        with HostileEndpoint(lambda r: home_reply) as home, _proxy(home.base_url, tmp_path) as proxy:
            client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert FAKE_KEY in home.seen()  # the route's own origin gets the key
        assert FAKE_KEY not in other.seen() and proxy.token not in other.seen()
        assert "authorization" not in {k.lower() for k in other.received[0].headers}
    redirect, there = _attempts(tmp_path / "j.proxy.jsonl")
    assert redirect["outcome"] == "redirect" and redirect["redirect_to"] == target
    assert there["base_url"] == other.origin and "key_fingerprint" not in there


def test_a_stream_is_relayed_scrubbed_and_its_usage_recorded(tmp_path: Path) -> None:
    events = [
        {"model": "m-1", "choices": [{"delta": {"content": "leak "}}]},
        {"model": "m-1", "choices": [{"delta": {"content": FAKE_KEY}}]},
        {"model": "m-1", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}},
    ]
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    stream = Reply(200, {"content-type": "text/event-stream"}, body.encode())
    with HostileEndpoint(lambda r: stream) as up, _proxy(up.base_url, tmp_path) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
        chunks = list(
            client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}], stream=True
            )
        )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.startswith("leak ") and FAKE_KEY not in text
    (attempt,) = _attempts(tmp_path / "j.proxy.jsonl")
    assert attempt["stream"] is True and attempt["usage"]["total_tokens"] == 5
    assert attempt["served_model"] == "m-1" and attempt["first_byte_ms"] >= 0
    assert FAKE_KEY not in (tmp_path / "j.proxy.jsonl").read_text()


def test_anthropic_messages_carry_the_key_as_x_api_key(tmp_path: Path) -> None:
    reply = {
        "type": "message",
        "model": "claude-x",
        "content": [{"type": "text", "text": "hello"}],
        "usage": {"input_tokens": 4, "output_tokens": 1},
    }
    answer = Reply(200, {"content-type": "application/json"}, json.dumps(reply).encode())
    seen: list[Received] = []

    def script(r: Received) -> Reply:
        seen.append(r)
        return answer

    with HostileEndpoint(script) as up, _proxy(up.base_url, tmp_path) as proxy:
        root = proxy.client_env()["ANTHROPIC_BASE_URL"]
        got = httpx2.post(
            f"{root}/v1/messages",
            json={"model": "claude-x", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
            headers={"x-api-key": proxy.token, "anthropic-version": "2023-06-01"},
        )
    assert got.json()["content"][0]["text"] == "hello"
    headers = {k.lower(): v for k, v in seen[0].headers.items()}
    assert headers["x-api-key"] == FAKE_KEY and "authorization" not in headers
    assert headers["anthropic-version"] == "2023-06-01" and seen[0].path == "/v1/messages"
    (attempt,) = _attempts(tmp_path / "j.proxy.jsonl")
    assert attempt["usage"] == {"prompt_tokens": 4, "completion_tokens": 1, "total_tokens": 5}
    assert attempt["params"] == {"model": "claude-x", "max_tokens": 5}


def test_keys_rotate_per_attempt_and_each_attempt_names_its_key(tmp_path: Path) -> None:
    second = FAKE_KEY.replace("LEAK", "LEAK2")
    with Simulator() as sim, _proxy(sim.base_url, tmp_path, keys=[FAKE_KEY, second]) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
        for n in range(4):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": f"q{n}"}])
    fps = [a["key_fingerprint"] for a in _attempts(tmp_path / "j.proxy.jsonl")]
    assert set(fps) == {key_fingerprint(FAKE_KEY), key_fingerprint(second)}
    text = (tmp_path / "j.proxy.jsonl").read_text()
    assert FAKE_KEY not in text and second not in text


def test_base_urls_rotate_per_request_and_each_attempt_names_its_root(tmp_path: Path) -> None:
    journal = tmp_path / "j.proxy.jsonl"
    with Simulator() as first, Simulator() as second:
        ring = KeyRing([FAKE_KEY])
        config = ProxyConfig(first.base_url, ring, str(journal), rotation=[second.base_url])
        with RecordingProxy(config) as proxy:
            client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
            for n in range(4):
                client.chat.completions.create(model="m", messages=[{"role": "user", "content": f"q{n}"}])
        served = (first.status_counts.get(200, 0), second.status_counts.get(200, 0))
    roots = [a["base_url"] for a in _attempts(journal)]
    assert roots == [first.base_url, second.base_url] * 2
    assert served == (2, 2)  # each root answered its turns, with the key (a 401 would not count)
    assert all(a["key_fingerprint"] == key_fingerprint(FAKE_KEY) for a in _attempts(journal))
