"""Commands that stand the recording proxy up: proxy (until Ctrl-C) and wrap (around one command)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path

from analyzer.cli.route_args import profile_from_args, scenario_from_args
from analyzer.errors import RerunLensError
from analyzer.proxy.session import ProxyRequest, proxied, shell_lines
from analyzer.proxy.wrap import WrapRequest
from analyzer.proxy.wrap import wrap as wrap_command


def _stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def _request(args: argparse.Namespace, journal: Path) -> ProxyRequest:
    if not 0 <= args.port <= 65535:
        raise RerunLensError(f"--port {args.port}: a port is 0 to 65535 (0 picks a free one)")
    return ProxyRequest(
        profile=profile_from_args(args),
        journal=journal,
        scenario=scenario_from_args(args),
        port=args.port,
        keep_bodies=args.keep_bodies,
        label=args.label,
    )


def proxy(args: argparse.Namespace) -> int:
    """`rerunlens proxy`: the recording endpoint until Ctrl-C or SIGTERM."""
    journal = Path(args.journal or f"runs/proxy-{_stamp()}.proxy.jsonl")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with proxied(_request(args, journal), _echo) as server:
        print(f"RerunLens proxy on {server.base_url}, journal {journal}; Ctrl-C stops it.", flush=True)
        print("\n".join(shell_lines(server)), flush=True)
        stop.wait()
    print(f"{journal}  {server.journal.attempts} attempt(s)", flush=True)
    return 0


def wrap(args: argparse.Namespace) -> int:
    """`rerunlens wrap -- COMMAND`: the command on the pinned route, then one joined log."""
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    out = Path(args.out or f"runs/wrap-{_stamp()}.altk_runs.json")
    journal = Path(args.journal) if args.journal else out.with_name(out.name.split(".")[0] + ".proxy.jsonl")
    request = WrapRequest(
        command=command,
        proxy=_request(args, journal),
        out=out,
        harness_log=Path(args.log) if args.log else None,
    )
    outcome = wrap_command(request, _echo)
    for line in outcome.lines:
        _echo(line)
    summary = {"log": str(outcome.out), "journal": str(outcome.journal), "returncode": outcome.returncode}
    _echo(json.dumps(summary))
    return outcome.returncode


def _echo(line: str) -> None:
    print(f"rerunlens: {line}", file=sys.stderr, flush=True)
