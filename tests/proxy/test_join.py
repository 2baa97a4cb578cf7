"""The join by hand: request ids first, then content hash and time, one proxy call per harness call,
with what is left counted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from analyzer.proxy.join import HarnessCall, JoinReport, match

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def _attempt(n: int, h: str, start: float, end: float, outcome: str = "ok", cid: str | None = None) -> dict:
    a = {"n": n, "messages_hash": h, "started_at": _at(start), "ended_at": _at(end), "outcome": outcome}
    a["path"] = "/v1/chat/completions"
    return a | ({"client_request_id": cid} if cid else {})


def _call(task: str, h: str, start: float, end: float, cid: str | None = None) -> HarnessCall:
    return HarnessCall((task, 1), h, cid, T0 + timedelta(seconds=start), T0 + timedelta(seconds=end))


def test_two_identical_prompts_in_flight_at_once_each_get_the_call_that_ended_with_them() -> None:
    calls = [_call("a", "h", 0.0, 1.0), _call("b", "h", 0.1, 3.0)]
    attempts = [
        _attempt(1, "h", 0.05, 0.95),  # a's
        _attempt(2, "h", 0.15, 0.5, outcome="rate_limited"),  # b's 429 ...
        _attempt(3, "h", 1.0, 2.95),  # ... and its retry
    ]
    report = JoinReport("test")
    found = match(calls, attempts, report)
    assert [a["n"] for a in found[0]] == [1]
    assert [a["n"] for a in found[1]] == [2, 3]
    assert (report.by_hash, report.exact, report.unmatched_calls) == (2, 0, 0)


def test_a_request_id_wins_over_time_and_a_call_outside_every_window_is_counted() -> None:
    calls = [_call("a", "h", 0.0, 1.0, cid="id-a"), _call("b", "h", 0.0, 1.0, cid="id-b")]
    attempts = [
        _attempt(1, "h", 0.1, 0.9, cid="id-b"),
        _attempt(2, "h", 0.2, 0.8, cid="id-a"),
        _attempt(3, "h", 50.0, 51.0),  # nobody's: long after both
    ]
    report = JoinReport("test")
    found = match(calls, attempts, report)
    assert [a["n"] for a in found[0]] == [2] and [a["n"] for a in found[1]] == [1]
    assert (report.exact, report.unmatched_calls, report.calls) == (2, 1, 3)


def test_a_different_prompt_is_never_joined() -> None:
    report = JoinReport("test")
    assert match([_call("a", "h1", 0, 1)], [_attempt(1, "h2", 0.1, 0.9)], report) == {}
    assert report.unmatched_calls == 1
