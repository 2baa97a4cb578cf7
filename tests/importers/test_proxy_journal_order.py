"""The proxy writes an attempt once its tokens are counted, so lines may be out of arrival order: the
journal is read in the order the attempts arrived (their number), and a retry still joins its call."""

from __future__ import annotations

from analyzer.importers.proxy_journal import group_calls


def _attempt(n: int, digest: str, outcome: str) -> dict[str, object]:
    return {"n": n, "path": "/v1/chat/completions", "messages_hash": digest, "outcome": outcome}


def test_calls_are_grouped_in_arrival_order_whatever_the_line_order() -> None:
    arrived = [
        _attempt(1, "a", "ok"),
        _attempt(2, "b", "rate_limited"),
        _attempt(3, "b", "ok"),
        _attempt(4, "a", "ok"),
    ]
    written = [arrived[1], arrived[0], arrived[3], arrived[2]]  # as counts finished
    calls = [[a["n"] for a in call] for call in group_calls(written)]
    assert calls == [[1], [2, 3], [4]] == [[a["n"] for a in call] for call in group_calls(arrived)]
