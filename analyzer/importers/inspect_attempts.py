"""The HTTP attempts behind one Inspect sample: its model events and its whole-sample error retries.

Inspect writes one `model` event per call to the model (`ModelEvent`: `timestamp` when it started,
`completed`, `error`, and `retries`, the API retries it took). Each call becomes its attempts with
the SDK retry number RerunLens counts retries by (`Attempt.retry`): the call's first request is
retry 0, so an agent's many calls are not taken for retries. A call Inspect retried `r` times gets
`r` failed attempts before its last; Inspect does not record why those failed, so they show as
`server_error`. Cache reads made no request and are left out.

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
    """The sample's attempts in order; None when it records neither model calls nor API-error retries."""
    tries = [r for r in _error_retries(sample) if _is_api_try(r)]
    out: list[dict[str, Any]] = [{"retry": i, "outcome": outcome(r)} for i, r in enumerate(tries)]
    calls = [e for e in _events(sample) if e.get("event") == "model" and e.get("cache") != "read"]
    for number, event in enumerate(calls):
        out.extend(_call_attempts(event, first_retry=len(tries) if number == 0 else 0))
    call_failed = any(isinstance(e.get("error"), str) and e["error"] for e in calls)
    if final_error is not None and not call_failed and is_api_error(final_error):
        out.append({"retry": len(tries) if not calls else 0, "outcome": outcome(final_error)})
    if not out:
        return None
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
    if "connection" in text or "econnrefused" in text or "fetch failed" in text:
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
