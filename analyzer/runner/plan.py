"""A run as one value: what to run, how often, through which route, into which file, and why.

`run`, `rerun`, `--resume`, the dashboard's jobs and the CLI all build a `RunPlan` and hand it to
`analyzer.runner.run.run_plan`. A plan holds the run's keys as read once (`analyzer.safety.keys.RunKeys`);
its repr shows only their fingerprints. `RunControls` holds what only lives while a run runs: the
progress callback, the cancel event, where notices go, and the command that resumes it.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from analyzer.errors import RerunLensError, RouteError
from analyzer.log.model import Result, TaskSpec
from analyzer.routes.profile import KEY_ROUTE_FIELDS, RouteProfile, flag_name
from analyzer.routes.url_lint import has_redaction
from analyzer.runner.executors import Executor
from analyzer.runner.journal import JournalState, journal_path, read_journal
from analyzer.runner.progress import Progress
from analyzer.runner.transport import now_utc
from analyzer.safety.keys import RunKeys, read_keys
from analyzer.simulator import Scenario

ProgressCallback = Callable[[Progress], None]


@dataclass(frozen=True)
class Provenance:
    """Where a run's log comes from: its id, when it began, its label and the run it re-runs."""

    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    """The run's id (in the log and the journal)."""
    created_at: datetime = field(default_factory=now_utc)
    """When the run began (a resumed run keeps its first start)."""
    label: str | None = None
    """A label for the log, e.g. "C: pinned route"."""
    parent_run_id: str | None = None
    """The run a re-run re-runs."""
    extra: Mapping[str, Any] | None = None
    """Further top-level fields of the log (a re-run's `rerun_of`: its selection and the parent's route)."""


@dataclass(frozen=True)
class Simulation:
    """How the embedded simulator serves when the profile has no base URL."""

    scenario: Scenario | None = None
    """Its scenario; None plays the sample tasks' scripted model."""
    port: int | None = None
    """The port to try first (a resumed run's), any free one otherwise."""


@dataclass(frozen=True)
class RunPlan:
    """Everything a run needs, decided before it starts."""

    tasks: tuple[TaskSpec, ...]
    """The task definitions, in order."""
    rounds: int
    """Rounds per task."""
    profile: RouteProfile
    """The route: base URL (none: the simulator), key variable(s), parameters."""
    keys: RunKeys
    """The key(s), read once when the plan was made."""
    out: Path
    """The final log; its journal sits beside it while the run runs."""
    provenance: Provenance = field(default_factory=Provenance)
    """Run id, start time, label, parent."""
    executor: str | Executor | None = None
    """`module:function`, a callable, or None for one chat completion per task."""
    simulation: Simulation = field(default_factory=Simulation)
    """The simulator's scenario and port, when it serves."""
    journal: JournalState | None = None
    """The journal a resumed run continues (its header and finished results); None for a new run."""
    task_rounds: Mapping[str, int] | None = None
    """Task id -> its rounds where a task runs fewer than `rounds` (a re-run's planner names the fewest
    that decide each task); a task not named runs `rounds`."""

    def rounds_of(self, task_id: str) -> int:
        """The rounds `task_id` runs."""
        return min(self.rounds, (self.task_rounds or {}).get(task_id, self.rounds))

    @property
    def total(self) -> int:
        """Results the plan runs: the sum of every task's rounds."""
        return sum(self.rounds_of(str(t.task_id)) for t in self.tasks)

    @property
    def resuming(self) -> bool:
        """True when the plan finishes a journalled run."""
        return self.journal is not None

    @property
    def done(self) -> dict[tuple[str, int], Result]:
        """Results already journalled for this plan's tasks and rounds (empty for a new run)."""
        if self.journal is None:
            return {}
        wanted = {
            (str(t.task_id), rnd) for t in self.tasks for rnd in range(1, self.rounds_of(str(t.task_id)) + 1)
        }
        return {k: r for k, r in self.journal.results.items() if k in wanted}


