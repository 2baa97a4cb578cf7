"""A key repeated in one JSON object: Python's reader keeps the last value silently, so a file could
show one value to a reviewer and act on another. One exact check (jiter) for every JSON file read."""

from __future__ import annotations

import jiter

__all__ = ["duplicate_key"]


def duplicate_key(data: bytes | str) -> str | None:
    """The exact check: `"name" at line L column C` for the first key an object repeats, else None.

    The text must be valid JSON (a syntax error is not reported here).
    """
    try:
        jiter.from_json(data.encode() if isinstance(data, str) else data, catch_duplicate_keys=True)
    except ValueError as exc:
        detail = str(exc)
        if detail.startswith("Detected duplicate key "):
            return detail.removeprefix("Detected duplicate key ")
    return None
