"""Write an export into a settings file: merged into what is there, never overwriting without force.

- A missing file is created with the export alone.
- An existing file keeps every setting the export does not write. A key the export writes that
  already holds another value is a conflict: nothing is written unless `force`, and the refusal
  names the keys (never their values).
- A key already in the file where the export puts its placeholder is kept, even with `force`: a
  placeholder must never replace the user's working key, and its value is not ours to show.
- A file that does not parse is never touched.

Files are written atomically (analyzer.atomic).
"""

from __future__ import annotations

import copy
import json
import math
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer.atomic import write_text_atomic
from analyzer.coding_tools.export import PROVIDER_ID, ToolExport, expand_path
from analyzer.coding_tools.toml_merge import conflicts as toml_conflicts
from analyzer.coding_tools.toml_merge import merge_toml
from analyzer.errors import RouteError
from analyzer.safety.keys import key_problem
from analyzer.safety.settings_file import read_settings_text

ALTERNATE_KEYS = {"ANTHROPIC_AUTH_TOKEN": "ANTHROPIC_API_KEY"}
"""Claude Code sends either as its credential (Bearer or x-api-key); one that works is kept alone."""


@dataclass(frozen=True)
class WriteResult:
    """What writing an export into a file did."""

    path: Path
    """The file written."""
    created: bool
    """True when the file did not exist before."""
    replaced: list[str] = field(default_factory=list)
    """Keys that held another value and were replaced (only with force)."""
    kept_keys: list[str] = field(default_factory=list)
    """Key entries already set in the file and left as they were (never shown)."""

    def summary(self) -> str:
        """One line for the person who ran the export."""
        how = "created" if self.created else "merged into (your other settings kept)"
        parts = [f"{how} {self.path}"]
        if self.replaced:
            parts.append("replaced " + ", ".join(self.replaced))
        if self.kept_keys:
            parts.append("kept the key already in " + ", ".join(self.kept_keys))
        return "; ".join(parts)


