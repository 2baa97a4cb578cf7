"""Commands that stand the recording proxy up: proxy (until Ctrl-C) and wrap (around one command)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import analyzer.numbers as numbers
from analyzer.cli.consent import terminal_question
from analyzer.cli.history_on_write import index_logs
from analyzer.cli.route_args import profile_from_args, scenario_from_args
from analyzer.errors import RerunLensError
from analyzer.log.model import RunLog
from analyzer.proxy.harness_rerun import PROMPT_ONLY, harness_of
from analyzer.proxy.session import ProxyRequest, proxied, shell_lines
from analyzer.proxy.through import ThroughRequest, rerun_through
from analyzer.proxy.wrap import WrapRequest
from analyzer.proxy.wrap import wrap as wrap_command
from analyzer.runner.pinned_rerun import Selection, select_tasks
from analyzer.safety.terminal_text import json_text, visible, visible_lines
from analyzer.verdicts.rerun_sentences import before_after_lines


def _stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def _request(args: argparse.Namespace, journal: Path) -> ProxyRequest:
    port = getattr(args, "port", 0)
    if not 0 <= port <= 65535:
        raise RerunLensError(f"--port {port}: a port is 0 to 65535 (0 picks a free one)")
    return ProxyRequest(
        profile=profile_from_args(args),
        journal=journal,
        scenario=scenario_from_args(args),
        port=port,
        keep_bodies=getattr(args, "keep_bodies", False),
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
    print(f"{journal}  {numbers.counted(server.journal.attempts, 'attempt')}", flush=True)
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
    index_logs(args, [outcome.out])
    summary = {"log": str(outcome.out), "journal": str(outcome.journal), "returncode": outcome.returncode}
    _echo(json.dumps(summary))
    return outcome.returncode


def _echo(line: str) -> None:
    """One line on stderr, control characters shown as escapes (a command built from a log's data is
    shown before its question: no escape sequence in a model name may redraw it)."""
    print(f"rerunlens: {visible(line)}", file=sys.stderr, flush=True)


def _run_consent(args: argparse.Namespace) -> Callable[[str], bool] | None:
    """`--run-harness`, else a question on an interactive terminal, else None (the harness does not
    run). `--yes` confirms a log's host only, never the code the log names."""
    if getattr(args, "run_harness", False):
        return lambda question: True
    return terminal_question("Run it?")


def rerun_through_harness(args: argparse.Namespace, parent: RunLog, only: Selection, out: Path) -> int | None:
    """`rerun --through`: the exit code of a re-run through the harness, or None when the re-run is
    prompt only (asked for, or `auto` with no harness here), which then says so in one line."""
    choice = getattr(args, "through", "prompt")
    made_by = harness_of(parent)
    if choice == "prompt" or made_by is None:
        if made_by is not None:
            _echo(f"{PROMPT_ONLY} (the log was made by {made_by[0]}; --through harness re-runs the agent)")
        return None
    if getattr(args, "with_parent_route", False):
        raise RerunLensError(
            f"--with-parent-route runs prompt-only rounds; the log was made by {made_by[0]}: add --through "
            "prompt to re-run the prompts on the parent's route, or drop --with-parent-route"
        )
    ids = select_tasks(parent, only)
    as_json = bool(getattr(args, "json", False))
    request = ThroughRequest(
        parent,
        ids,
        args.rounds or len(parent.runs),
        _request(args, Path(f"{out}.proxy.jsonl")),
        out,
        confirm=_run_consent(args),
        output_to_stderr=as_json,
    )
    try:
        report = rerun_through(request, _echo)
    except RerunLensError as err:
        if choice == "harness":
            raise
        _echo(f"{err}; {PROMPT_ONLY}")
        return None
    for line in report.outcome.lines:
        _echo(line)
    if as_json:
        print(json_text(report.to_json()))
    else:
        if report.frame is not None:
            print(visible_lines(before_after_lines(report.frame)))
        print(f"\n{report.outcome.out}  through {made_by[0]}  exit {report.outcome.returncode}")
    return 0 if report.outcome.out is not None else 1
