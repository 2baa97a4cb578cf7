"""`rerunlens history` and `rerunlens monitor`: a few lines each over `analyzer.history`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analyzer.cli.route_args import profile_from_args, scenario_from_args
from analyzer.errors import RerunLensError
from analyzer.history import HistoryRequest, load_history
from analyzer.history.monitor import MonitorPlan, cost_per_day, parse_interval
from analyzer.history.monitor import monitor as run_monitor
from analyzer.history.query import runs_folder
from analyzer.history.render import history_json, history_lines
from analyzer.log.taskfile import load_tasks
from analyzer.runner.plan import RunControls
from analyzer.safety.terminal_text import json_text, visible_lines


def history(args: argparse.Namespace) -> int:
    """`rerunlens history`: index the logs, print the task set's history; exit 1 on a gated regression."""
    result = load_history(HistoryRequest(list(args.sources), args.db, args.task_set, args.rebuild))
    if args.json:
        print(json_text(history_json(result.history, result.others)))
    else:
        print(visible_lines(history_lines(result.history, result.others)))
        indexed = result.indexed
        print(
            f"\nhistory {result.shown_url}: {len(indexed.read)} log(s) read, {indexed.unchanged} unchanged"
            + (f", {len(indexed.not_logs)} file(s) not logs" if indexed.not_logs else "")
        )
    gate = result.history.gate
    if args.fail_on_regression and gate["tripped"]:
        print(f"rerunlens: {gate['run_id']} regressed: {'; '.join(gate['reasons'])}", file=sys.stderr)
        return 1
    return 0


def monitor(args: argparse.Namespace) -> int:
    """`rerunlens monitor`: the cost a day first, then a probe every interval; exit 1 after an alert."""
    if args.samples < 1:
        raise RerunLensError("--samples: at least 1")
    plan = MonitorPlan(
        tasks=load_tasks(args.tasks),
        profile=profile_from_args(args),
        every_s=parse_interval(args.every),
        samples=args.samples,
        folder=Path(args.state_dir) if args.state_dir else runs_folder([]) / "monitor",
        db_url=args.db,
        against=Path(args.against) if args.against else None,
        webhook=args.webhook,
        max_probes=args.max_probes,
        scenario=scenario_from_args(args),
        usd_per_million_tokens=args.usd_per_million_tokens,
    )
    print(cost_per_day(plan), file=sys.stderr)
    return run_monitor(plan, RunControls(echo=_echo))


def _echo(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
