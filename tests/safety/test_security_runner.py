"""A run on a disk that fills up: the error keeps the resume hint.

The disk is simulated at the journal's file handle: after two result lines every write fails with
ENOSPC, and so does closing the file (a buffered file flushes what it still holds when closed,
which fails again on a full disk).
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from analyzer.cli import main
from analyzer.runner import journal
from analyzer.runner.journal import read_journal

TASKS = Path("tests/fixtures/tasks/three_tasks.json")


class FullDisk:
    """A journal file handle on a disk with room for `room` more lines."""

    def __init__(self, fh: Any, room: int) -> None:
        self.fh, self.room, self.pending = fh, room, False

    def write(self, text: str) -> int:
        if self.room <= 0:
            self.pending = True
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= 1
        return int(self.fh.write(text))

    def flush(self) -> None:
        self.fh.flush()

    def fileno(self) -> int:
        return int(self.fh.fileno())

    @property
    def closed(self) -> bool:
        return bool(self.fh.closed)

    def close(self) -> None:
        self.fh.close()
        if self.pending:
            raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_mid_run_says_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    opened = journal.JournalWriter.__init__

    def on_a_small_disk(self: journal.JournalWriter, path: Path, header: dict[str, Any] | None) -> None:
        opened(self, path, header)
        self._fh = FullDisk(self._fh, room=2)  # type: ignore[assignment]

    monkeypatch.setattr(journal.JournalWriter, "__init__", on_a_small_disk)
    out = tmp_path / "r.json"
    code = main(["run", "--tasks", str(TASKS), "--out", str(out), "--repeat", "2"])
    last = capsys.readouterr().err.strip().splitlines()[-1]  # after the progress lines
    assert code == 2 and last.startswith("rerunlens: error: the run stopped (OSError: [Errno 28] No space")
    assert "the 2 finished results are kept in" in last and "Resume with: rerunlens run" in last
    assert len(read_journal(journal.journal_path(out)).results) == 2
