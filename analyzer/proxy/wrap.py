"""`rerunlens wrap`: run a harness's own command through the recording proxy, then join its log.

The child gets the base-URL and key variables pointed at the proxy (the local token as its key);
the route's key variables, and any variable holding a key, are not passed on. Nor can it read them
from us: the key is read once, then removed from our environment (and overwritten where
/proc/PID/environ shows it), and our memory is made private. Its output is its own (inherited),
SIGTERM and SIGHUP are forwarded (killed `STOP_GRACE_S` after one if it does not stop), and Ctrl-C
reaches it from the terminal as it reaches us (we wait for it to finish).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import analyzer.numbers as numbers
from analyzer.atomic import write_text_atomic
from analyzer.child_process import (
    STOP_GRACE_S,
    forget_initial_environ,
    private_memory,
    run_forwarding,
)
from analyzer.errors import LogError, RerunLensError
from analyzer.importers import load_any, native_text
from analyzer.importers.common import Source
from analyzer.importers.proxy_journal import parse_lines
from analyzer.log.loader import MAX_LOG_BYTES
from analyzer.proxy.harness_calls import harness_calls
from analyzer.proxy.harness_logs import HarnessLog, find_harness_log
from analyzer.proxy.join import JoinReport, join_log
from analyzer.proxy.server import RecordingProxy
from analyzer.proxy.session import ProxyRequest, proxied
from analyzer.safety.bounded_read import read_file
from analyzer.safety.keys import read_keys
from analyzer.safety.scrub import scrub

FORWARDED = (signal.SIGTERM, signal.SIGHUP)


@dataclass(frozen=True)
class WrapRequest:
    """A command to run on a pinned route, and where its log goes."""

    command: list[str]
    proxy: ProxyRequest
    out: Path
    harness_log: Path | None = None
    """The harness's log when named (`--log`); else found from the command (Inspect, promptfoo)."""
    cwd: Path | None = None
    output_to_stderr: bool = False
    """The child's output goes to stderr, so stdout holds only what we print (`--json`)."""


@dataclass
class WrapOutcome:
    """What a wrapped run left behind."""

    returncode: int
    journal: Path
    out: Path | None
    harness: HarnessLog | None
    join: JoinReport | None = None
    lines: list[str] = field(default_factory=list)


def child_env(proxy: RecordingProxy, key_envs: list[str], secrets: list[str]) -> dict[str, str]:
    """The child's environment: ours, without the route's keys, pointed at the proxy."""
    env = {
        name: value for name, value in os.environ.items() if not _holds_key(name, value, key_envs, secrets)
    }
    env.update(proxy.client_env())
    return env


def _holds_key(name: str, value: str, key_envs: list[str], secrets: list[str]) -> bool:
    return name in key_envs or bool(secrets and scrub(value, secrets) != value)


@contextlib.contextmanager
def keys_out_of_reach(key_envs: list[str], secrets: list[str]) -> Iterator[None]:
    """While the child runs, no variable of ours holds a key and our memory is private; the
    variables are put back afterwards (for a caller in the same process)."""
    held = {k: v for k, v in os.environ.items() if _holds_key(k, v, key_envs, secrets)}
    for name in held:
        del os.environ[name]
    forget_initial_environ(secrets)
    try:
        with private_memory():
            yield
    finally:
        os.environ.update(held)


def run_child(
    command: list[str], env: dict[str, str], cwd: Path | None = None, to_stderr: bool = False
) -> int:
    """Run the command to its end, forwarding SIGTERM and SIGHUP (SIGINT reaches it from the
    terminal; killed if it has not stopped `STOP_GRACE_S` after a forwarded signal); its exit code
    (128 + N when a signal N ended it, as a shell reports it)."""
    try:
        stdout = sys.stderr.fileno() if to_stderr else None
        return run_forwarding(command, STOP_GRACE_S, env, cwd=cwd, forwarded=FORWARDED, stdout=stdout)
    except FileNotFoundError:
        raise RerunLensError(f"wrap: {shlex.quote(command[0])}: command not found") from None
    except PermissionError:
        raise RerunLensError(f"wrap: {shlex.quote(command[0])}: not executable") from None


def wrap(request: WrapRequest, echo: Callable[[str], None]) -> WrapOutcome:
    """Run the command through the proxy; write one log (joined, or the journal alone)."""
    if not request.command:
        raise RerunLensError("wrap: give the command to run after `--`")
    if request.out.exists():
        raise RerunLensError(f"{request.out}: already exists; choose another --out (nothing was run)")
    profile = request.proxy.profile
    keys = read_keys(profile.key_envs())
    secrets = keys.secrets()
    started = time.time()
    with keys_out_of_reach(profile.key_envs(), secrets), proxied(request.proxy, echo, keys) as proxy:
        env = child_env(proxy, profile.key_envs(), secrets)
        code = run_child(request.command, env, request.cwd, to_stderr=request.output_to_stderr)
    refused, attempts = proxy.refused, proxy.journal.attempts  # stopped: every attempt written, counted
    harness = find_harness_log(request.command, request.harness_log, started, request.cwd)
    outcome = WrapOutcome(code, request.proxy.journal, None, harness)
    if refused:
        outcome.lines.append(
            f"the proxy refused {numbers.counted(refused, 'request')} without the local token"
        )
    if harness is None and attempts == 0:
        outcome.lines.append("no harness log found and no call reached the proxy: no log written")
        return outcome
    if harness is None:
        outcome.lines.append("no harness log found: the journal alone is the log (one result per call)")
        log = load_any(request.proxy.journal).log
    else:
        if harness.others:
            outcome.lines.append(
                f"{numbers.counted(harness.others, 'other new log')} beside {harness.path}; only it is joined"
            )
        outcome.join = JoinReport(harness.kind)
        calls = harness_calls(harness.kind, harness.path)
        log = join_log(
            load_any(harness.path).log, calls, journal_records(request.proxy.journal), outcome.join
        )
        log = log.model_copy(update={"wrapped": _provenance(request, harness, outcome.join)})
        outcome.lines += outcome.join.lines()
    outcome.out = write_text_atomic(request.out, scrub(native_text(log), secrets))
    return outcome


def journal_records(path: Path) -> list[dict[str, Any]]:
    """A journal's records, read through the bounded reader."""
    data = read_file(path, MAX_LOG_BYTES, "proxy journal", LogError)
    return parse_lines(data.decode("utf-8", "replace"), Source(str(path)))["records"]


def _provenance(request: WrapRequest, harness: HarnessLog, report: JoinReport) -> dict[str, object]:
    return {
        "join": report.to_json(),
        "command": shlex.join(request.command),
        "harness": harness.kind,
        "harness_log": str(harness.path),
        "journal": str(request.proxy.journal),
        "cwd": str(request.cwd or Path.cwd()),
    }