def _leaves(data: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out: list[tuple[tuple[str, ...], Any]] = []
    for key, value in data.items():
        path = (*prefix, key)
        out += _leaves(value, path) if isinstance(value, dict) else [(path, value)]
    return out


def _get(doc: Any, path: tuple[str, ...]) -> tuple[bool, Any]:
    for part in path:
        if not isinstance(doc, dict) or part not in doc:
            return False, None
        doc = doc[part]
    return True, doc


def _put(doc: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for part in path[:-1]:
        if not isinstance(doc.get(part), dict):
            doc[part] = {}
        doc = doc[part]
    doc[path[-1]] = value


def _other_key_entry(doc: Any, path: tuple[str, ...]) -> str | None:
    """The sibling entry holding a real key in the other header (`ANTHROPIC_API_KEY` beside
    `ANTHROPIC_AUTH_TOKEN`), where the export would add a placeholder; else None."""
    if path[-1] not in ALTERNATE_KEYS:
        return None
    sibling = (*path[:-1], ALTERNATE_KEYS[path[-1]])
    present, value = _get(doc, sibling)
    real = present and isinstance(value, str) and key_problem(value) is None
    return ".".join(sibling) if real else None


def _blocked(doc: Any, path: tuple[str, ...]) -> bool:
    """True when a parent of `path` exists but is not an object (it would have to be replaced)."""
    for part in path[:-1]:
        if not isinstance(doc, dict):
            return True
        if part not in doc:
            return False
        doc = doc[part]
    return not isinstance(doc, dict)


def merge_json(
    export: ToolExport, old: dict[str, Any], force: bool, where: str
) -> tuple[dict[str, Any], WriteResult]:
    """The merged document and what changed (its path is `where`)."""
    new = copy.deepcopy(old)
    clashes: list[str] = []
    kept: list[str] = []
    for path, value in _leaves(export.data):
        name = ".".join(path)
        present, current = _get(old, path)
        holds_key = present and path in export.placeholder_keys and isinstance(current, str)
        if holds_key and key_problem(current) is None:
            kept.append(name)
            continue
        other = _other_key_entry(old, path) if path in export.placeholder_keys and not present else None
        if other is not None:  # a placeholder beside a working key would send a second, bad header
            kept.append(other)
            continue
        if holds_key and key_problem(current) in ("placeholder", "empty"):
            _put(new, path, value)  # one placeholder for another: nothing of the user's is lost
            continue
        if present and current == value:
            continue
        if present or _blocked(old, path):
            clashes.append(name)
        _put(new, path, value)
    if clashes and not force:
        raise RouteError(
            f"{where}: already sets {', '.join(clashes)} to other values; nothing written "
            "(add --force to replace them; your other settings are kept either way)"
        )
    return new, WriteResult(Path(where), False, clashes, kept)


def _write(path: Path, text: str, export: ToolExport) -> None:
    """Atomically, keeping an existing file's permissions (a settings file may hold a key: 0600
    stays); a new file that will hold a key once the placeholder is replaced starts private. A
    symlinked settings file (a dotfiles checkout) is written through: its target is replaced, the
    link kept."""
    target = path.resolve() if path.is_symlink() else path
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o600 if export.placeholder_keys else None
    write_text_atomic(target, text, mode)


def _read(path: Path) -> str | None:
    """The file's text (bounded, UTF-8), or None when there is none yet (a dangling link included)."""
    if not path.exists():
        return None
    return read_settings_text(path, "settings", RouteError)


def _strict_number(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {key[:60]!r} appears twice in one object")
        found[key] = value
    return found


def strict_json(text: str, path: Path) -> Any:
    """JSON parsed strictly: no NaN or Infinity, no number out of range, no key twice in an object
    (a merge would silently keep one), no nesting too deep; one line naming the file otherwise.

    Raises:
        RouteError: nothing is written to a file that does not parse strictly.
    """
    try:
        return json.loads(
            text, parse_float=_strict_number, parse_constant=_no_constant, object_pairs_hook=_unique_keys
        )
    except json.JSONDecodeError as err:
        raise RouteError(f"{path}: not valid JSON (line {err.lineno}: {err.msg}); nothing written") from None
    except ValueError as err:
        raise RouteError(f"{path}: not strict JSON ({err}); nothing written") from None
    except RecursionError:
        raise RouteError(f"{path}: nested too deeply to be a settings file; nothing written") from None


def _write_json(export: ToolExport, path: Path, text: str | None, force: bool) -> WriteResult:
    if text is None or not text.strip():
        _write(path, export.text, export)
        return WriteResult(path, text is None)
    old = strict_json(text, path)
    if not isinstance(old, dict):
        raise RouteError(f"{path}: holds a JSON {type(old).__name__}, not an object; nothing written")
    new, result = merge_json(export, old, force, str(path))
    _write(path, json.dumps(new, indent=2, ensure_ascii=False, allow_nan=False) + "\n", export)
    return result


def _write_toml(export: ToolExport, path: Path, text: str | None, force: bool) -> WriteResult:
    top = {k: v for k, v in export.data.items() if isinstance(v, str)}
    table = ("model_providers", PROVIDER_ID)
    values = export.data["model_providers"][PROVIDER_ID]
    if text is None or not text.strip():
        _write(path, export.text, export)
        return WriteResult(path, text is None)
    try:
        merged = merge_toml(str(path), text, top, table, values)  # refuses text that is not TOML
        clashes = toml_conflicts(tomllib.loads(text), top, table, values)
    except RecursionError:
        raise RouteError(f"{path}: nested too deeply to be a settings file; nothing written") from None
    if clashes and not force:
        raise RouteError(
            f"{path}: already sets {', '.join(clashes)} to other values; nothing written "
            "(add --force to replace them; your other settings are kept either way)"
        )
    _write(path, merged, export)
    return WriteResult(path, False, clashes)


def write_export(export: ToolExport, path: str | Path, force: bool = False) -> WriteResult:
    """Merge `export` into the file at `path` (created when missing), atomically.

    Raises:
        RouteError: the file does not parse, or it sets a written key to another value and not `force`.
    """
    target = expand_path(path)
    text = _read(target)
    if export.format == "toml":
        return _write_toml(export, target, text, force)
    return _write_json(export, target, text, force)


__all__ = ["WriteResult", "merge_json", "strict_json", "write_export"]
