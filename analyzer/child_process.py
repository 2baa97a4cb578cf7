"""Running a child process to its end with signals passed on, so stopping this process stops the
child and nothing is left running (the dashboard launcher, `rerunlens wrap`).

On Linux the child also dies when this process is killed outright (`kill -9`: PR_SET_PDEATHSIG),
and this process adopts the child's orphans (PR_SET_CHILD_SUBREAPER), so what the child started and
left behind is ended when the child ends. Elsewhere both are skipped.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import FrameType

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""Signals passed on to the child by default, so stopping this process stops what it started."""

STOP_GRACE_S = 10.0
"""How long the child has to stop after a forwarded signal before it is killed."""
ORPHAN_GRACE_S = 2.0
"""How long what the child left running has to stop after SIGTERM before it is killed."""
_PR_SET_PDEATHSIG, _PR_GET_DUMPABLE, _PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER = 1, 3, 4, 36


def _libc() -> ctypes.CDLL | None:
    """The C library, for prctl (Linux only)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def run_forwarding(
    command: Sequence[str],
    grace_s: float | None = STOP_GRACE_S,
    env: Mapping[str, str] | None = None,
    *,
    cwd: Path | None = None,
    forwarded: tuple[signal.Signals, ...] = FORWARDED,
    stdout: int | None = None,
) -> int:
    """Run `command` as a child and wait for it; the `forwarded` signals sent to this process are
    passed on to it, and SIGINT, when not forwarded, is ignored here (a terminal sends it to the
    child as well). Whatever happens, the child is not left running: if it has not stopped `grace_s`
    after a signal (None: wait for it), or when this process is interrupted, it is killed.
    `stdout`: a file descriptor for the child's output (None: this process's stdout).

    Returns:
        The child's exit code; 128 + N when a forwarded signal N ended it.
    """
    children: list[subprocess.Popen[bytes]] = []
    received: list[int] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signum)

    # handlers first: a caught signal is reset to its default in the child, where an ignored one
    # (SIGINT in a background job) would stay ignored and the forwarded signal would do nothing
    previous = {sig: signal.signal(sig, forward) for sig in forwarded}
    libc = _libc()
    before = _adopting_orphans(libc)
    try:
        child = subprocess.Popen(
            list(command), env=env, cwd=cwd, stdout=stdout, preexec_fn=_dies_with(os.getpid(), libc)
        )
    except BaseException:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        raise
    if signal.SIGINT not in forwarded:  # after the start: the child keeps its own Ctrl-C
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.SIG_IGN)
    children.append(child)
    for signum in received:  # arrived while it was starting
        child.send_signal(signum)
    deadline: float | None = None
    try:
        while True:
            try:
                code = child.wait(timeout=0.2)  # short waits: a handler runs between them
                break
            except subprocess.TimeoutExpired:
                if received and deadline is None and grace_s is not None:
                    deadline = time.monotonic() + grace_s
                if deadline is not None and time.monotonic() >= deadline:
                    child.kill()  # the signal was passed on and ignored
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if child.poll() is None:
            child.kill()
            child.wait()
        if before is not None and libc is not None:
            _end_orphans(before)
            libc.prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    return 128 - code if code < 0 else code


def _adopting_orphans(libc: ctypes.CDLL | None) -> set[int] | None:
    """Become the subreaper of what the child starts; the children we had before (None: not done)."""
    if libc is None or libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        return None
    return _children()


def _dies_with(parent: int, libc: ctypes.CDLL | None) -> Callable[[], None] | None:
    """What the child runs before its command: ask for SIGKILL when its parent dies (and die now if
    the parent already has). The C library is loaded here, before the fork."""
    if libc is None:
        return None

    def arrange() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    return arrange


def _children() -> set[int]:
    """This process's child processes (from /proc: its orphans adopted as subreaper included)."""
    me, found = os.getpid(), set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == me:
            found.add(int(entry.name))
    return found


def _end_orphans(before: set[int]) -> None:
    """End what the child left running (adopted here): SIGTERM, then SIGKILL after `ORPHAN_GRACE_S`;
    each one's own orphans are adopted as it ends and ended in turn."""
    deadline = time.monotonic() + ORPHAN_GRACE_S
    for _ in range(int((ORPHAN_GRACE_S + 3) / 0.05)):
        left = _children() - before
        if not left:
            return
        stop = signal.SIGTERM if time.monotonic() < deadline else signal.SIGKILL
        for pid in left:
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                os.kill(pid, stop)
                os.waitpid(pid, os.WNOHANG)
        time.sleep(0.05)


@contextlib.contextmanager
def private_memory() -> Iterator[None]:
    """This process non-dumpable for the duration (Linux): a process of the same user (a child) can
    no longer read its memory or its /proc files, where the key lives. Root can, whatever is done."""
    libc = _libc()
    was = libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0) if libc is not None else -1
    if libc is not None:
        libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    try:
        yield
    finally:
        if libc is not None and was in (1, 2):
            libc.prctl(_PR_SET_DUMPABLE, was, 0, 0, 0)


def forget_initial_environ(values: list[str]) -> None:
    """Overwrite each value in this process's initial environment block, the one /proc/PID/environ
    shows whatever `os.environ` now holds (Linux); `os.environ` itself is the caller's to change."""
    if _libc() is None or not values:
        return
    try:
        stat = Path("/proc/self/stat").read_bytes()
        fields = stat[stat.rfind(b")") + 2 :].split()
        start, end = int(fields[47]), int(fields[48])  # env_start, env_end: fields 50 and 51
        block = Path("/proc/self/environ").read_bytes()
    except (OSError, ValueError, IndexError):
        return
    if len(block) != end - start:
        return
    for value in {v.encode() for v in values if v}:
        at = block.find(value)
        while at >= 0:
            ctypes.memset(start + at, ord("x"), len(value))
            at = block.find(value, at + len(value))
