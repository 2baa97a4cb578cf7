"""The proxy's journal is a valid record whatever a client or an upstream sends.

An upstream that echoes the key (a request id, a header's name), a client's NaN or 1e999 temperature
and 10**400 seed, an upstream's usage of -3, `true` or 10**30, a lone surrogate in the served model,
a 200 whose body is an error, a retry header of `²`: each is left out of the journal as not recorded
with a note (or the error journaled as one), the journal loads whole, and nothing holds the key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint, Received, Reply, completion
from test_proxy_forwarding import proxy_on

from analyzer.importers import load_any
from analyzer.log.model import RunLog
from analyzer.proxy.join import JoinReport, join_log
from analyzer.proxy.watch import watch_proxy
from analyzer.proxy.wrap import journal_records

HOSTILE_BODY = (
    b'{"model": "m", "temperature": 1e999, "top_p": NaN, "seed": 1' + b"0" * 400 + b', "messages": []}'
)


def strict_lines(path: Path) -> list[dict[str, Any]]:
    """The journal's lines read as strict JSON (NaN and infinities refused)."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} written to the journal")

    return [json.loads(line, parse_constant=refuse) for line in path.read_text("utf-8").splitlines()]


def attempts_of(path: Path) -> list[dict[str, Any]]:
    return [r for r in strict_lines(path) if r["kind"] == "attempt"]


def attempts_loaded(log: RunLog) -> int:
    return sum(len(result.attempts or []) for row in log.runs for result in row)


def _post(proxy: Any, body: bytes, **headers: str | bytes) -> httpx2.Response:
    auth = {"authorization": f"Bearer {proxy.token}", "content-type": "application/json"}
    return httpx2.post(f"{proxy.base_url}/chat/completions", content=body, headers=auth | headers, timeout=10)


def test_an_upstream_echoing_the_key_reaches_neither_journal_nor_client(
    tmp_path: Path,
) -> None:
    def echo(_got: Received) -> Reply:
        reply = completion()
        reply.headers |= {"x-request-id": FAKE_KEY, "request-id": FAKE_KEY, f"x-{FAKE_KEY}": "1"}
        return reply

    journal = tmp_path / "j.proxy.jsonl"
    with HostileEndpoint(echo) as ep, proxy_on(ep.base_url, journal) as proxy:
        response = _post(proxy, b'{"model": "m", "messages": []}')
    assert response.status_code == 200
    assert FAKE_KEY not in journal.read_text("utf-8")
    assert not [(k, v) for k, v in response.headers.items() if FAKE_KEY in k or FAKE_KEY in v]
    (attempt,) = attempts_of(journal)
    assert attempt["upstream_request_id"] != FAKE_KEY  # recorded, scrubbed


def _odd_upstream(_got: Received) -> Reply:
    usage = {"prompt_tokens": -3, "completion_tokens": True, "total_tokens": 10**30}
    choice = {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    body = json.dumps({"model": "gpt\ud800", "choices": [choice], "usage": usage})
    return Reply(200, {"content-type": "application/json"}, body.encode())


def test_invalid_values_from_client_and_upstream_are_left_out_with_a_note(tmp_path: Path) -> None:
    journal = tmp_path / "j.proxy.jsonl"
    with HostileEndpoint(_odd_upstream) as ep, proxy_on(ep.base_url, journal) as proxy:
        statuses = [_post(proxy, HOSTILE_BODY).status_code, _post(proxy, HOSTILE_BODY).status_code]
    assert statuses == [200, 200]  # the client got what the upstream sent
    first = attempts_of(journal)[0]
    assert first["params"] == {"model": "m"}
    assert "usage" not in first and "served_model" not in first
    noted = " ".join(first["dropped"])
    for name in ("temperature", "top_p", "seed", "usage.prompt_tokens", "usage.total_tokens", "served_model"):
        assert name in noted
    loaded = load_any(journal)
    assert attempts_loaded(loaded.log) == 2  # the journal loads whole
    assert any("not valid" in w for w in loaded.warnings)
    assert watch_proxy(journal).tokens == 0  # Watch counts no 10**30 either


def test_one_unreadable_attempt_costs_that_attempt_not_the_journal(tmp_path: Path) -> None:
    journal = tmp_path / "j.proxy.jsonl"
    with HostileEndpoint(lambda _got: completion()) as ep, proxy_on(ep.base_url, journal) as proxy:
        for _ in range(3):
            _post(proxy, b'{"model": "m", "temperature": 0.5, "messages": []}')
    lines = journal.read_text("utf-8").splitlines()
    lines[2] = lines[2].replace('"temperature": 0.5', '"temperature": NaN')  # a journal of the old writer
    lines[3] = lines[3].replace('"status": 200', '"status": 200, "retry_after_s": -1, "broken": "yes"')
    journal.write_text("\n".join(lines) + "\n", "utf-8")
    loaded = load_any(journal)
    assert attempts_loaded(loaded.log) == 2
    warning = next(w for w in loaded.warnings if "not valid" in w)
    assert "2 attempts" in warning and "line 3" in warning
    report = JoinReport("inspect")
    join_log(loaded.log, [], journal_records(journal), report)
    assert any("not valid" in line for line in report.lines())


def test_a_200_whose_body_is_an_error_is_journaled_as_an_error(tmp_path: Path) -> None:
    def error(got: Received) -> Reply:
        if b"html" in got.body:
            return Reply(200, {"content-type": "text/html"}, b"<html>gateway login</html>")
        body = {"error": {"message": "upstream overloaded", "type": "server_error"}}
        return Reply(200, {"content-type": "application/json"}, json.dumps(body).encode())

    journal = tmp_path / "j.proxy.jsonl"
    with HostileEndpoint(error) as ep, proxy_on(ep.base_url, journal) as proxy:
        _post(proxy, b'{"model": "m", "messages": [{"role": "user", "content": "json"}]}')
        _post(proxy, b'{"model": "m", "messages": [{"role": "user", "content": "html"}]}')
    first, second = attempts_of(journal)
    assert first["outcome"] != "ok" and "error object" in first["error"]
    assert second["outcome"] != "ok" and "not a JSON object" in second["error"]
    assert {r.status for row in load_any(journal).log.runs for r in row} == {"error"}


def test_a_stream_that_carries_an_error_event_is_journaled_as_an_error(tmp_path: Path) -> None:
    events = b'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error"}}\n\n'

    def stream(_got: Received) -> Reply:
        return Reply(200, {"content-type": "text/event-stream"}, events)

    journal = tmp_path / "j.proxy.jsonl"
    with HostileEndpoint(stream) as ep, proxy_on(ep.base_url, journal) as proxy:
        relayed = _post(proxy, b'{"model": "m", "stream": true, "messages": []}')
    assert relayed.content == events  # the client gets the stream as sent
    (attempt,) = attempts_of(journal)
    assert attempt["outcome"] != "ok" and "error" in attempt["error"]


def test_a_retry_header_that_is_not_ascii_digits_is_not_recorded_and_no_500(tmp_path: Path) -> None:
    journal = tmp_path / "j.proxy.jsonl"
    with HostileEndpoint(lambda _got: completion()) as ep, proxy_on(ep.base_url, journal) as proxy:
        replies = [
            _post(proxy, b'{"model": "m", "messages": []}', **{"x-stainless-retry-count": junk})
            for junk in (b"\xb2", b"\xb9", "-1", "1e3", "9" * 40, "2")  # latin-1 for `²`, `¹`
        ]
    assert [r.status_code for r in replies] == [200] * 6
    assert [a.get("retry") for a in attempts_of(journal)] == [None] * 5 + [2]
