"""`wrap` leaves its harness nothing to steal and nothing running: the child cannot read the key from
its parent's /proc/PID/environ, a harness that ignores SIGTERM is killed after the grace period,
what the harness started is ended with it, and a `kill -9` of wrap takes the harness with it.

Each test runs the real `rerunlens wrap` as a process (the built-in simulator as the route) around
a small Python harness that writes what it saw into its folder.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_keys import FAKE_KEY

from analyzer.child_process import STOP_GRACE_S

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl are Linux's")

SNOOP = f"""
import os, subprocess, sys
parent = open(f"/proc/{{os.getppid()}}/environ", "rb").read()
open("saw_key", "w").write(str({FAKE_KEY!r}.encode() in parent or {FAKE_KEY!r} in str(os.environ)))
grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
open("grandchild", "w").write(str(grandchild.pid))
"""
STUBBORN = """
import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open("ready", "w").write(str(os.getpid()))
time.sleep(60)
"""


def _wrap(folder: Path, script: str) -> subprocess.Popen[str]:
    (folder / "harness.py").write_text(script)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_"))}
    command = ["-m", "analyzer.cli", "wrap", "--out", "w.altk_runs.json", "--", sys.executable, "harness.py"]
    return subprocess.Popen(
        [sys.executable, *command],
        cwd=folder,
        env={**env, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": FAKE_KEY},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its reaper does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(pid)


def _wait_for(path: Path, wrap: subprocess.Popen[str], seconds: float = 60) -> int:
    deadline = time.monotonic() + seconds
    while not path.exists() or not path.read_text():
        assert time.monotonic() < deadline and wrap.poll() is None, "the harness never started"
        time.sleep(0.05)
    return int(path.read_text())


@contextlib.contextmanager
def _cleanup(*pids: list[int]) -> Iterator[None]:
    try:
        yield
    finally:
        for found in pids:
            for pid in found:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def test_the_harness_reads_no_key_from_its_parent_and_what_it_started_is_ended(tmp_path: Path) -> None:
    started: list[int] = []
    wrap = _wrap(tmp_path, SNOOP)
    with _cleanup(started):
        _, err = wrap.communicate(timeout=90)
        started.append(int((tmp_path / "grandchild").read_text()))
        assert (tmp_path / "saw_key").read_text() == "False", "the harness read the key from wrap"
        assert not _alive(started[0]), "the harness's own child outlived wrap"
    assert wrap.returncode == 0, err[-500:]


def test_a_harness_ignoring_sigterm_is_killed_after_the_grace_period(tmp_path: Path) -> None:
    wrap = _wrap(tmp_path, STUBBORN)
    harness: list[int] = []
    with _cleanup(harness, [wrap.pid]):
        harness.append(_wait_for(tmp_path / "ready", wrap))
        wrap.send_signal(signal.SIGTERM)
        wrap.communicate(timeout=STOP_GRACE_S + 30)
        assert not _alive(harness[0])
    assert '"kind": "end"' in (tmp_path / "w.proxy.jsonl").read_text()  # wrap closed its journal


def test_a_kill_9_of_wrap_takes_the_harness_with_it(tmp_path: Path) -> None:
    wrap = _wrap(tmp_path, STUBBORN)
    harness: list[int] = []
    with _cleanup(harness, [wrap.pid]):
        harness.append(_wait_for(tmp_path / "ready", wrap))
        wrap.kill()
        wrap.wait(timeout=10)
        assert _gone_within(harness[0], 10), "the harness kept running without its proxy"
