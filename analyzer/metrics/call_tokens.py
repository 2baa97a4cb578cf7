"""A tool call as a comparable string: its name and its arguments as canonical JSON.

Two rounds made "the same call" exactly when these strings match. Kept apart from the trajectory
metrics so the log's table (`analyzer.log_table`) can turn every recorded call into its token once,
while the log is read, and the metrics read the tokens from there.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from analyzer.model import ToolCallStep

__all__ = ["CallTokens", "call_token", "canonical_json", "tool_call_tokens"]

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
"""One encoder for every call (json.dumps with options builds a new one each time)."""

CallTokens = tuple[tuple[str, str], ...]
"""A result's tool calls in order, each as (tool name, `call_token`)."""


def canonical_json(value: Any) -> str:
    """Arguments as canonical JSON; a string holding a JSON object or list is parsed first."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        if isinstance(parsed, dict | list):
            value = parsed
    return _CANONICAL.encode(value)


def call_token(name: str, arguments: Any) -> str:
    """One tool call as a comparable string: `name {canonical arguments}`."""
    return f"{name} {canonical_json(arguments)}"


def tool_call_tokens(
    trajectory: Sequence[Any] | None, known: dict[tuple[str, str], str]
) -> CallTokens | None:
    """A trajectory's tool calls as (name, token) pairs; None when no trajectory was recorded.

    Args:
        trajectory: A result's validated steps (messages are skipped).
        known: Tokens of calls whose arguments arrived as a string, by (name, arguments): rounds of
            an agent repeat the same calls, and parsing and re-encoding each again is what costs.
    """
    if trajectory is None:
        return None
    out = []
    for step in trajectory:
        if not isinstance(step, ToolCallStep):
            continue
        name, arguments = step.name, step.arguments
        if isinstance(arguments, str):
            token = known.get((name, arguments))
            if token is None:
                token = known[(name, arguments)] = call_token(name, arguments)
        else:
            token = call_token(name, arguments)
        out.append((name, token))
    return tuple(out)
