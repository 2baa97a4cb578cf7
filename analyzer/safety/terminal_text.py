"""Text from a log made safe for a terminal: control characters shown, never obeyed.

A task id, answer, label or served model is text someone else wrote. Printed raw, an escape
sequence in it can retitle the window or clear the screen, a carriage return or newline can forge a
report line, and bidirectional overrides can make it read differently from what it is. `visible`
writes each such character as its Python escape (`\\x1b`, `\\n`, `\\u202e`), so what is printed is
exactly one line showing what the text holds. `json_text` does the same for `--json` output.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable

_BIDI_AND_SEPARATORS = frozenset(
    "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"
)
"""Direction marks, overrides and isolates, and the Unicode line and paragraph separators."""

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

_ESCAPED_IN_JSON = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)
"""Every character `_shown` changes but the line break (categories Cc and Cs, and the bidi set): what
`json_text` writes as `\\uXXXX`."""


def _shown(ch: str) -> str:
    """One character as printed: itself, or its escape when a terminal would act on it."""
    if ch in _NAMED:
        return _NAMED[ch]
    if unicodedata.category(ch) in ("Cc", "Cs") or ch in _BIDI_AND_SEPARATORS:
        code = ord(ch)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return ch


def visible(text: object) -> str:
    """The text on one line, with every control character (C0, DEL, C1), bidi control and line
    separator written as its escape; ordinary text, accents and emoji unchanged."""
    value = str(text)
    if value.isprintable():  # the common case: nothing to do
        return value
    return "".join(_shown(ch) for ch in value)


def visible_lines(lines: Iterable[object]) -> str:
    """Lines joined for printing, each made `visible` (so none can break into two or emit a control)."""
    return "\n".join(visible(line) for line in lines)


def json_text(value: object, indent: int | None = 2) -> str:
    """`value` as JSON for a terminal (`--json`): non-ASCII text kept readable, but every character
    `visible` would escape (C1 controls such as 0x9b, DEL, bidi overrides, line separators, lone
    surrogates) written as its `\\uXXXX` escape, so the JSON means the same and the terminal obeys none."""
    text = json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    return _ESCAPED_IN_JSON.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


__all__ = ["json_text", "visible", "visible_lines"]
