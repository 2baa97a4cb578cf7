"""One chat completion exchange counted offline beside the usage its response reported: the prompt by
the cookbook's rules (`prompt_rule`), the visible answer, the cached and reasoning tokens kept apart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from analyzer.metrics.prompt_rule import Uncovered, chat_tokens
from analyzer.metrics.token_count import count_completion, encoding_name


@dataclass(frozen=True)
class ExchangeCount:
    """One request and its response: tokens counted here beside the usage the response reported."""

    encoding: str
    prompt_counted: int | None
    """The request's prompt by the cookbook's rules; None when they do not cover it (`not_counted`)."""
    completion_counted: int | None
    prompt_reported: int | None
    completion_reported: int | None
    cached_reported: int | None
    """`usage.prompt_tokens_details.cached_tokens`, where given."""
    reasoning_reported: int | None
    """`usage.completion_tokens_details.reasoning_tokens`, where given (not visible, not counted)."""
    not_counted: str | None = None
    """Why the prompt is not counted."""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _detail(usage: dict[str, Any], group: str, name: str) -> int | None:
    details = usage.get(group)
    return _int(details.get(name)) if isinstance(details, dict) else None


def count_exchange(request: Any, response: Any) -> ExchangeCount:
    """Counts for one chat completion exchange (parsed JSON bodies); what is missing stays None."""
    body = request if isinstance(request, dict) else {}
    model = body.get("model") if isinstance(body.get("model"), str) else None
    enc = encoding_name(model)
    prompt = chat_tokens(body, enc)
    data = response if isinstance(response, dict) else {}
    choices = data.get("choices") if isinstance(data.get("choices"), list) else []
    message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    raw_usage = data.get("usage")
    usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
    return ExchangeCount(
        enc,
        None if isinstance(prompt, Uncovered) else prompt,
        count_completion(message, enc) if message is not None else None,
        _int(usage.get("prompt_tokens")),
        _int(usage.get("completion_tokens")),
        _detail(usage, "prompt_tokens_details", "cached_tokens"),
        _detail(usage, "completion_tokens_details", "reasoning_tokens"),
        prompt.reason if isinstance(prompt, Uncovered) else None,
    )
