"""The HTTP attempts behind one Inspect sample: its model events and its whole-sample error retries.

Inspect writes one `model` event per call to the model (`ModelEvent`: `timestamp` when it started,
`completed`, `error`, `retries`, the API retries it took, and since 0.3.2xx `request_ids`, each
request's id and HTTP status). Each call becomes its attempts with the SDK retry number RerunLens
counts retries by (`Attempt.retry`): the call's first request is retry 0, so an agent's many calls
are not taken for retries. A call Inspect retried `r` times gets `r` failed attempts before its
last, with the statuses of its `request_ids` where recorded (else `server_error`). Some versions
write one event per attempt instead, sharing a `call_id` with an `attempt` number (or, in older ones,
no call id: consecutive events with the same input, each after a failed one): they are one call
(the last may say `retries: r`), never `r` more attempts on top. Cache reads made
no request and are left out. A call that failed in the client before any request was sent (a
`TypeError` building it: no API error class, no HTTP status, no request id) is no attempt at all:
the result's error says so (`client_side`), never a provider `server_error`.

`error_retries` are whole tries of the sample that failed before the recorded one (Inspect's
`retry_on_error`). Only those that failed with a model API error (`is_api_error`: a rate limit,
timeout, connection or auth failure, or an SDK error class such as `APIStatusError`) are attempts:
the first is retry 0 and each later one a retry, and the recorded sample's first request carries
their number. A try that failed in the agent's own code (`RuntimeError('tool sandbox
unreachable')`) made no request Inspect records, so it is no HTTP attempt; likewise a final error
that is no API error and no model call failed is the result's error only, never an attempt.
"""

from __future__ import annotations

import re
from typing import Any

from analyzer.importers.common import parse_time

_API_ERROR_CLASS = re.compile(
    r"(API|RateLimit|InternalServer|ServiceUnavailable|Overloaded|HTTPStatus|BadGateway|GatewayTimeout"
    r"|BadRequest|Authentication|PermissionDenied|NotFound|UnprocessableEntity|Conflict"
    r"|Timeout|Connect|Connection)\w*Error|Timeout$",
)
"""Exception class names of model SDKs and HTTP clients (`openai.APIStatusError`, `anthropic.
RateLimitError`, `httpx.ConnectTimeout`, ...): a sample error of such a class came from a request."""
_STATUS_CODE = re.compile(r"\b(?:Error code|status(?: code)?)[: ]+[45]\d\d\b", re.IGNORECASE)
"""How the OpenAI and Anthropic SDKs (and httpx) put an HTTP status in an error message."""