@dataclass
class RunControls:
    """What only lives while a run runs; none of it is part of the run's record."""

    progress: ProgressCallback | None = None
    """Called after every finished result."""
    cancel: threading.Event = field(default_factory=threading.Event)
    """Set it to stop; finished results stay in the journal for a resume."""
    echo: Callable[[str], None] | None = None
    """Where one-line notices go (default: nowhere)."""
    resume_command: str | None = None
    """The command line to print when interrupted (the CLI's)."""

    def say(self, message: str) -> None:
        """Pass a notice on, if anyone listens."""
        if self.echo is not None:
            self.echo(message)


def new_plan(
    tasks: Sequence[TaskSpec],
    profile: RouteProfile,
    out: str | Path,
    *,
    keys: RunKeys | None = None,
    rounds: int | None = None,
    provenance: Provenance | None = None,
    executor: str | Executor | None = None,
    simulation: Simulation | None = None,
) -> RunPlan:
    """A plan for a new run; the keys are read now from the profile's variables unless given.

    Raises:
        RerunLensError: no tasks, or the output or its journal is already there.
        RouteError: a key holds white space or control characters.
    """
    if not tasks:
        raise RerunLensError("no tasks to run")
    out = Path(out)
    jpath = journal_path(out)
    if jpath.exists():
        raise RerunLensError(
            f"{jpath}: an unfinished run is recorded there; finish it with --resume or delete the journal"
        )
    if out.exists():
        raise RerunLensError(f"{out} already exists; choose another output path or delete it")
    return RunPlan(
        tasks=tuple(tasks),
        rounds=rounds or profile.rounds,
        profile=profile,
        keys=keys if keys is not None else read_keys(profile.key_envs()),
        out=out,
        provenance=provenance or Provenance(),
        executor=executor,
        simulation=simulation or Simulation(),
    )


@dataclass(frozen=True)
class ResumeRequest:
    """What a resume may say besides the journal: each given value must agree with it."""

    profile: RouteProfile | None = None
    """A route given again; any setting (rounds aside) that differs from the journal's is refused."""
    tasks: Sequence[TaskSpec] | None = None
    """The tasks given again; they must be the journal's."""
    rounds: int | None = None
    """The rounds given again; they must be the journal's."""
    session_key: str | None = None
    """A key typed for this session (a dashboard job that was started with one)."""
    executor: str | Executor | None = None
    """The executor; it must be the journal's (None: the default executor)."""
    scenario: Scenario | None = None
    """The simulator scenario."""


def plan_from_journal(out: str | Path, request: ResumeRequest | None = None) -> RunPlan:
    """The plan of an interrupted run, rebuilt from its journal, to finish it.

    Raises:
        RerunLensError: no journal (or the run is complete), a damaged journal, other tasks or rounds.
        RouteError: a route that differs from the journal's, a base URL whose secret was not saved.
    """
    ask = request or ResumeRequest()
    out = Path(out)
    jpath = journal_path(out)
    if not jpath.exists():
        if out.exists():
            raise RerunLensError(f"{out}: already complete; nothing to resume")
        raise RerunLensError(f"{jpath}: no journal to resume from")
    state = read_journal(jpath)
    header = state.header
    profile = _resume_route(header, ask.profile, jpath)
    tasks, rounds = _resume_work(state, ask.tasks, ask.rounds)
    keys = read_keys(profile.key_envs(), session_key=ask.session_key)
    provenance = Provenance(
        run_id=str(header["run_id"]),
        created_at=datetime.fromisoformat(header["created_at"]),
        label=header.get("label"),
        parent_run_id=header.get("parent_run_id"),
        extra=header.get("extra"),
    )
    return RunPlan(
        tasks=tuple(tasks),
        rounds=rounds,
        profile=profile,
        keys=keys,
        out=out,
        provenance=provenance,
        executor=_resume_executor(header, ask.executor),
        simulation=Simulation(ask.scenario, header.get("simulator_port")),
        journal=state,
        task_rounds=_task_rounds(header.get("task_rounds"), rounds, jpath),
    )


