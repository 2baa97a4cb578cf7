"""Read, list and save run logs.

Every failure is a `LogError` whose one-line message names the file and the place in it
(`runs[2][5].total_tokens`, `line 3 column 14`), never a traceback. Structural oddities that do not
stop the analysis (ragged rounds, errored results, unknown tokens) are returned as warnings.
"""

from __future__ import annotations

import json
import mmap
import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from analyzer.atomic import write_text_atomic
from analyzer.errors import LogError
from analyzer.log.fast_decode import decode_log, duplicate_key
from analyzer.log.model import RunLog
from analyzer.log.structural import structural_warnings
from analyzer.log.table import gc_paused, keep_table
from analyzer.safety.bounded_read import read_file

MAX_LOG_BYTES = 2 * 1024 * 1024 * 1024
"""Largest log accepted: 2 GiB, some 2.3 million results. Reading and analysing a log peaks at about
5x its size (4.4 GB for the 0.87 GB 1M-result benchmark log, as much as `json.load` alone), so
this leaves room on a 24 GiB machine. The dashboard's upload limit is lower (`MAX_UPLOAD_BYTES`)."""

MAX_UPLOAD_BYTES = 256 * 1024 * 1024
"""Largest upload the dashboard accepts (`.streamlit/config.toml` says the same): the dashboard keeps
up to 16 opened logs with their result objects for its per-task views, all in one server process."""

# Parts of a pydantic error location that name a union member, not a place in the file: a type
# name right after a field name (`task_id`, `str`), or a trajectory step's tag right after its index.
_MEMBER_TAGS = {"str", "int", "float", "bool", "none", "list", "dict"}
_STEP_TAGS = {"tool_call", "message"}


@dataclass(frozen=True)
class LoadedLog:
    """A validated log, where it came from, and what looked odd while reading it."""

    log: RunLog
    source: str
    warnings: list[str] = field(default_factory=list)


def load_path(path: str | os.PathLike[str]) -> LoadedLog:
    """Read a run log from a file.

    Only a regular file is read (a device or a pipe has no end to wait for), and at most one byte
    more than the size limit, so the limit holds for what is actually read.

    Raises:
        LogError: the file is missing, not a regular file, too large, or not a valid run log.
    """
    p = Path(path)
    return load_bytes(_read_regular_file(p), str(p))


def load_bytes(data: bytes, source: str = "upload") -> LoadedLog:
    """Read a run log from bytes (an upload); `source` names it in messages.

    Raises:
        LogError: the bytes are not a valid run log.
    """
    _check_size(len(data), source)
    try:
        log = decode_log(data) or _read_slowly(data, source)
        return LoadedLog(log=log, source=source, warnings=structural_warnings(log))
    except RecursionError:  # msgspec and the structural checks recurse; a hostile file nests deep
        raise LogError(f"{source}: not valid JSON: nesting too deep for a run log") from None


def _read_slowly(data: bytes, source: str) -> RunLog:
    """Validate with pydantic into result objects: the reader every error message comes from."""
    text = _decode(data, source)
    if not text.strip():
        raise LogError(f"{source}: the file is empty")
    try:
        with gc_paused():
            log = RunLog.model_validate_json(text)
    except ValidationError as exc:
        raise LogError(_describe(exc, text, source)) from None
    if not any(log.runs):
        raise LogError(f"{source}: runs: no results at all")
    _reject_non_finite(text, source)
    repeated = duplicate_key(text)
    if repeated is not None:  # the later value would silently replace the first
        raise LogError(f"{source}: duplicate key {repeated}; a key may appear only once in an object")
    return keep_table(log)


def _read_regular_file(p: Path) -> bytes:
    return read_file(p, MAX_LOG_BYTES, "run log", LogError)


def list_logs(folder: str | os.PathLike[str]) -> list[Path]:
    """The run logs in a folder and its subfolders, sorted by path.

    A file counts when its name ends in `.json`, it starts with `{` and mentions `"runs"`;
    task files (a JSON list) and journals are left out without reading them whole.
    """
    root = Path(folder)
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*.json") if p.is_file() and _looks_like_log(p))


