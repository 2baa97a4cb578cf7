"""The run journal: one JSON line per finished result, beside the output, so a run can resume.

The first line is a header (run id, route without keys, tasks, rounds). Each later line is one
result. A line is written whole and flushed before the next result counts as done, so a killed
process loses at most the line it was writing; `read_journal` drops such a torn tail (a last line
without its line break) and redoes that result. Any other damage (a line that is not JSON, not an
object, a header without its fields, a result that does not validate) is refused in one line naming
the line number: guessing could lose or repeat results.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from analyzer.errors import RerunLensError
from analyzer.log.model import Result, TaskSpec
from analyzer.routes.profile import MAX_ROUNDS
from analyzer.safety.bounded_read import read_file

JOURNAL_SUFFIX = ".journal.jsonl"


def journal_path(out: str | os.PathLike[str]) -> Path:
    """`runs/A.altk_runs.json` -> `runs/A.altk_runs.journal.jsonl`."""
    p = Path(out)
    stem = p.name[: -len(p.suffix)] if p.suffix else p.name
    return p.with_name(stem + JOURNAL_SUFFIX)


@dataclass
class JournalState:
    """What a journal holds: its header and the results already finished."""

    header: dict[str, Any]
    results: dict[tuple[str, int], Result] = field(default_factory=dict)
    """Finished results by (task id as string, round)."""


MAX_JOURNAL_BYTES = 4 * 2**30
"""Largest journal read: one line per result, about twice the log it becomes (logs are capped at 2 GiB)."""

MAX_RESULTS = 2_500_000
"""Most results (tasks x rounds) a journal's header may plan: a larger log would pass the loader's cap."""
HEADER_FIELDS = ("run_id", "created_at", "rounds", "tasks")
"""What a header must hold for a run to resume."""


def read_journal(path: Path) -> JournalState:
    """Read a journal, dropping a torn last line and repeated results (first one wins).

    Raises:
        RerunLensError: `journal X is damaged at line N: ...` for anything but a torn last line.
    """
    data = read_file(path, MAX_JOURNAL_BYTES, "journal")
    lines = data.split(b"\n")
    if not data.endswith(b"\n"):
        lines = lines[:-1]  # torn tail from a killed process: that result is simply redone
    state: JournalState | None = None
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue

        def damaged(why: str, n: int = n) -> RerunLensError:
            return RerunLensError(f"journal {path} is damaged at line {n}: {why}")

        try:
            entry = json.loads(raw)
        except ValueError:
            raise damaged("not JSON") from None
        if not isinstance(entry, dict):
            raise damaged(f"a JSON {type(entry).__name__}, not an object")
        if state is None:
            if entry.get("type") != "header":
                raise damaged("the first line is not a journal header")
            state = JournalState(header=_checked_header(entry, damaged))
            continue
        if entry.get("type") != "result":
            continue
        if not isinstance(entry.get("result"), dict):
            raise damaged("a result line without its result")
        try:
            result = Result.model_validate(entry["result"])
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(x) for x in first["loc"]) or "result"
            raise damaged(f"result {where}: {first['msg']}") from None
        if result.round is None:
            raise damaged("a result without its round")
        key = (str(result.task_id), int(result.round))
        state.results.setdefault(key, result)
    if state is None:
        raise RerunLensError(f"journal {path} is empty; delete it and start the run again")
    return state


def _checked_header(entry: dict[str, Any], damaged: Any) -> dict[str, Any]:
    missing = [f for f in HEADER_FIELDS if f not in entry]
    if missing:
        raise damaged(f"the header has no '{missing[0]}'")
    rounds = entry["rounds"]
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
        raise damaged(f"the header's rounds is {rounds!r}, not a positive integer")
    if rounds > MAX_ROUNDS:  # a tampered header must not make a resume plan a billion rounds
        raise damaged(f"the header's rounds is {rounds}, over the {MAX_ROUNDS} a run can have")
    if not isinstance(entry["run_id"], str) or not entry["run_id"]:
        raise damaged("the header's run_id is not a string")
    try:
        datetime.fromisoformat(str(entry["created_at"]))
    except ValueError:
        raise damaged("the header's created_at is not a time") from None
    tasks = entry["tasks"]
    if not isinstance(tasks, list) or not tasks:
        raise damaged("the header's tasks is not a list of tasks")
    if len(tasks) * rounds > MAX_RESULTS:  # before any task is validated or any result planned
        raise damaged(
            f"the header plans {len(tasks):,} tasks x {rounds:,} rounds, over the {MAX_RESULTS:,} results a "
            "run can have"
        )
    for i, task in enumerate(tasks):
        try:
            TaskSpec.model_validate(task)
        except ValidationError as err:
            raise damaged(f"the header's task {i + 1}: {err.errors()[0]['msg']}") from None
    if not isinstance(entry.get("profile", {}), dict):
        raise damaged("the header's profile is not an object")
    return entry


class JournalWriter:
    """Appends whole lines under a lock; safe to call from worker threads."""

    def __init__(self, path: Path, header: dict[str, Any] | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        if header is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "x", encoding="utf-8") as fh:
                fh.write(json.dumps({"type": "header", **header}) + "\n")
        self._fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 - held open for the run
        _lock_or_fail(self._fh, path)
        if header is None:
            _trim_torn_tail(path)

    def append(self, result: Result) -> None:
        line = json.dumps({"type": "result", "result": result.model_dump(mode="json", exclude_none=True)})
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                os.fsync(self._fh.fileno())
                self._fh.close()


def _lock_or_fail(fh: Any, path: Path) -> None:
    """Hold an exclusive lock while writing, so two processes never finish the same run twice.

    The lock dies with its process (SIGKILL included), so a crashed run can always be resumed.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, as before
        return
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        raise RerunLensError(
            f"{path}: another process is running this run right now; wait for it or stop it"
        ) from None


def _trim_torn_tail(path: Path) -> None:
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)
