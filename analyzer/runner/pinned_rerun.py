"""Re-run a log's unstable tasks through one pinned route, and compare before with after.

A re-run is a run plan (analyzer.runner.plan) whose tasks are chosen from a parent log, whose route
keeps the parent's model and sampling unless told otherwise, and whose log names its parent. The
before/after itself is analyzer.verdicts.before_after.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.analysis import Analysis, analyze
from analyzer.errors import RerunLensError
from analyzer.log.model import RunLog, TaskSpec
from analyzer.log.taskfile import load_tasks
from analyzer.metrics.answer_keys import AnswerKey
from analyzer.metrics.semantic import SemanticOptions
from analyzer.report.export import missing_prompts_reason
from analyzer.routes.profile import RouteProfile
from analyzer.runner.executors import Executor
from analyzer.runner.out_folder import beside
from analyzer.runner.plan import (
    Provenance,
    ResumeRequest,
    RunControls,
    RunPlan,
    Simulation,
    new_plan,
    plan_from_journal,
)
from analyzer.runner.rerun_changes import changes_sentence, require_known_provider, rerun_changes
from analyzer.runner.rerun_route import (
    describe_route,
    parent_provider,
    parent_scenario,
    parent_settings,
    pinned_besides_route,
    require_same_provider,
    route_differences,
)
from analyzer.runner.run import RunOutcome, run_plan
from analyzer.safety.keys import RunKeys, read_keys
from analyzer.verdicts.before_after import compare_before_after, tasks_with
from analyzer.verdicts.default_rerun import (
    DEFAULT_SELECTION,
    DefaultRerun,
    default_rerun,
    left_out_sentences,
    selected_ids,
)
from analyzer.verdicts.rerun_sentences import VerdictLine, before_after_lines, verdict_sentences

Selection = str | Sequence[str]
"""`flagged`, `inconsistent`, or explicit task ids."""


@dataclass(frozen=True)
class RerunRequest:
    """What to re-run: which tasks of which parent log, judged with which answer key."""

    parent: RunLog
    """The parent log."""
    selection: Selection = DEFAULT_SELECTION
    """`flagged`, `inconsistent`, or task ids."""
    source: str | Path | None = None
    """The parent's path (names a format-1 parent, which has no run id)."""
    tasks_file: str | Path | None = None
    """Task definitions for a format-1 parent."""
    answer_key: AnswerKey = "exact"
    """The answer key of the before/after clusters."""
    label: str | None = None
    """Label of the new log; default "re-run of <parent> on a pinned route"."""
    allow_simulator: bool = False
    """Re-run a provider's log on the built-in simulator on purpose (the verdict then compares the two)."""
    semantic: SemanticOptions | None = None
    """Threshold and embedder of the `semantic` key, when it is the answer key."""
    analysis: Analysis | None = field(default=None, repr=False, compare=False)
    """The parent's analysis under `answer_key`, when the caller has it already (the dashboard's page):
    the selection, the rounds and the before/after all read it instead of analysing the parent again."""
    with_parent_route: bool = False
    """Run the planner's proposals on the parent's own route beside the pinned rounds
    (`runner.parent_route`); the pinned rounds per task are then the ones that go with them."""
    leave_out: bool | None = None
    """At the planner's rounds, leave out the tasks they cannot decide (`default_rerun`); None: for a
    selection by name (`flagged`, `inconsistent`), not for task ids."""

    def leaves_out(self) -> bool:
        """Whether the default re-run's rule of leaving out what cannot be decided applies."""
        if self.leave_out is not None:
            return self.leave_out
        return isinstance(self.selection, str) and self.selection in ("flagged", "inconsistent")

    @cached_property
    def parent_analysis(self) -> Analysis:
        """The parent's analysis under the request's key, computed once per request."""
        if self.analysis is not None:
            return self.analysis
        return analyze(self.parent, self.answer_key, semantic=self.semantic)


