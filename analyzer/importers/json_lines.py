"""JSON Lines files (one JSON value a line), recognised from their content.

A file whose first line is a whole JSON object and which holds more than that one value is JSON Lines
(lm-evaluation-harness's `samples_<task>_<time>.jsonl`); parsing it as one JSON value would fail with
"Extra data at line 2". `parse` keeps the records under `RECORDS`, so a format recognises them by
the records' keys and the unknown-file error can name the file for what it is.
"""

from __future__ import annotations

import json
from typing import Any

from analyzer.importers.common import Source, parse_json

RECORDS = "json_lines"
"""The key under which `parse` returns the records."""


def is_json_lines(text: str) -> bool:
    """Whether the text's first line is one whole JSON object and another value follows it."""
    first, _, rest = text.lstrip("\ufeff \t\r\n").partition("\n")
    if not first.startswith("{") or not rest.strip():
        return False
    try:
        return isinstance(json.loads(first), dict)
    except (ValueError, RecursionError):
        return False


def parse(text: str, source: Source) -> dict[str, Any]:
    """`{RECORDS: [record, ...]}`, one JSON object a non-blank line; a bad line is one error naming it."""
    records: list[dict[str, Any]] = []
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip():
            records.append(source.obj(parse_json(line, source, f"line {n}"), f"line {n}"))
    return {RECORDS: records}


def records(parsed: Any) -> list[dict[str, Any]] | None:
    """The records of a parsed JSON Lines file; None for any other parsed content."""
    if isinstance(parsed, dict) and set(parsed) == {RECORDS}:
        value = parsed[RECORDS]
        return value if isinstance(value, list) else None
    return None
