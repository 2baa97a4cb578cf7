"""A tool call as a comparable string: its name and its arguments as canonical JSON.

Two rounds made "the same call" exactly when these strings match. Kept apart from the trajectory
metrics so the log's table (`analyzer.log.table`) can turn every recorded call into its token once,
while the log is read, and the metrics read the tokens from there.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = [
    "CallTokens",
    "call_token",
    "canonical_json",
    "signature",
    "signature_piece",
    "trajectory_calls",
]

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
"""One encoder for every call (json.dumps with options builds a new one each time)."""

CallTokens = tuple[tuple[str, str], ...]
"""A result's tool calls in order, each as (tool name, `call_token`)."""


def canonical_json(value: Any) -> str:
    """Arguments as canonical JSON; a string holding a JSON object or list is parsed first."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or nested too deep: compared as text
            parsed = value
        if isinstance(parsed, dict | list):
            value = parsed
    return _CANONICAL.encode(value)


def call_token(name: str, arguments: Any) -> str:
    """One tool call as a comparable string: `name {canonical arguments}`."""
    return f"{name} {canonical_json(arguments)}"


def signature_piece(name: Any, canonical_arguments: str) -> str:
    """One call of an `actions` signature: `[name, arguments]` as canonical JSON, the arguments
    already canonical (json's encoding of a list is its items' encodings joined, so this equals
    encoding the pair)."""
    return f"[{_CANONICAL.encode(name)},{canonical_arguments}]"


def signature(pieces: Sequence[str]) -> str:
    """An `actions` signature from its calls' pieces (`signature_piece`)."""
    return f"[{','.join(pieces)}]"


def trajectory_calls(
    trajectory: Sequence[Any] | None, known: dict[tuple[str, str], tuple[str, str]]
) -> tuple[str | None, CallTokens | None]:
    """A trajectory's `actions` signature and its tool calls as (name, token) pairs, in one pass;
    (None, None) when no trajectory was recorded.

    Args:
        trajectory: A result's validated steps (messages are skipped).
        known: (token, piece) of calls whose arguments arrived as a string, by (name, arguments):
            rounds of an agent repeat the same calls, and parsing and re-encoding each again is
            what costs.
    """
    if trajectory is None:
        return None, None
    calls = []
    pieces = []
    for step in trajectory:
        if step.type != "tool_call":
            continue
        name, arguments = step.name, step.arguments
        made = known.get((name, arguments)) if isinstance(arguments, str) else None
        if made is None:
            canonical = canonical_json(arguments)
            made = (f"{name} {canonical}", signature_piece(name, canonical))
            if isinstance(arguments, str):
                known[(name, arguments)] = made
        calls.append((name, made[0]))
        pieces.append(made[1])
    return signature(pieces), tuple(calls)
