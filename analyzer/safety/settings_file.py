"""Reading a small settings file (a route profile, a simulator scenario) so that any bad file is one line.

A settings file is named by the user, so it can be anything: a FIFO that never ends, `/dev/zero`,
a 2 GB file, Latin-1 text, JSON nested ten thousand levels deep. Each becomes one `error` naming the
file, never a hang, a MemoryError or a traceback.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from analyzer.errors import RerunLensError
from analyzer.safety.bounded_read import read_file
from analyzer.safety.json_keys import duplicate_key

MAX_SETTINGS_BYTES = 4 * 2**20
"""A settings file larger than this is refused (real ones are a few kilobytes)."""


def read_settings_text(path: Path, what: str, error: type[RerunLensError] = RerunLensError) -> str:
    """The file's text: a regular file, at most `MAX_SETTINGS_BYTES`, UTF-8.

    Raises:
        error: naming the file and what is wrong with it, in one line.
    """
    data = read_file(path, MAX_SETTINGS_BYTES, what, error)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(f"{path}: not UTF-8 text (byte {err.start}); save the {what} as UTF-8") from None


def parse_settings(text: str, path: Path, error: type[RerunLensError] = RerunLensError) -> Any:
    """JSON (a `.json` file) or TOML (anything else) parsed; too deep a nesting is an error, not a crash.

    Raises:
        error: naming the file and the problem, in one line.
    """
    kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
    try:
        parsed = json.loads(text) if kind == "JSON" else tomllib.loads(text)  # TOML refuses duplicates
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as err:
        raise error(f"{path}: not valid {kind}: {err}") from None
    except RecursionError:
        raise error(f"{path}: nested too deeply to be a settings file") from None
    if kind == "JSON":
        refuse_duplicate_keys(text, path, error)
    return parsed


def refuse_duplicate_keys(text: str, where: object, error: type[RerunLensError] = RerunLensError) -> None:
    """Refuse JSON whose object repeats a key (the later value would silently win), naming the key
    and its line.

    Raises:
        error: `WHERE: duplicate key "name" at line L column C; ...`.
    """
    repeated = duplicate_key(text)
    if repeated is not None:
        raise error(f"{where}: duplicate key {repeated}; a key may appear only once in an object")


def json_kind(value: object) -> str:
    """What a parsed value is, in the file's own words (a string, a number, a list...)."""
    names = {str: "a string", bool: "true/false", int: "a number", float: "a number", list: "a list"}
    return "null" if value is None else names.get(type(value), f"a {type(value).__name__}")
