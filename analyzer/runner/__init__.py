"""The runner: run tasks through a pinned route, check a route, re-run unstable tasks."""

from analyzer.runner.executors import ExecutorResult, default_executor, load_executor
from analyzer.runner.journal import journal_path
from analyzer.runner.progress import Progress, TerminalProgress
from analyzer.runner.run import RunOutcome, grade, run_tasks

__all__ = [
    "ExecutorResult",
    "Progress",
    "RunOutcome",
    "TerminalProgress",
    "default_executor",
    "grade",
    "journal_path",
    "load_executor",
    "run_tasks",
]