def save_log(log: RunLog, path: str | os.PathLike[str]) -> Path:
    """Write a log atomically: a temporary file in the same folder, then a rename.

    A crash mid-write leaves the old file (or none), never half a file.
    """
    return write_text_atomic(path, log.model_dump_json(exclude_unset=True, indent=2) + "\n")


def _reject_non_finite(text: str, source: str) -> None:
    """NaN and Infinity are not JSON; typed fields refuse them already, this catches the rest.

    The substring test is cheap; the full parse only runs when a string might hide one.
    """
    if "NaN" not in text and "Infinity" not in text:
        return

    def refuse(constant: str) -> None:
        raise ValueError(constant)

    try:
        json.loads(text, parse_constant=refuse)
    except ValueError as exc:
        if str(exc) in {"NaN", "Infinity", "-Infinity"}:
            raise LogError(f"{source}: not valid JSON: {exc} is not a number JSON allows") from None


def _check_size(size: int, source: str) -> None:
    if size > MAX_LOG_BYTES:
        raise LogError(
            f"{source}: {size / 2**20:.0f} MiB is over the {MAX_LOG_BYTES // 2**20} MiB limit for a run log"
        )


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        raise LogError(f"{source}: not UTF-8 text (byte 0x{bad} at offset {exc.start})") from None


def _describe(exc: ValidationError, text: str, source: str) -> str:
    """One line for the first problem pydantic found, with the path where it is."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    if first["type"] == "json_invalid":
        detail = first["msg"].removeprefix("Invalid JSON: ")
        if "recursion limit" in detail:
            detail = detail.replace("recursion limit exceeded", "nesting too deep")
        return f"{source}: not valid JSON: {detail}"
    places = {_path(e["loc"]) for e in errors}
    where = _path(first["loc"])
    message = _message(first)
    more = len(places) - 1
    tail = f" (and {more} more problem{'s' if more != 1 else ''})" if more > 0 else ""
    return f"{source}: {where}: {message}{tail}"


def _places(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """The location without pydantic's union-member tags."""
    kept: list[int | str] = []
    for i, part in enumerate(loc):
        before = loc[i - 1] if i else None
        if isinstance(part, str) and (
            (part in _MEMBER_TAGS and isinstance(before, str))
            or (part in _STEP_TAGS and isinstance(before, int))
        ):
            continue
        kept.append(part)
    return tuple(kept)


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in _places(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "top level"


def _message(error: ErrorDetails) -> str:
    kind = error["type"]
    loc = _places(error["loc"])
    value = error.get("input")
    ctx = error.get("ctx") or {}
    field = loc[-1] if loc else None
    if kind == "missing":
        return "required field is missing"
    if field == "task_id":
        if value is None:
            return "task_id is null; every result needs a task id"
        return f"task_id must be a string or an integer (got {_short(value)})"
    if kind == "finite_number" or (isinstance(value, float) and value != value):
        return "not a finite number (NaN or infinity)"
    if kind in {"greater_than_equal", "greater_than"}:
        limit = ctx.get("ge", ctx.get("gt"))
        if limit == 0:
            return f"must not be negative (got {value!r})"
        return f"must be at least {limit} (got {_short(value)})"
    if kind in {"less_than_equal", "less_than", "int_parsing_size"}:
        limit = ctx.get("le", ctx.get("lt"))
        return f"too large (got {_short(value)}{f'; at most {limit:,}' if limit is not None else ''})"
    if kind in {"model_type", "dict_type"}:
        return f"expected an object, got {json_type(value)}"
    if kind == "list_type":
        return f"expected a list, got {json_type(value)}"
    return f"{error['msg']} (got {_short(value)})"


def json_type(value: object) -> str:
    """How JSON would name the type of `value`, for messages."""
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "true/false",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _short(value: object) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _looks_like_log(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            head = fh.read(64).lstrip()
            if not head.startswith(b"{"):
                return False
            if path.stat().st_size == 0:
                return False
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                return mm.find(b'"runs"') != -1
    except (OSError, ValueError):
        return False
