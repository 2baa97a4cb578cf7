"""The proxy counts in a process of its own: the counts it journals stay those of a count in one go,
when prompts are long and new each time, when a client hangs up, when the counting process dies,
and when the proxy stops with counts still under way (no record lost or half-written)."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
import pytest
from fake_keys import FAKE_KEY

from analyzer.metrics.token_count import count_messages, count_text
from analyzer.proxy.count_process import ONE_GO_CHARS, count_texts
from analyzer.proxy.counting import counting_pids
from analyzer.proxy.server import STOPPED, ProxyConfig, RecordingProxy
from analyzer.runner.transport import KeyRing
from analyzer.simulator import Scenario, Simulator

COLOURS = ("red", "blue", "green", "teal")


def _messages(i: int, words: int = 1_500) -> list[dict[str, str]]:
    """A long prompt, different for each `i` (each test its own: the proxy keeps the counts of the
    texts it has seen, in this process)."""
    inventory = " ".join(f"item {j * (i + 3)} is {COLOURS[(i + j) % 4]}" for j in range(words))
    return [
        {"role": "system", "content": "Answer from the inventory."},
        {"role": "user", "content": inventory},
    ]


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _proxy(upstream: str, tmp_path: Path) -> RecordingProxy:
    journal = str(tmp_path / "j.proxy.jsonl")
    return RecordingProxy(ProxyConfig(upstream=upstream, keys=KeyRing([FAKE_KEY]), journal=journal))


def _post(proxy: RecordingProxy, i: int) -> httpx2.Response:
    body = {"model": "gpt-4o-mini", "messages": _messages(i)}
    headers = {"Authorization": f"Bearer {proxy.token}"}
    return httpx2.post(f"{proxy.base_url}/chat/completions", json=body, headers=headers, timeout=30)


def _prompt_counts(path: Path) -> dict[int, int]:
    """The prompt tokens journaled per attempt, keyed by the request's number (its `n`)."""
    return {r["n"]: r["counted"]["prompt_tokens"] for r in _records(path) if r["kind"] == "attempt"}


def test_the_counting_process_counts_as_count_text_does_whatever_the_text() -> None:
    texts = ["<|endoftext|> spelled out", "木卫二有海洋。Europa", "emoji 🙂🙂", "it's we'll", "\n\t  x ", ""]
    texts += ["lone \udc80 surrogate", "9" * 3000, "a" * 5000]
    for encoding in ("o200k_base", "cl100k_base"):
        assert count_texts(texts, encoding) == [count_text(t, encoding) for t in texts]


