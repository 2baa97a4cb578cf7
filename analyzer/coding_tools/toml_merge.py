"""Edit a few string keys into an existing TOML file without touching anything else in it.

The user's config.toml keeps its comments, order and every other setting: the edit replaces the
lines of the keys it writes (or adds them), at the top level and inside one table, and appends the
table when it is missing. The result is parsed back with `tomllib` and must equal the old document
with exactly those values set; otherwise (a key written as a dotted key or an inline table, a
header inside a multi-line string) nothing is written and the caller gets a one-line refusal.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from analyzer.coding_tools.toml_text import table_header, toml_line
from analyzer.errors import RouteError

_HEADER = re.compile(r"^\s*\[(?!\[)(?P<key>[^\]]*)\]\s*(#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")
_KEY_LINE = re.compile(r"""^\s*(?P<key>"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=""")


def _header_path(raw: str) -> tuple[str, ...]:
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)', raw)
    return tuple(a or b or c for a, b, c in parts)


def _headers(lines: list[str]) -> list[int]:
    """Indices of table-header lines, skipping lines inside multi-line strings."""
    found: list[int] = []
    in_string: str | None = None
    for i, line in enumerate(lines):
        if in_string is None and _ANY_HEADER.match(line):
            found.append(i)
        for quote in ('"""', "'''"):
            if (in_string in (None, quote)) and line.count(quote) % 2 == 1:
                in_string = None if in_string == quote else quote
    return found


def _key_of(line: str) -> str | None:
    m = _KEY_LINE.match(line)
    return m.group("key").strip("\"'") if m else None


def _set_keys(lines: list[str], start: int, end: int, values: Mapping[str, str]) -> list[str]:
    """Lines[start:end] with each key of `values` replaced in place or added after the last key."""
    region = lines[start:end]
    todo = dict(values)
    for i, line in enumerate(region):
        key = _key_of(line)
        if key in todo:
            region[i] = toml_line(key, todo.pop(key))
    # after the region's last line of content (a multi-line array's closing bracket included),
    # before the comments and blank lines that lead into the next table
    last = max(
        (i for i, line in enumerate(region) if line.strip() and not line.lstrip().startswith("#")), default=-1
    )
    added = [toml_line(k, v) for k, v in todo.items()]
    if last >= 0 and not region[last].endswith("\n"):
        region[last] += "\n"
    region[last + 1 : last + 1] = added
    return lines[:start] + region + lines[end:]


def edit_toml(text: str, top: Mapping[str, str], table: tuple[str, ...], values: Mapping[str, str]) -> str:
    """`text` with the top-level keys and the table's keys set; every other line kept as it was."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    headers = _headers(lines)
    first = headers[0] if headers else len(lines)
    lines = _set_keys(lines, 0, first, top)
    headers = _headers(lines)
    own = [i for i in headers if (m := _HEADER.match(lines[i])) and _header_path(m.group("key")) == table]
    if own:
        start = own[0] + 1
        end = next((i for i in headers if i > own[0]), len(lines))
        return "".join(_set_keys(lines, start, end, values))
    tail = "" if not lines or lines[-1].strip() == "" else "\n"
    body = "".join(toml_line(k, v) for k, v in values.items())
    return "".join(lines) + tail + table_header(table) + body


def _lookup(doc: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = doc
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def expected_document(
    old: dict[str, Any], top: Mapping[str, str], table: tuple[str, ...], values: Mapping[str, str]
) -> dict[str, Any]:
    """The old document with the written values set (what the edited file must parse to)."""
    want = copy.deepcopy(old)
    want.update(top)
    node = want
    for part in table:
        node = node.setdefault(part, {})
    node.update(values)
    return want


def conflicts(
    old: dict[str, Any], top: Mapping[str, str], table: tuple[str, ...], values: Mapping[str, str]
) -> list[str]:
    """Dotted names of the keys that exist with another value (what `--force` would replace)."""
    found = [k for k, v in top.items() if k in old and old[k] != v]
    current = _lookup(old, table)
    if current is not None and not isinstance(current, dict):
        return [*found, ".".join(table)]
    found += [
        ".".join((*table, k)) for k, v in values.items() if current and k in current and current[k] != v
    ]
    return found


def merge_toml(
    where: str, text: str, top: Mapping[str, str], table: tuple[str, ...], values: Mapping[str, str]
) -> str:
    """The merged text, verified by parsing it back.

    Raises:
        RouteError: the old text is not TOML, or the edit would not give exactly the intended document.
    """
    try:
        old = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RouteError(f"{where}: not valid TOML ({err}); fix it or write elsewhere with --out") from None
    new_text = edit_toml(text, top, table, values)
    try:
        ok = tomllib.loads(new_text) == expected_document(old, top, table, values)
    except tomllib.TOMLDecodeError:
        ok = False
    if not ok:
        raise RouteError(
            f"{where}: cannot merge safely ({'.'.join(table)} or a top-level key is written as a dotted "
            "key or an inline table); nothing written: edit those lines by hand or write elsewhere with --out"
        )
    return new_text


__all__ = ["conflicts", "edit_toml", "expected_document", "merge_toml"]