def attempts(sample: dict[str, Any], final_error: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """The sample's attempts in order; `[]` when its model calls all failed before a request was sent;
    None when it records neither model calls nor API-error retries."""
    tries = [r for r in _error_retries(sample) if _is_api_try(r)]
    out: list[dict[str, Any]] = [{"retry": i, "outcome": outcome(r)} for i, r in enumerate(tries)]
    events = _requested(sample)
    calls = [c for c in group_calls(events) if not client_side(c[-1])]
    for number, call in enumerate(calls):
        out.extend(_call_attempts(call, first_retry=len(tries) if number == 0 else 0))
    call_failed = any(_event_error(e) for e in events)
    if final_error is not None and not call_failed and is_api_error(final_error):
        out.append({"retry": len(tries) if not calls else 0, "outcome": outcome(final_error)})
    if not out:  # model calls recorded, none reached the provider: zero attempts, not unrecorded ones
        return [] if events else None
    return [{"attempt": i, **a} for i, a in enumerate(out)]


def is_api_error(error: dict[str, Any]) -> bool:
    """True when an Inspect sample error came from a model API request, not from the agent's code."""
    message = str(error.get("message") or "")
    kind = message.split("(", 1)[0].strip().rsplit(".", 1)[-1]
    return (
        outcome(error) != "server_error"
        or bool(_API_ERROR_CLASS.search(kind))
        or bool(_STATUS_CODE.search(message))
    )


def skipped_retries(sample: dict[str, Any]) -> int:
    """Whole-sample retries of the sample that failed with no model API error (not attempts)."""
    return sum(1 for r in _error_retries(sample) if not _is_api_try(r))


def _error_retries(sample: dict[str, Any]) -> list[Any]:
    """The sample's `error_retries` (whole tries that failed before the recorded one)."""
    tries = sample.get("error_retries")
    return tries if isinstance(tries, list) else []


def _is_api_try(error: Any) -> bool:
    return isinstance(error, dict) and is_api_error(error)


def retried_calls(sample: dict[str, Any]) -> int:
    """Model calls of the sample that were retried (several attempt events, or `retries` above 0)."""
    events = _requested(sample)
    return sum(
        1
        for call in group_calls(events)
        if len(call) > 1 or (isinstance(call[-1].get("retries"), int) and call[-1]["retries"] > 0)
    )


def outcome(error: dict[str, Any]) -> str:
    """The attempt outcome an error message points to; unclassified failures count as server errors."""
    text = str(error.get("message") or "").lower()
    if "429" in text or "rate limit" in text or "ratelimit" in text:
        return "rate_limited"
    if "timeout" in text or "timed out" in text:
        return "timeout"
    if "connection" in text or "econnrefused" in text or "fetch failed" in text:
        return "connection_error"
    if "401" in text or "403" in text or "authentication" in text:
        return "auth_error"
    return "server_error"


def _requested(sample: dict[str, Any]) -> list[dict[str, Any]]:
    """The sample's model events that asked the model (a cache read made no request)."""
    return [e for e in _events(sample) if e.get("event") == "model" and e.get("cache") != "read"]


def _events(sample: dict[str, Any]) -> list[dict[str, Any]]:
    events = sample.get("events")
    return [e for e in events if isinstance(e, dict)] if isinstance(events, list) else []


def group_calls(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Model events as calls: events sharing a `call_id` (one event per attempt, `attempt` 1, 2, ...)
    are one call; without one, an event that follows a failed one with the same input is its retry."""
    calls: list[list[dict[str, Any]]] = []
    by_id: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        call_id = event.get("call_id")
        if isinstance(call_id, str) and call_id:
            if call_id not in by_id:
                by_id[call_id] = []
                calls.append(by_id[call_id])
            by_id[call_id].append(event)
            continue
        last = calls[-1][-1] if calls else None
        if last is not None and _event_error(last) and not client_side(last) and _same_input(last, event):
            calls[-1].append(event)
        else:
            calls.append([event])
    for call in by_id.values():
        call.sort(key=lambda e: e["attempt"] if isinstance(e.get("attempt"), int) else 0)
    return calls


def client_side(event: dict[str, Any]) -> bool:
    """A model call that failed before any request reached the provider: an error of no API class,
    naming no HTTP status, with no request id recorded."""
    error = _event_error(event)
    return error is not None and not _statuses(event) and not is_api_error({"message": error})


def client_side_errors(sample: dict[str, Any]) -> list[str]:
    """The errors of the sample's model calls that failed in the client (no request was sent)."""
    events = _requested(sample)
    return [str(_event_error(e)) for e in events if client_side(e)]


def _event_error(event: dict[str, Any]) -> str | None:
    error = event.get("error")
    return error if isinstance(error, str) and error else None


def _same_input(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("input", "input_refs", "model", "role")
    return any(a.get(k) is not None for k in keys[:2]) and all(a.get(k) == b.get(k) for k in keys)


def _statuses(event: dict[str, Any]) -> list[int | None]:
    """The HTTP status of each request of the call, as `request_ids` records them."""
    ids = event.get("request_ids")
    if not isinstance(ids, list):
        return []
    out: list[int | None] = []
    for entry in ids:
        status = entry.get("status") if isinstance(entry, dict) else None
        out.append(status if isinstance(status, int) and not isinstance(status, bool) else None)
    return out


def _call_attempts(call: list[dict[str, Any]], first_retry: int) -> list[dict[str, Any]]:
    """A call's attempts: one per event, plus those its last event's `retries` says came before
    and no event of their own records."""
    event = call[-1]
    retries = event.get("retries")
    retries = retries if isinstance(retries, int) and not isinstance(retries, bool) and retries > 0 else 0
    unseen = max(retries + 1 - len(call), 0)
    statuses = _statuses(event)
    out: list[dict[str, Any]] = []
    for k in range(unseen):
        status = statuses[k] if k < len(statuses) else None
        out.append({"outcome": _status_outcome(status), "status_code": status})
    for earlier in call:
        error = _event_error(earlier)
        out.append(
            {
                "outcome": "ok" if error is None else outcome({"message": error}),
                "started_at": parse_time(earlier.get("timestamp")),
                "ended_at": parse_time(earlier.get("completed")),
            }
        )
    if statuses and len(statuses) == len(out) and statuses[-1] is not None:
        out[-1]["status_code"] = statuses[-1]
    if unseen:
        out[0]["started_at"], out[-1]["started_at"] = out[-1].get("started_at"), None
    return [
        {"retry": first_retry + k, **{a: v for a, v in att.items() if v is not None}}
        for k, att in enumerate(out)
    ]


def _status_outcome(status: int | None) -> str:
    if status == 429:
        return "rate_limited"
    if status in (401, 403):
        return "auth_error"
    if status == 404:
        return "not_found"
    if status is not None and 400 <= status < 500:
        return "bad_request"
    return "server_error"
