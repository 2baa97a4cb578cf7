"""The commands that write a log (run, rerun, resample, wrap, audit) index it into the history."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from analyzer.runner.out_folder import runs_folder
from analyzer.safety.terminal_text import visible


def index_logs(args: argparse.Namespace, logs: Sequence[Path | None]) -> None:
    """Index the logs a command just wrote into their runs folder's history, unless `--no-history`;
    a failure is one warning line on stderr, never the command's failure."""
    from analyzer.history.on_write import history_wanted, index_written  # the SQL layer only when used

    if history_wanted(getattr(args, "no_history", False)):
        index_written(logs, runs_folder(), _warn)


def _warn(message: str) -> None:
    print(f"rerunlens: warning: {visible(message)}", file=sys.stderr, flush=True)