def _task_rounds(recorded: object, rounds: int, jpath: Path) -> dict[str, int] | None:
    """A journal's per-task rounds, each a whole number from 1 to its rounds (or none)."""
    if recorded is None:
        return None
    if not isinstance(recorded, dict) or not all(
        isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= rounds for n in recorded.values()
    ):
        raise RerunLensError(f"journal {jpath} is damaged at line 1: its task_rounds are not 1 to {rounds}")
    return {str(t): int(n) for t, n in recorded.items()}


def recorded_profile(out: str | Path) -> dict[str, Any] | None:
    """The route profile a journal beside `out` was started with (no keys), or None without one."""
    jpath = journal_path(out)
    if not jpath.exists():
        return None
    recorded = read_journal(jpath).header.get("profile")
    return recorded if isinstance(recorded, dict) else None


def with_label(plan: RunPlan, label: str | None) -> RunPlan:
    """The same plan under another label (None keeps the plan's)."""
    if label is None:
        return plan
    return replace(plan, provenance=replace(plan.provenance, label=label))


def _resume_route(header: dict[str, Any], given: RouteProfile | None, jpath: Path) -> RouteProfile:
    """The route a resumed run uses: the journal's. A given profile must match it (rounds aside)."""
    try:
        recorded = RouteProfile.model_validate(header.get("profile") or {})
    except ValueError as err:
        raise RerunLensError(f"journal {jpath} is damaged at line 1: its route profile is not valid") from err
    if given is None:
        _refuse_journal_key_route(recorded, jpath)
        if has_redaction(recorded.base_url):
            raise RouteError(
                f"the journal {jpath.name} was started with a base URL holding a secret, which was not "
                "saved; resume with the same --base-url"
            )
        return recorded
    mine = given.public_dump()
    theirs = recorded.public_dump()
    differ = sorted(f for f in theirs if f != "rounds" and mine.get(f) != theirs.get(f))
    if differ:
        shown = ", ".join(f"{flag_name(f)} {theirs.get(f)!r} (given {mine.get(f)!r})" for f in differ)
        raise RouteError(
            f"--resume: the journal {jpath.name} was started with a different route: {shown}; "
            "resume with the journal's route (drop those flags) or start a new run with another --out"
        )
    if has_redaction(given.base_url):
        raise RouteError("--resume: give the real --base-url, not its redacted form")
    return given.model_copy(update={"rounds": recorded.rounds})


def _refuse_journal_key_route(recorded: RouteProfile, jpath: Path) -> None:
    """With no route given, the journal's may not choose a key or a host: only the defaults pass."""
    default = RouteProfile()
    named = [f for f in KEY_ROUTE_FIELDS if getattr(recorded, f) != getattr(default, f)]
    if named:
        raise RouteError(
            f"--resume: the journal {jpath.name} names {', '.join(flag_name(f) for f in named)}; a journal "
            "never chooses which key is sent where: resume with your own route (flags or --profile)"
        )


def _resume_executor(header: dict[str, Any], given: str | Executor | None) -> str | Executor | None:
    """The executor a resume runs: the one the user gives (none: the default), which must be the
    journal's; a journal never chooses code to import. A function passed by code is its caller's."""
    if callable(given):
        return given
    recorded = header.get("executor") or "default"
    named = given or "default"
    if named != recorded:
        shown = recorded[:80] if isinstance(recorded, str) else "(damaged)"
        raise RerunLensError(
            f"the journal was started with --executor {shown!r}, not {named!r}; resume with the same "
            "--executor (a journal never chooses what runs) or start a new run"
        )
    return given


def _resume_work(
    state: JournalState, tasks: Sequence[TaskSpec] | None, rounds: int | None
) -> tuple[list[TaskSpec], int]:
    header = state.header
    recorded = [TaskSpec.model_validate(t) for t in header.get("tasks", [])]
    if tasks is not None and [str(t.task_id) for t in tasks] != [str(t.task_id) for t in recorded]:
        raise RerunLensError("the journal was written for a different task list; resume with the same tasks")
    if rounds is not None and rounds != header.get("rounds"):
        raise RerunLensError(f"the journal was written for {header.get('rounds')} rounds, not {rounds}")
    return recorded, int(header["rounds"])