@dataclass
class RerunReport:
    """A re-run's new log and what changed per task."""

    outcome: RunOutcome
    """How the re-run ended (its log, path, progress)."""
    parent_run_id: str
    """The run that was re-run."""
    task_ids: list[str]
    """Tasks re-run."""
    before_after: pd.DataFrame = field(repr=False)
    """Per task: clusters, consistency, tokens and retries before and after, and a verdict."""
    route_line: str = ""
    """The route the re-run used, one line."""
    warnings: list[str] = field(default_factory=list)
    """Sampling settings that differ from the parent's (they confound before/after)."""
    pinned: list[str] = field(default_factory=lambda: ["route"])
    """What the re-run pinned: the route, and anything it changed besides (`seed`, `scenario`)."""
    beside_path: Path | None = None
    """The log of the rounds run on the parent's own route beside the pinned ones, if any."""

    @property
    def turned_consistent(self) -> list[str]:
        """Tasks inconsistent before and consistent on the pinned route (route to blame)."""
        return tasks_with(self.before_after, "route")

    @property
    def still_inconsistent(self) -> list[str]:
        """Tasks inconsistent on the pinned route (model to blame)."""
        return tasks_with(self.before_after, "model") + tasks_with(self.before_after, "regressed")

    def verdict(self) -> list[VerdictLine]:
        """The verdict's sentences: what changed besides the route, the chance headline, the tasks by
        verdict (the Re-run page shows the same)."""
        return verdict_sentences(self.before_after, self.pinned, self.warnings)

    def lines(self) -> list[str]:
        """The route, a before/after table and the verdict's sentences, for a terminal."""
        head = [self.route_line] if self.route_line else []
        return head + before_after_lines(self.before_after, self.pinned, self.warnings)

    def to_json(self) -> dict[str, Any]:
        """The report as `rerun --json` prints it."""
        return {
            "route": self.route_line,
            "warnings": self.warnings,
            "pinned": self.pinned,
            "verdict": [line.text for line in self.verdict()],
            "path": str(self.outcome.path),
            **({"parent_route_path": str(self.beside_path)} if self.beside_path else {}),
            "run_id": self.outcome.run_id,
            "parent_run_id": self.parent_run_id,
            "turned_consistent": self.turned_consistent,
            "still_inconsistent": self.still_inconsistent,
            "tasks": json.loads(self.before_after.to_json(orient="records")),
        }


def parent_id(log: RunLog, source: str | Path | None = None) -> str:
    """The id a re-run names as its parent: the run id, else the file name (format-1 logs have none)."""
    if log.run_id:
        return log.run_id
    return Path(source).name if source else "unknown"


def pinned_profile(profile: RouteProfile) -> RouteProfile:
    """The route a re-run pins: one key and one base URL (a rotation of either is dropped)."""
    return profile.model_copy(update={"key_rotation": [], "base_url_rotation": []})


def select_tasks(
    log: RunLog,
    only: Selection,
    key: AnswerKey = "exact",
    semantic: SemanticOptions | None = None,
    analysis: Analysis | None = None,
) -> list[str]:
    """Task ids to re-run: `flagged` (inconsistent, drifted or errored), `inconsistent`, or given ids."""
    if not (isinstance(only, str) and only in ("flagged", "inconsistent")):
        ids = list(dict.fromkeys([only] if isinstance(only, str) else [str(t) for t in only]))
        known = {str(r.task_id) for _rnd, r in log.results()}
        unknown = [t for t in ids if t not in known]
        if unknown:
            raise RerunLensError(f"task {unknown[0]!r} is not in the log")
        return ids
    return selected_ids((analysis or analyze(log, key, semantic=semantic)).tasks, only)


def task_specs(log: RunLog, ids: Sequence[str], tasks_file: str | Path | None = None) -> list[TaskSpec]:
    """The definitions of the chosen tasks, from the log (format 2) or a task file."""
    if tasks_file is not None:
        specs = load_tasks(tasks_file)
    elif log.tasks:
        specs = list(log.tasks)
    else:
        raise RerunLensError(f"{missing_prompts_reason(log)}; pass the task file with --tasks")
    by_id = {str(t.task_id): t for t in specs}
    missing = [t for t in ids if t not in by_id]
    if missing:
        raise RerunLensError(f"task {missing[0]!r} has no definition in the task file")
    return [by_id[t] for t in ids]


def default_rerun_path(parent_path: str | Path, run_hint: str = "") -> Path:
    """`runs/A.altk_runs.json` -> `runs/A.rerun[-hint].altk_runs.json` (a shipped sample's into the
    runs folder: `out_folder.beside`)."""
    p = Path(parent_path)
    stem = p.name.removesuffix(".json").removesuffix(".altk_runs")
    return beside(p, f"{stem}.rerun{'-' + run_hint if run_hint else ''}.altk_runs.json")


