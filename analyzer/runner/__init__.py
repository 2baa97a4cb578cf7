"""The runner: run tasks through a pinned route, check a route, re-run unstable tasks.

Names load lazily so `rerunlens --help` does not pay for importing the SDK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from analyzer.runner.executors import ExecutorResult, default_executor, load_executor
    from analyzer.runner.journal import journal_path
    from analyzer.runner.pinned_rerun import RerunReport, default_rerun_path, rerun, select_tasks
    from analyzer.runner.preflight import Diagnosis, check_route
    from analyzer.runner.progress import Progress, TerminalProgress
    from analyzer.runner.run import RunOutcome, grade, run_tasks

_WHERE = {
    "Diagnosis": "preflight",
    "check_route": "preflight",
    "ExecutorResult": "executors",
    "default_executor": "executors",
    "load_executor": "executors",
    "journal_path": "journal",
    "Progress": "progress",
    "TerminalProgress": "progress",
    "RerunReport": "pinned_rerun",
    "default_rerun_path": "pinned_rerun",
    "rerun": "pinned_rerun",
    "select_tasks": "pinned_rerun",
    "RunOutcome": "run",
    "grade": "run",
    "run_tasks": "run",
}

__all__ = [
    "Diagnosis",
    "ExecutorResult",
    "Progress",
    "RerunReport",
    "RunOutcome",
    "TerminalProgress",
    "check_route",
    "default_executor",
    "default_rerun_path",
    "grade",
    "journal_path",
    "load_executor",
    "rerun",
    "run_tasks",
    "select_tasks",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'analyzer.runner' has no attribute {name!r}")
    return getattr(importlib.import_module(f"analyzer.runner.{_WHERE[name]}"), name)
