"""A TOML writer for the one shape the Codex export writes: string values in plain tables.

Codex's config holds the user's other settings, comments included; rewriting the whole file from a
parsed copy would need a full TOML writer and would drop the comments. The export only ever writes
string values under two top-level keys and one `[model_providers.<id>]` table, so this module
renders those (and edits them into an existing file, see `toml_merge`) and nothing else: no new
dependency, and every edit is verified by parsing the result back with `tomllib`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def toml_string(value: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped (TOML 1.0, 'String')."""
    out = []
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_key(key: str) -> str:
    """A key as written: bare when it can be, else quoted."""
    return key if _BARE_KEY.fullmatch(key) else toml_string(key)


def toml_line(key: str, value: str) -> str:
    """`key = "value"` with a newline."""
    return f"{toml_key(key)} = {toml_string(value)}\n"


def table_header(path: tuple[str, ...]) -> str:
    """`[a.b]` with each part quoted where it must be."""
    return "[" + ".".join(toml_key(p) for p in path) + "]\n"


def render_document(top: Mapping[str, str], table: tuple[str, ...], values: Mapping[str, str]) -> str:
    """A new file: the top-level keys, a blank line, then the one table."""
    head = "".join(toml_line(k, v) for k, v in top.items())
    body = "".join(toml_line(k, v) for k, v in values.items())
    return f"{head}\n{table_header(table)}{body}"


__all__ = ["render_document", "table_header", "toml_key", "toml_line", "toml_string"]
