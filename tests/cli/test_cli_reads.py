"""Every command that opens a file by path refuses a FIFO or a device in one line, before any read:
a pipe never hangs a command and /dev/zero never fills the memory."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from analyzer.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "A_baseline.altk_runs.json"


def _commands(bad: str, tmp: Path) -> list[list[str]]:
    return [
        ["analyze", bad],
        ["analyze", "--json", bad],
        ["compare", str(SAMPLE), bad],
        ["export", bad, "--csv", str(tmp / "out.csv")],
        ["import", bad, "--out", str(tmp / "imported.json")],
        ["report", bad, "-o", str(tmp / "report.html")],
        ["rerun", bad],
        ["run", "--tasks", bad, "--repeat", "1", "--out", str(tmp / "run.json")],
    ]


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_pipe_or_a_device_is_refused_in_one_line(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "pipe.json"
    if kind == "fifo":
        os.mkfifo(bad)
    target = str(bad) if kind == "fifo" else kind

    def hung(signum: int, frame: object) -> None:
        raise AssertionError("the command blocked on its input")

    previous = signal.signal(signal.SIGALRM, hung)
    try:
        for argv in _commands(target, tmp_path):
            signal.alarm(20)
            code = main(argv)
            signal.alarm(0)
            _assert_refused(code, capsys.readouterr().err, target, argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert not (tmp_path / "report.html").exists() and not (tmp_path / "out.csv").exists()


def _assert_refused(code: int, err: str, target: str, argv: list[str]) -> None:
    why = "not a regular file (a device, pipe or socket); save it to a file first"
    assert code == 2, argv
    assert err.strip().splitlines() == [f"rerunlens: error: {target}: {why}"], argv
