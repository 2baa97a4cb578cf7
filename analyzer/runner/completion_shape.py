"""A chat completion's JSON read strictly: what is not a completion is an error naming what was wrong.

A 200 response may still be no answer: no `choices`, an empty list, an error object, a usage figure
that is not a count (`usage: true`). Read loosely, each became an `ok` result with no answer or a
made-up token count; here each raises `OddResponse` with one line, so the result is an error.
"""

from __future__ import annotations

from typing import Any

from analyzer.errors import RerunLensError
from analyzer.log.loader import json_type

TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


class OddResponse(RerunLensError):
    """A response with status 200 that is not a usable chat completion."""


def token_count(value: Any, where: str) -> int | None:
    """A token count (a whole number, 0 or more) or None when absent; anything else is `OddResponse`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise OddResponse(f"{where} is {_shown(value)}, not a token count")
    return value


def read_completion(data: Any) -> dict[str, Any]:
    """The fields of an `ExecutorResult` from a chat completion's parsed JSON.

    Raises:
        OddResponse: one line naming what is wrong (the place in the JSON and what it held).
    """
    if not isinstance(data, dict):
        what = "text, not JSON" if isinstance(data, str) else json_type(data)
        raise OddResponse(f"the response is {what}: not a chat completion")
    if data.get("error") is not None:
        raise OddResponse(f"the response is an error object with status 200: {_error_text(data['error'])}")
    if "choices" not in data or data["choices"] is None:
        raise OddResponse("the response has no `choices`: not a chat completion")
    choices = data["choices"]
    if not isinstance(choices, list):
        raise OddResponse(f"`choices` is {_shown(choices)}, not a list")
    if not choices:
        raise OddResponse("`choices` is empty: the provider returned no answer")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise OddResponse("`choices[0].message` is missing or not an object")
    return {
        "answer": _content(message.get("content")),
        **_usage(data.get("usage")),
        "served_model": data["model"] if isinstance(data.get("model"), str) else None,
        "system_fingerprint": _text_or_none(data.get("system_fingerprint")),
        "finish_reason": _text_or_none(choice.get("finish_reason")),
    }


def _content(content: Any) -> str | None:
    """The message text: a string, or the text parts of a list joined; None when there is none."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "\n".join(parts) if parts else None
    raise OddResponse(f"`choices[0].message.content` is {_shown(content)}, not text")


def _usage(usage: Any) -> dict[str, int | None]:
    if usage is None:
        return {}
    if not isinstance(usage, dict):
        raise OddResponse(f"`usage` is {_shown(usage)}, not an object of token counts")
    counts = {k: token_count(usage.get(k), f"`usage.{k}`") for k in TOKEN_FIELDS}
    return counts | usage_details(usage)


DETAILS = {
    "cached_tokens": ("prompt_tokens_details", "cached_tokens"),
    "reasoning_tokens": ("completion_tokens_details", "reasoning_tokens"),
}
"""The usage details kept apart: where OpenAI's usage gives them (a detail that is not a count is
left out as not given, not an error: the answer stands)."""


def usage_details(usage: Any) -> dict[str, int]:
    """Cached prompt and reasoning tokens from a usage object (a dict or the SDK's model)."""
    out = {}
    for ours, (group, name) in DETAILS.items():
        details = usage.get(group) if isinstance(usage, dict) else getattr(usage, group, None)
        value = details.get(name) if isinstance(details, dict) else getattr(details, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[ours] = value
    return out


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        text = error.get("message") or error.get("type") or error.get("code")
        return str(text) if text is not None else "(no message)"
    return str(error)


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _shown(value: Any) -> str:
    """A JSON value named briefly: `true`, `"yes"`, a list, an object."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return repr(value[:40])
    return json_type(value)