def test_a_text_longer_than_one_call_takes_is_counted_as_in_one_go() -> None:
    text = " ".join(f"word{i} and more" for i in range(ONE_GO_CHARS // 8))
    assert len(text) > 2 * ONE_GO_CHARS
    assert count_texts([text, "short", ""], "o200k_base") == [count_text(text), count_text("short"), 0]


def test_long_new_prompts_sent_together_are_each_counted_as_in_one_go(tmp_path: Path) -> None:
    with Simulator(Scenario(latency_ms=(0.0, 0.5))) as sim, _proxy(sim.base_url, tmp_path) as proxy:
        with ThreadPoolExecutor(4) as pool:
            replies = list(pool.map(lambda i: _post(proxy, i), range(12)))
        again = _post(proxy, 3)  # a resent prompt: its count is kept, not asked again
    assert all(r.status_code == 200 for r in [*replies, again])
    prompts = sorted(_prompt_counts(tmp_path / "j.proxy.jsonl").values())
    expected = sorted([count_messages(_messages(i)) for i in range(12)] + [count_messages(_messages(3))])
    assert prompts == expected and len(set(prompts)) > 6


def test_a_client_hanging_up_while_its_attempt_is_counted_loses_no_record(tmp_path: Path) -> None:
    with Simulator(Scenario(latency_ms=(0.0, 0.5))) as sim, _proxy(sim.base_url, tmp_path) as proxy:
        body = json.dumps({"model": "gpt-4o-mini", "messages": _messages(101)}).encode()
        head = (
            "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {proxy.token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as raw:
            raw.sendall(head.encode() + body)
            assert raw.recv(12) == b"HTTP/1.1 200"  # the answer has begun: hang up now
        after = _post(proxy, 102)
    assert after.status_code == 200
    expected = {1: count_messages(_messages(101)), 2: count_messages(_messages(102))}
    assert _prompt_counts(tmp_path / "j.proxy.jsonl") == expected


def test_a_counting_process_that_died_is_replaced_and_no_count_is_lost(tmp_path: Path) -> None:
    with Simulator(Scenario(latency_ms=(0.0, 0.5))) as sim, _proxy(sim.base_url, tmp_path) as proxy:
        assert _post(proxy, 201).status_code == 200
        (counting,) = counting_pids()  # the proxy's counting process
        os.kill(counting, signal.SIGKILL)
        replies = [_post(proxy, i) for i in range(202, 206)]  # prompts not counted before
        assert counting_pids() and counting_pids() != [counting]  # another one started
    assert all(r.status_code == 200 for r in replies)
    expected = {i - 200: count_messages(_messages(i)) for i in range(201, 206)}
    assert _prompt_counts(tmp_path / "j.proxy.jsonl") == expected


def test_stopping_with_counts_under_way_writes_every_record_whole(tmp_path: Path) -> None:
    with Simulator(Scenario(latency_ms=(0.0, 0.5))) as sim:
        proxy = _proxy(sim.base_url, tmp_path).start()
        with ThreadPoolExecutor(8) as pool:
            replies = list(pool.map(lambda i: _post(proxy, i), range(300, 316)))
        proxy.stop()  # at once: the last answers' counts are still in the counting process
    assert all(r.status_code == 200 for r in replies)
    records = _records(tmp_path / "j.proxy.jsonl")  # every line whole JSON
    assert [r["kind"] for r in records] == ["start"] + ["attempt"] * 16 + ["end"]
    assert records[-1]["attempts"] == 16
    counted = _prompt_counts(tmp_path / "j.proxy.jsonl").values()
    assert sorted(counted) == sorted(count_messages(_messages(i)) for i in range(300, 316))


def test_stopping_while_the_counting_process_hangs_journals_the_attempt_as_not_counted(
    tmp_path: Path,
) -> None:
    with Simulator(Scenario(latency_ms=(0.0, 0.5))) as sim:
        proxy = _proxy(sim.base_url, tmp_path).start()
        assert _post(proxy, 401).status_code == 200
        journal = tmp_path / "j.proxy.jsonl"
        deadline = time.monotonic() + 60
        while "attempt" not in journal.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)  # its count done: the counting process is up
        (counting,) = counting_pids()
        os.kill(counting, signal.SIGSTOP)  # it will not answer
        try:
            assert _post(proxy, 402).status_code == 200
            proxy.stop(wait_s=1)
        finally:
            os.kill(counting, signal.SIGCONT)
    records = _records(tmp_path / "j.proxy.jsonl")
    assert [r["kind"] for r in records] == ["start", "attempt", "attempt", "end"]
    first, second = records[1:3]
    assert first["counted"]["prompt_tokens"] == count_messages(_messages(401))
    assert "counted" not in second and second["not_counted"] == STOPPED
    assert second["status"] == 200 and records[-1]["attempts"] == 2


def test_the_counting_process_holds_no_secret_and_answers_a_call_of_many_texts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its environment is only what starts Python (the proxy's may hold a key), and a call whose answer
    line is longer than a stream reader's default limit (64 KiB) is answered, not left waiting."""
    import asyncio

    from analyzer.proxy.count_process import Counter

    monkeypatch.setenv("SOME_ROUTE_KEY", FAKE_KEY)
    texts = [f"text number {i}" for i in range(30_000)]

    async def run() -> tuple[bytes, list[int]]:
        counter = await Counter.start()
        assert counter is not None
        environ = Path(f"/proc/{counter.process.pid}/environ").read_bytes()
        counts = await asyncio.wait_for(counter.submit(texts, "o200k_base"), 60)
        await counter.close()
        return environ, counts

    environ, counts = asyncio.run(run())
    assert FAKE_KEY.encode() not in environ and b"SOME_ROUTE_KEY" not in environ
    assert counts == [count_text(t) for t in texts]
