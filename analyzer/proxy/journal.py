"""The proxy's journal: one JSON line per attempt, written as it happens (a watcher can follow it).

Lines are appended whole and flushed, so a reader sees complete records or a torn last line (which
the importer leaves out). Nothing here holds a key: the route is written with fingerprints only,
and every value that came from a response has already passed the scrubber.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from analyzer.errors import RerunLensError
from analyzer.importers.proxy_journal import JOURNAL_MARK
from analyzer.importers.proxy_record import AttemptRecord
from analyzer.runner.transport import now_utc


class Journal:
    """An append-only JSON-lines file, opened new (never over an existing one)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        except FileExistsError:
            raise RerunLensError(f"{self.path}: already exists; choose another journal path") from None
        except OSError as err:
            raise RerunLensError(f"{self.path}: cannot write the journal ({err.strerror})") from None
        self._file = os.fdopen(fd, "w", encoding="utf-8")
        self._lock = threading.Lock()
        self.attempts = 0

    def attempt(self, record: AttemptRecord) -> None:
        """Append one attempt (validated and scrubbed by `attempt_record`)."""
        self.write("attempt", record.line())

    def write(self, kind: str, record: dict[str, Any]) -> None:
        """Append one record (`start`, `end`; attempts through `attempt`) as one line."""
        line = json.dumps(
            {"journal": JOURNAL_MARK, "kind": kind, **record},
            ensure_ascii=False,
            default=str,
            allow_nan=False,
        )
        with self._lock:
            if kind == "attempt":
                self.attempts += 1
            self._file.write(line + "\n")
            self._file.flush()

    def close(self) -> None:
        """Write the end record and close (once)."""
        with self._lock:
            if self._file.closed:
                return
        self.write("end", {"ended_at": now_utc().isoformat(), "attempts": self.attempts})
        with self._lock:
            self._file.close()
