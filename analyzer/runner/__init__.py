"""The runner: plan a run, run it through a pinned route, check a route, re-run unstable tasks.

- `plan`: a run as one value (`RunPlan`), built new or from a journal; `RunControls` for its lifetime.
- `run`: `run_plan`, the one function that runs a plan.
- `schedule`: the worker pool; `results`: an executor's output as a `Result`; `journal`: checkpoints.
- `pinned_rerun`: a re-run's plan from a parent log, and its before/after report.
- `rerun_route`: what a re-run takes from its parent (provider, sampling, scenario) and pins besides.
- `resample`: one task's recorded conversation replayed up to each step and the step sampled again.
- `preflight`: one minimal completion and a diagnosis; `embedded`: where calls go (maybe the simulator).
- `client`, `transport`: the pinned SDK client and every HTTP attempt recorded (keys scrubbed by
  `analyzer.safety.scrub`); `executors`: what running one task means; `progress`: the progress bar.

Names load lazily so importing the package does not pay for the SDK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from analyzer.runner.executors import ExecutorResult, default_executor, load_executor
    from analyzer.runner.journal import journal_path
    from analyzer.runner.pinned_rerun import RerunReport, default_rerun_path, select_tasks
    from analyzer.runner.plan import RunControls, RunPlan, new_plan, plan_from_journal
    from analyzer.runner.preflight import Diagnosis, check_route
    from analyzer.runner.progress import Progress, TerminalProgress
    from analyzer.runner.results import grade
    from analyzer.runner.run import RunOutcome, run_plan

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
    "select_tasks": "pinned_rerun",
    "RunControls": "plan",
    "RunPlan": "plan",
    "new_plan": "plan",
    "plan_from_journal": "plan",
    "grade": "results",
    "RunOutcome": "run",
    "run_plan": "run",
}

__all__ = [
    "Diagnosis",
    "ExecutorResult",
    "Progress",
    "RerunReport",
    "RunControls",
    "RunOutcome",
    "RunPlan",
    "TerminalProgress",
    "check_route",
    "default_executor",
    "default_rerun_path",
    "grade",
    "journal_path",
    "load_executor",
    "new_plan",
    "plan_from_journal",
    "run_plan",
    "select_tasks",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'analyzer.runner' has no attribute {name!r}")
    return getattr(importlib.import_module(f"analyzer.runner.{_WHERE[name]}"), name)
