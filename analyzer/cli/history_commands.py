"""`rerunlens history` and `rerunlens monitor`: a few lines each over `analyzer.history`."""

from __future__ import annotations

import argparse
import sys

from analyzer.history import HistoryRequest, load_history
from analyzer.history.render import history_json, history_lines
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
