"""Running a child process to its end with signals passed on, so stopping this process stops the
child and nothing is left running (the dashboard launcher, `rerunlens wrap`)."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""Signals passed on to the child by default, so stopping this process stops what it started."""

STOP_GRACE_S = 10.0
"""How long the child has to stop after a forwarded signal before it is killed."""


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
    try:
        child = subprocess.Popen(list(command), env=env, cwd=cwd, stdout=stdout)
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
    return 128 - code if code < 0 else code
