"""The HTTP attempts behind one Inspect sample: its model events and its whole-sample error retries.

Inspect writes one `model` event per call to the model (`ModelEvent`: `timestamp` when it started,
`completed`, `error`, and `retries`, the API retries it took). Each call becomes its attempts with
the SDK retry number RerunLens counts retries by (`Attempt.retry`): the call's first request is
retry 0, so an agent's many calls are not taken for retries. A call Inspect retried `r` times gets
`r` failed attempts before its last; Inspect does not record why those failed, so they show as
`server_error`. Cache reads made no request and are left out.

`error_retries` are whole tries of the sample that failed before the recorded one (Inspect's
`retry_on_error`): the first is retry 0 and each later one a retry, and the recorded sample's first
request carries the number of tries before it, so a sample Inspect re-ran `m` times counts `m`
retries, whether or not the failed tries reached the model.
"""

from __future__ import annotations

from typing import Any

from analyzer.importers.common import parse_time


def attempts(sample: dict[str, Any], final_error: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """The sample's attempts in order; None when it records neither model calls nor retries."""
    tries = sample.get("error_retries") if isinstance(sample.get("error_retries"), list) else []
    out: list[dict[str, Any]] = [
        {"retry": i, "outcome": outcome(r if isinstance(r, dict) else {})} for i, r in enumerate(tries)
    ]
    calls = [e for e in _events(sample) if e.get("event") == "model" and e.get("cache") != "read"]
    for number, event in enumerate(calls):
        out.extend(_call_attempts(event, first_retry=len(tries) if number == 0 else 0))
    call_failed = any(isinstance(e.get("error"), str) and e["error"] for e in calls)
    if final_error is not None and not call_failed:
        out.append({"retry": len(tries) if not calls else 0, "outcome": outcome(final_error)})
    if not tries and not calls:
        return None
    return [{"attempt": i, **a} for i, a in enumerate(out)]


def retried_calls(sample: dict[str, Any]) -> int:
    """Model calls of the sample that Inspect retried (`retries` above 0)."""
    return sum(
        1
        for e in _events(sample)
        if e.get("event") == "model" and isinstance(e.get("retries"), int) and e["retries"] > 0
    )


def outcome(error: dict[str, Any]) -> str:
    """The attempt outcome an error message points to; unclassified failures count as server errors."""
    text = str(error.get("message") or "").lower()
    if "429" in text or "rate limit" in text or "ratelimit" in text:
        return "rate_limited"
    if "timeout" in text or "timed out" in text:
        return "timeout"
    if "connection" in text:
        return "connection_error"
    if "401" in text or "403" in text or "authentication" in text:
        return "auth_error"
    return "server_error"


def _events(sample: dict[str, Any]) -> list[dict[str, Any]]:
    events = sample.get("events")
    return [e for e in events if isinstance(e, dict)] if isinstance(events, list) else []


def _call_attempts(event: dict[str, Any], first_retry: int) -> list[dict[str, Any]]:
    retries = event.get("retries")
    retries = retries if isinstance(retries, int) and not isinstance(retries, bool) and retries > 0 else 0
    error = event.get("error") if isinstance(event.get("error"), str) and event["error"] else None
    started, ended = parse_time(event.get("timestamp")), parse_time(event.get("completed"))
    out: list[dict[str, Any]] = [
        {"retry": first_retry + k, "outcome": "server_error", "started_at": started if k == 0 else None}
        for k in range(retries)
    ]
    last = {
        "retry": first_retry + retries,
        "outcome": "ok" if error is None else outcome({"message": error}),
        "ended_at": ended,
    }
    if not retries:
        last["started_at"] = started
    out.append(last)
    return out
