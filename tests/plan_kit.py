"""Run a plan in one call from a test, with keyword names that say what each test varies.

Builds the `RunPlan` the CLI and the dashboard would build (a new one, or one rebuilt from a
journal with `resume=True`) and runs it, so runner tests read as one line each.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.jobs.manager import JobManager, JobStatus
from analyzer.log.loader import load_path
from analyzer.log.model import RunLog, TaskSpec
from analyzer.metrics.answer_keys import AnswerKey
from analyzer.routes.profile import RouteProfile
from analyzer.runner.pinned_rerun import RerunReport, RerunRequest, Selection, rerun_plan
from analyzer.runner.pinned_rerun import rerun as run_rerun
from analyzer.runner.plan import (
    Provenance,
    ResumeRequest,
    RunControls,
    Simulation,
    new_plan,
    plan_from_journal,
    with_label,
)
from analyzer.runner.progress import Progress
from analyzer.runner.run import RunOutcome, run_plan
from analyzer.safety.keys import read_keys
from analyzer.simulator import Scenario
from analyzer.verdicts.before_after import compare_files


def run_tasks(
    tasks: Sequence[TaskSpec] | None,
    profile: RouteProfile | None,
    out: str | Path,
    *,
    rounds: int | None = None,
    executor: Any = None,
    resume: bool = False,
    label: str | None = None,
    run_id: str | None = None,
    progress: Callable[[Progress], None] | None = None,
    cancel: threading.Event | None = None,
    api_key: str | None = None,
    api_keys: list[str] | None = None,
    scenario: Scenario | None = None,
    echo: Callable[[str], None] | None = None,
) -> RunOutcome:
    """Build the plan (new, or from the journal beside `out`) and run it."""
    controls = RunControls(progress, cancel or threading.Event(), echo)
    if resume:
        ask = ResumeRequest(profile, tasks, rounds, api_key, executor, scenario)
        return run_plan(with_label(plan_from_journal(out, ask), label), controls)
    assert profile is not None and tasks is not None
    keys = read_keys(profile.key_envs(), session_key=api_key, rotation=api_keys)
    provenance = Provenance(label=label, **({"run_id": run_id} if run_id else {}))
    plan = new_plan(
        tasks,
        profile,
        out,
        keys=keys,
        rounds=rounds,
        provenance=provenance,
        executor=executor,
        simulation=Simulation(scenario),
    )
    return run_plan(plan, controls)


def rerun(
    parent: RunLog,
    only: Selection,
    *,
    profile: RouteProfile,
    out: str | Path,
    rounds: int | None = None,
    source: str | Path | None = None,
) -> RerunReport:
    """Plan a re-run of `only` in `parent` and run it, as `rerunlens rerun` does."""
    request = RerunRequest(parent, only, source)
    return run_rerun(request, rerun_plan(request, profile, out, rounds=rounds))


def start_run(
    mgr: JobManager,
    tasks: Sequence[TaskSpec],
    profile: RouteProfile,
    *,
    rounds: int | None = None,
    label: str | None = None,
    api_key: str | None = None,
    scenario: Scenario | None = None,
    executor: str | None = None,
) -> JobStatus:
    """Start a run job as the New run page does: a plan into a fresh file of the runs folder."""
    keys = read_keys(profile.key_envs(), session_key=api_key)
    plan = new_plan(
        tasks,
        profile,
        mgr.new_out(),
        keys=keys,
        rounds=rounds,
        provenance=Provenance(label=label),
        executor=executor,
        simulation=Simulation(scenario),
    )
    return mgr.start_run(plan)


def start_rerun(
    mgr: JobManager,
    parent: str | Path,
    only: Selection,
    profile: RouteProfile,
    *,
    rounds: int | None = None,
    api_key: str | None = None,
    scenario: Scenario | None = None,
    tasks_file: str | Path | None = None,
    key: AnswerKey = "exact",
) -> JobStatus:
    """Start a re-run job as the Re-run page does."""
    request = RerunRequest(load_path(parent).log, only, str(parent), tasks_file, key)
    keys = read_keys(profile.key_envs(), session_key=api_key)
    out = mgr.new_out(Path(parent).name.removesuffix(".json").removesuffix(".altk_runs") + ".rerun")
    plan = rerun_plan(request, profile, out, rounds=rounds, keys=keys, simulation=Simulation(scenario))
    return mgr.start_rerun(request, plan)


def job_before_after(mgr: JobManager, job_id: str, key: str = "exact") -> pd.DataFrame:
    """A finished re-run job's before/after, as the dashboard computes it."""
    status = mgr.finished_rerun(job_id)
    return compare_files(status.parent or "", status.out, status.task_ids, key)  # type: ignore[arg-type]
