"""The run journal: one JSON line per finished result, beside the output, so a run can resume.

The first line is a header (run id, route without keys, tasks, rounds). Each later line is one
result. A line is written whole and flushed before the next result counts as done, so a killed
process loses at most the line it was writing; `read_journal` drops such a torn tail.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer.errors import RerunLensError
from analyzer.model import Result

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


def read_journal(path: Path) -> JournalState:
    """Read a journal, dropping a torn last line and repeated results (first one wins)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise RerunLensError(f"{path}: cannot read journal ({err.strerror})") from None
    lines = data.split(b"\n")
    if not data.endswith(b"\n"):
        lines = lines[:-1]  # torn tail from a killed process
    header: dict[str, Any] | None = None
    state: JournalState | None = None
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except ValueError:
            raise RerunLensError(f"{path}: line {n} is not JSON; the journal is damaged") from None
        if header is None:
            if entry.get("type") != "header":
                raise RerunLensError(f"{path}: line 1 is not a journal header")
            header = entry
            state = JournalState(header=header)
            continue
        if entry.get("type") != "result" or state is None:
            continue
        result = Result.model_validate(entry["result"])
        key = (str(result.task_id), int(result.round or 0))
        state.results.setdefault(key, result)
    if state is None:
        raise RerunLensError(f"{path}: empty journal")
    return state


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