def rerun_plan(
    request: RerunRequest,
    profile: RouteProfile,
    out: str | Path,
    *,
    rounds: int | Mapping[str, int] | None = None,
    keys: RunKeys | None = None,
    executor: str | Executor | None = None,
    simulation: Simulation | None = None,
    run_id: str | None = None,
) -> RunPlan:
    """The plan of a re-run: the chosen tasks, one key (a rotation is dropped), the parent named.

    Without `rounds`, each task runs the rounds the default re-run names for it
    (`verdicts.default_rerun`: the planner's fewest that decide it), not the profile's; `rounds` runs
    every task that many, or (task id -> rounds) each task its own.

    Raises:
        RerunLensError: nothing to re-run, unknown task ids, no task definitions.
    """
    log = request.parent
    planned = planned_rerun(request, rounds)
    ids = planned.ids()
    if not ids:
        said = " ".join(left_out_sentences(planned.left_out))
        raise RerunLensError(f"nothing to re-run: no rounds of these tasks can decide anything. {said}")
    specs = task_specs(log, ids, request.tasks_file)
    pinned = pinned_profile(profile)
    require_same_provider(log, pinned, request.allow_simulator)
    require_known_provider(log, pinned, request.allow_simulator)
    simulation = simulation or Simulation()
    if pinned.uses_simulator and simulation.scenario is None:
        simulation = replace(simulation, scenario=parent_scenario(log))
    per_task = {} if isinstance(rounds, int) else planned.rounds()
    pid = parent_id(log, request.source)
    simulated = " (simulated)" if parent_provider(log).real and pinned.uses_simulator else ""
    provenance = Provenance(
        label=request.label or f"re-run of {log.label or pid} on a pinned route{simulated}",
        parent_run_id=pid,
        extra={"rerun_of": _rerun_of(request, pinned)},
    )
    if run_id:
        provenance = replace(provenance, run_id=run_id)
    plan = new_plan(
        specs,
        pinned,
        out,
        keys=keys if keys is not None else read_keys(pinned.key_envs()),
        rounds=rounds if isinstance(rounds, int) else max(per_task.values(), default=2),
        provenance=provenance,
        executor=executor,
        simulation=simulation,
    )
    return replace(plan, task_rounds=per_task) if per_task else plan


def resume_rerun_plan(request: RerunRequest, out: str | Path, resume: ResumeRequest) -> RunPlan:
    """The plan that finishes an interrupted re-run: its journal's, for the same tasks of the parent."""
    specs = task_specs(request.parent, planned_rerun(request, resume.rounds).ids(), request.tasks_file)
    return plan_from_journal(out, replace(resume, tasks=specs))


def planned_rerun(request: RerunRequest, rounds: int | Mapping[str, int] | None = None) -> DefaultRerun:
    """The re-run the request makes at `rounds` (`verdicts.default_rerun`): the tasks it runs, their
    rounds, the ones it leaves out and its cost; what `rerun_plan` runs and `rerun --dry-run` prints.

    Raises:
        RerunLensError: nothing to re-run, or nothing whose rounds can decide anything.
    """
    ids = _request_tasks(request)
    if not ids:
        raise RerunLensError(f"no {request.selection} tasks in the log: nothing to re-run")
    analysis = request.parent_analysis
    return default_rerun(analysis, ids, rounds, request.with_parent_route, leave_out=request.leaves_out())


def _request_tasks(request: RerunRequest) -> list[str]:
    """The request's tasks; a selection by name reads the parent's analysis (computed once)."""
    named = isinstance(request.selection, str) and request.selection in ("flagged", "inconsistent")
    analysis = request.parent_analysis if named else None
    return select_tasks(request.parent, request.selection, request.answer_key, request.semantic, analysis)


def rerun(
    request: RerunRequest, plan: RunPlan, controls: RunControls | None = None, beside: RunPlan | None = None
) -> RerunReport:
    """Run a re-run's plan and compare its log with the parent's, task by task.

    Sampling settings that differ from the parent's are warned about (echoed, printed with the
    report) and were recorded in the log's `rerun_of` by `rerun_plan`. `beside` is the run of rounds
    on the parent's own route (`runner.parent_route.parent_route_plan`), run after the pinned one; its
    rounds count in each task's test.
    """
    controls = controls or RunControls()
    changes = rerun_changes(request.parent, plan.profile)
    warnings = [changes_sentence(changes)] if changes else []
    pinned = ["route", *pinned_besides_route(request.parent, plan.profile, plan.simulation.scenario)]
    for w in warnings:
        controls.say(f"Warning: {w}")
    outcome = run_plan(plan, controls)
    pid = parent_id(request.parent, request.source)
    ids = [str(t.task_id) for t in plan.tasks]
    line = describe_route(plan.profile)
    more = run_plan(beside, controls) if beside is not None and outcome.log is not None else None
    if outcome.log is None or (more is not None and more.log is None):
        ended = outcome if more is None else more
        return RerunReport(ended, pid, ids, pd.DataFrame(), line, warnings, pinned)
    frame = compare_before_after(
        request.parent,
        outcome.log,
        ids,
        request.answer_key,
        request.semantic,
        request.parent_analysis,
        more.log if more is not None else None,
    )
    report = RerunReport(outcome, pid, ids, frame, line, warnings, pinned)
    report.beside_path = more.path if more is not None else None
    return report


def _rerun_of(request: RerunRequest, pinned: RouteProfile) -> dict[str, Any]:
    """The new log's `rerun_of`: the parent, the selection, the parent's route and what differs."""
    log = request.parent
    parent = parent_settings(log)
    differs = route_differences(parent, pinned)
    only = request.selection
    return {
        "run_id": parent_id(log, request.source),
        "label": log.label,
        "only": only if isinstance(only, str) else "ids",
        "parent_route": parent,
        **({"differs_from_parent": differs} if differs else {}),
        **({"simulated": True} if parent_provider(log).real and pinned.uses_simulator else {}),
    }
