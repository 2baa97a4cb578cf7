"""`rerunlens dashboard` passes SIGTERM and SIGINT on to Streamlit: stopping it leaves nothing running
and frees the port. Every test stops what it started in a `finally`, even when a signal is ignored."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _ignore_sigint() -> None:
    """What a shell does for a background job (`cmd &`, nohup under some shells): SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _launcher(child: str, grace: float = 10.0, background: bool = False) -> subprocess.Popen[bytes]:
    """A process running `run_forwarding` over a Python child given as code."""
    code = (
        "import sys; from analyzer.child_process import run_forwarding; "
        f"sys.exit(run_forwarding([sys.executable, '-c', {child!r}], grace_s={grace}))"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, env=ENV, preexec_fn=_ignore_sigint if background else None
    )


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) from /proc, or None when the process is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, ppid = text.rsplit(")", 1)[1].split()[:2]
    return state, int(ppid)


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    stats = {int(d.name): _stat(int(d.name)) for d in Path("/proc").iterdir() if d.name.isdigit()}
    parents = [pid]
    while parents:
        kids = [p for p, st in stats.items() if st is not None and st[1] in parents and p not in found]
        found += kids
        parents = kids
    return found


def _children(proc: subprocess.Popen[bytes], timeout: float = 30.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = _descendants(proc.pid)
        if kids:
            return kids
        time.sleep(0.05)
    raise AssertionError("the launcher started no child")


def _running(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] != "Z"


def _stop_all(proc: subprocess.Popen[bytes], kids: list[int]) -> None:
    """Kill whatever is still running (the test's own safety net, whatever the signal did)."""
    for pid in kids:
        if _running(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    proc.wait(timeout=10)


def _gone(kids: list[int], timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while any(_running(k) for k in kids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


SLEEPER = "import time; print('up', flush=True); time.sleep(120)"
STUBBORN = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(120)"
)


@pytest.mark.parametrize("background", [False, True], ids=["foreground", "sigint-ignored"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_launcher_stops_its_child(sig: signal.Signals, background: bool) -> None:
    proc = _launcher(SLEEPER, background=background)
    kids: list[int] = []
    try:
        kids = _children(proc)
        time.sleep(0.5)  # the handlers are installed right after the child starts
        proc.send_signal(sig)
        assert proc.wait(timeout=15) == 128 + sig  # the child died of the forwarded signal
        assert _gone(kids)
    finally:
        _stop_all(proc, kids)


def test_a_child_that_ignores_the_signal_is_killed_after_the_grace() -> None:
    proc = _launcher(STUBBORN, grace=1.0)
    kids: list[int] = []
    try:
        kids = _children(proc)
        time.sleep(0.5)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 128 + signal.SIGKILL
        assert 1.0 <= time.monotonic() - started < 10.0
        assert _gone(kids)
    finally:
        _stop_all(proc, kids)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_sigterm_to_rerunlens_dashboard_stops_streamlit_and_frees_the_port(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "analyzer.cli", "dashboard", "--port", str(port), "--runs-dir", str(tmp_path)],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    kids: list[int] = []
    try:
        kids = _children(proc)
        deadline = time.monotonic() + 90
        while not _listening(port):
            assert proc.poll() is None, "the dashboard exited early"
            assert time.monotonic() < deadline, "the dashboard never listened"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        assert _gone(kids), [k for k in kids if _running(k)]
        assert not _listening(port)
        with socket.socket() as s:  # the port is free again
            s.bind(("127.0.0.1", port))
    finally:
        _stop_all(proc, kids)
