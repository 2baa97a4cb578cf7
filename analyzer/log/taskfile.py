"""Read task files: a JSON list of `{"task_id", "prompt", "max_tokens"?, "expected"?}`."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from analyzer.errors import TaskFileError
from analyzer.log.model import TaskSpec
from analyzer.safety.bounded_read import read_file
from analyzer.safety.settings_file import refuse_duplicate_keys

MAX_TASKFILE_BYTES = 256 * 2**20
"""Largest task file read (the dashboard's upload limit; real ones are a few megabytes)."""

_TASKS = TypeAdapter(list[TaskSpec])


def load_tasks_bytes(data: bytes, source: str = "tasks") -> list[TaskSpec]:
    """Parse and validate a task file's bytes; `source` names it in messages.

    Raises:
        TaskFileError: not UTF-8, not JSON, wrong shape, empty, a key repeated in an object, or
            duplicate task ids.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TaskFileError(f"{source}: not UTF-8 text (offset {exc.start})") from None
    try:
        tasks = _TASKS.validate_json(text)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]) or "top level"
        detail = first["msg"].removeprefix("Invalid JSON: ")
        raise TaskFileError(f"{source}: {where.lstrip('.')}: {detail}") from None
    if not tasks:
        raise TaskFileError(f"{source}: the task list is empty")
    refuse_duplicate_keys(text, source, TaskFileError)
    dupes = [t for t, n in Counter(str(t.task_id) for t in tasks).items() if n > 1]
    if dupes:
        raise TaskFileError(f"{source}: task_id {dupes[0]!r} appears more than once")
    return tasks


def load_tasks(path: str | os.PathLike[str]) -> list[TaskSpec]:
    """Read a task file from disk (see `load_tasks_bytes`)."""
    p = Path(path)
    return load_tasks_bytes(read_file(p, MAX_TASKFILE_BYTES, "task file", TaskFileError), str(p))
