"""`rerunlens rerun --through harness`: the selected tasks re-run by their own harness on the pinned
route (under `wrap`), then the before/after verdict of the agent against itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.errors import RerunLensError
from analyzer.importers import load_any
from analyzer.log.model import RunLog
from analyzer.proxy.harness_rerun import harness_command
from analyzer.proxy.session import ProxyRequest
from analyzer.proxy.wrap import WrapOutcome, WrapRequest, wrap
from analyzer.verdicts.before_after import compare_before_after


@dataclass(frozen=True)
class ThroughRequest:
    """A re-run through the parent's harness."""

    parent: RunLog
    ids: list[str]
    rounds: int
    proxy: ProxyRequest
    out: Path
    confirm: Callable[[str], bool] | None = None
    """Asked the command's `question()` before it runs, after the command is shown; None or a no:
    nothing runs. Its own consent: confirming a log's host (`--yes`) never confirms running its code."""
    output_to_stderr: bool = False
    """The harness's own output goes to stderr (`--json` keeps stdout for the report)."""


@dataclass
class ThroughReport:
    harness: str
    command: str
    """The exact harness command run (quoted), as the dashboard shows it."""
    outcome: WrapOutcome
    frame: pd.DataFrame | None

    def to_json(self) -> dict[str, Any]:
        """The report as `rerun --through harness --json` prints it (`tasks` as a prompt re-run's)."""
        out = self.outcome.out
        return {
            "through": self.harness,
            "command": self.command,
            "returncode": self.outcome.returncode,
            "path": str(out) if out is not None else None,
            "lines": self.outcome.lines,
            "tasks": json.loads(self.frame.to_json(orient="records")) if self.frame is not None else [],
        }


def rerun_through(request: ThroughRequest, echo: Callable[[str], None]) -> ThroughReport:
    """Run the parent's harness on the selected tasks, wrapped; compare before and after."""
    folder = request.out.with_name(request.out.name.split(".")[0] + ".harness")
    command = harness_command(request.parent, request.ids, request.rounds, folder)
    echo(f"the re-run through {command.kind} would run: {command.shown()}")  # shown before the question
    question = command.question()
    if request.confirm is None or not request.confirm(question):
        raise RerunLensError(f"{question}: not run (confirm with --run-harness, or answer y on a terminal)")
    command.write_files()
    wrapped = WrapRequest(
        command.command,
        request.proxy,
        request.out,
        harness_log=command.harness_log,
        cwd=command.cwd,
        output_to_stderr=request.output_to_stderr,
    )
    outcome = wrap(wrapped, echo)
    frame = None
    if outcome.out is not None:
        frame = compare_before_after(request.parent, load_any(outcome.out).log, request.ids)
    return ThroughReport(command.kind, command.shown(), outcome, frame)
