"""Background runs and re-runs for the dashboard, UI-free.

A job runs a plan (`run_plan`, or a re-run's `rerun`) in a background thread. It is known twice:
in a process-wide registry (`get_manager(runs_dir)`), and as a small state file in the runs folder
(`<runs_dir>/.rerunlens/jobs/<job_id>.jobstate`). A page reload or a second browser tab asks the
manager and finds the running job instead of starting a duplicate; when the process that ran a job
died, the state file and the run's journal let `resume` finish it. No key is ever written: the
state holds the key's variable name (or "session") and its fingerprint.

    mgr = get_manager("runs")
    request = RerunRequest(parent_log, ["shop-002"], "runs/A.altk_runs.json")
    job = mgr.start_rerun(request, rerun_plan(request, profile, mgr.new_out("A.rerun"), rounds=5))
    mgr.status(job.job_id).fraction      # poll from the page
    mgr.cancel(job.job_id)
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from analyzer.atomic import write_text_atomic
from analyzer.errors import RerunLensError, RouteError
from analyzer.importers import load_any
from analyzer.routes.profile import RouteProfile
from analyzer.routes.url_lint import has_redaction
from analyzer.runner.journal import journal_path
from analyzer.runner.pinned_rerun import RerunRequest, rerun, resume_rerun_plan
from analyzer.runner.plan import ResumeRequest, RunControls, RunPlan, plan_from_journal
from analyzer.runner.run import run_plan
from analyzer.safety.keys import RunKeys
from analyzer.safety.scrub import one_line, scrub
from analyzer.safety.url_secrets import secret_values

JobKind = Literal["run", "rerun"]
JobState = Literal["running", "done", "cancelled", "failed", "interrupted"]

STATE_DIR = Path(".rerunlens") / "jobs"
STATE_SUFFIX = ".jobstate"
PROCESS_TOKEN = uuid.uuid4().hex
"""Identifies this process in state files (a pid alone can be reused)."""
_WRITE_EVERY_S = 0.25
_M = TypeVar("_M", bound=Callable[..., Any])
_RUNNING_HERE: set[str] = set()
"""Ids of jobs whose thread runs in this process (whichever manager started them)."""


class JobStatus(BaseModel):
    """Where a job stands; also the content of its state file (no key, ever)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    job_id: str
    """Short unique id."""
    kind: JobKind
    """`run` (a task file) or `rerun` (tasks of a parent log)."""
    state: JobState
    """`running`, `done`, `cancelled` (resumable), `failed`, or `interrupted` (process died; resumable)."""
    request_key: str
    """Hash of what was asked (kind, tasks, rounds, route): the same request finds the same job."""
    label: str | None = None
    """Label of the log being written."""
    out: str
    """Final log path."""
    journal: str
    """Journal path (exists while unfinished)."""
    parent: str | None = None
    """Parent log path, for a re-run."""
    tasks_file: str | None = None
    """Task file with the definitions, for a re-run of a format-1 log."""
    answer_key: str = "exact"
    """Answer key a re-run's verdict uses (kept so a resumed job judges the same way)."""
    selection: str | None = None
    """A re-run's selection when it was named (`flagged`, `inconsistent`); None for a hand pick."""
    task_ids: list[str] = Field(default_factory=list)
    """Tasks in the job."""
    rounds: int
    """Rounds per task."""
    profile: dict[str, Any]
    """The route profile (base URL, key variable, parameters; never a key)."""
    key_source: str
    """`env:<VARIABLE>` or `session` (a key typed into the page; needed again to resume)."""
    key_fingerprint: str | None = None
    """Fingerprint of the key used."""
    done: int = 0
    """Results finished."""
    total: int = 0
    """Results the job will have."""
    tokens: int = 0
    """Tokens so far."""
    retries: int = 0
    """Retries so far."""
    errors: int = 0
    """Errored results so far."""
    pid: int = 0
    """Process running the job."""
    host: str = ""
    """Host of that process."""
    process_token: str = ""
    """Token of that process."""
    started_at: datetime | None = None
    """When the job (or its latest resume) started."""
    updated_at: datetime | None = None
    """Last state write."""
    finished_at: datetime | None = None
    """When it ended."""
    cancel_requested: bool = False
    """Set by a cancel from any process; the owner stops at the next check."""
    run_id: str | None = None
    """Run id of the log being written."""
    simulator: bool = False
    """True when the embedded simulator serves."""
    notice: str | None = None
    """The simulator notice, or another one-line note for the page."""
    error: str | None = None
    """One-line reason when failed."""
    turned_consistent: list[str] | None = None
    """Re-run: tasks that became consistent on the pinned route."""
    still_inconsistent: list[str] | None = None
    pinned: list[str] | None = None
    """Re-run: what it pinned (`route`, and `seed` or `scenario` where it changed them too)."""
    """Re-run: tasks still inconsistent on the pinned route."""

    @property
    def fraction(self) -> float:
        """done / total, 0..1."""
        return self.done / self.total if self.total else 0.0

    @property
    def active(self) -> bool:
        """True while running."""
        return self.state == "running"

    @property
    def resumable(self) -> bool:
        """True when cancelled or interrupted and its journal is still there."""
        return self.state in ("cancelled", "interrupted") and Path(self.journal).exists()


class _Live:
    """In-process handle of a job: its thread, cancel event and latest status."""

    def __init__(self, status: JobStatus) -> None:
        self.status = status
        self.cancel = threading.Event()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()
        self.last_write = 0.0
        self.result: Any = None


def _serialized(method: _M) -> _M:
    """Run a find-or-start method under the start lock, so two tabs clicking at once start one job."""

    @functools.wraps(method)
    def locked(self: JobManager, *args: Any, **kwargs: Any) -> Any:
        with self._start_lock:
            return method(self, *args, **kwargs)

    return locked  # type: ignore[return-value]


class JobManager:
    """Starts, finds, cancels and resumes jobs whose logs go to one runs folder."""

    def __init__(self, runs_dir: str | os.PathLike[str]) -> None:
        self.runs_dir = Path(runs_dir).resolve()
        self.state_dir = self.runs_dir / STATE_DIR
        self._live: dict[str, _Live] = {}
        self._lock = threading.Lock()
        self._start_lock = threading.RLock()

    # --- starting ---------------------------------------------------------------------------------

    def new_out(self, stem: str = "run") -> Path:
        """A fresh log path in the runs folder: `<stem>-<time>-<id>.altk_runs.json`."""
        return self.runs_dir / f"{stem}-{_stamp()}-{uuid.uuid4().hex[:6]}.altk_runs.json"

    @_serialized
    def start_run(self, plan: RunPlan) -> JobStatus:
        """Run a plan in the background; the same request while one runs returns that job instead."""
        ids = [str(t.task_id) for t in plan.tasks]
        executor = plan.executor if isinstance(plan.executor, str) else None
        request = _request_key("run", None, ids, plan.rounds, plan.profile, executor)
        found = self._reuse(request, plan.keys)
        if found is not None:
            return found
        status = self._new_status("run", request, plan, None)

        def work(live: _Live) -> None:
            outcome = run_plan(plan, self._controls(live))
            live.result = outcome
            self._finish(live, cancelled=outcome.cancelled)

        return self._launch(status, work, [*plan.keys.secrets(), *secret_values(plan.profile.base_url)])

    @_serialized
    def start_rerun(self, request: RerunRequest, plan: RunPlan) -> JobStatus:
        """Run a re-run's plan in the background (`rerun_plan` builds it from a parent log).

        The same request (parent, tasks, rounds, route) while one runs returns that job; an identical
        job that was interrupted or cancelled is resumed instead of started afresh.
        """
        parent_path = str(Path(request.source or "").resolve())
        ids = [str(t.task_id) for t in plan.tasks]
        key = _request_key("rerun", parent_path, ids, plan.rounds, plan.profile, None)
        found = self._reuse(key, plan.keys)
        if found is not None:
            return found
        status = self._new_status("rerun", key, plan, parent_path)
        status.tasks_file = str(request.tasks_file) if request.tasks_file else None
        status.answer_key = request.answer_key
        status.selection = request.selection if isinstance(request.selection, str) else None

        def work(live: _Live) -> None:
            self._run_rerun(live, request, plan)

        return self._launch(status, work, [*plan.keys.secrets(), *secret_values(plan.profile.base_url)])

    # --- reading ----------------------------------------------------------------------------------

    def status(self, job_id: str) -> JobStatus | None:
        """The job's status: live when this process runs it, else from its state file."""
        live = self._live.get(job_id)
        if live is not None:
            with live.lock:
                return live.status.model_copy(deep=True)
        return self._read(self._state_path(job_id))

    def jobs(self) -> list[JobStatus]:
        """Every job known in this runs folder, newest first."""
        seen: dict[str, JobStatus] = {}
        if self.state_dir.is_dir():
            for path in self.state_dir.glob(f"*{STATE_SUFFIX}"):
                status = self.status(path.name.removesuffix(STATE_SUFFIX))
                if status is not None:
                    seen[status.job_id] = status
        for job_id in list(self._live):
            status = self.status(job_id)
            if status is not None:
                seen[job_id] = status
        epoch = datetime.min.replace(tzinfo=UTC)
        return sorted(seen.values(), key=lambda s: s.started_at or epoch, reverse=True)

    def active(
        self, kind: JobKind | None = None, parent: str | os.PathLike[str] | None = None
    ) -> list[JobStatus]:
        """Running jobs, optionally of one kind or re-running one parent log (what a reloaded page wants)."""
        want = str(Path(parent).resolve()) if parent is not None else None
        return [
            s
            for s in self.jobs()
            if s.state == "running"
            and (kind is None or s.kind == kind)
            and (want is None or s.parent == want)
        ]

    def latest(
        self, kind: JobKind | None = None, parent: str | os.PathLike[str] | None = None
    ) -> JobStatus | None:
        """The newest job of a kind (and parent), running or not: what a reloaded page shows."""
        want = str(Path(parent).resolve()) if parent is not None else None
        for s in self.jobs():
            if (kind is None or s.kind == kind) and (want is None or s.parent == want):
                return s
        return None

    def finished_rerun(self, job_id: str) -> JobStatus:
        """A finished re-run's status (its parent and new log paths, its tasks and answer key).

        Raises:
            RerunLensError: the job is unknown, not a re-run, or not done.
        """
        status = self.status(job_id)
        if status is None or status.kind != "rerun" or status.state != "done" or status.parent is None:
            raise RerunLensError(f"job {job_id}: no finished re-run to compare")
        return status

    def wait(self, job_id: str, timeout: float = 60.0) -> JobStatus:
        """Block until the job leaves `running` (tests and scripts; a page polls `status` instead)."""
        live = self._live.get(job_id)
        if live is not None and live.thread is not None:
            live.thread.join(timeout)
        deadline = time.monotonic() + timeout
        while True:
            status = self.status(job_id)
            if status is None:
                raise RerunLensError(f"job {job_id}: unknown")
            if status.state != "running" or time.monotonic() > deadline:
                return status
            time.sleep(0.05)

    # --- control ----------------------------------------------------------------------------------

    def cancel(self, job_id: str) -> JobStatus | None:
        """Ask the job to stop; finished results stay in its journal for `resume`. Works across processes."""
        live = self._live.get(job_id)
        if live is not None:
            live.cancel.set()
            with live.lock:
                live.status.cancel_requested = True
            self._write(live, force=True)
            return self.status(job_id)
        path = self._state_path(job_id)
        status = self._read(path)
        if status is not None and status.state == "running":
            status.cancel_requested = True
            write_text_atomic(path, status.model_dump_json(indent=2))
        return status

    @_serialized
    def resume(self, job_id: str, *, api_key: str | None = None, scenario: Any = None) -> JobStatus:
        """Finish a cancelled or interrupted job from its journal, in the background."""
        status = self.status(job_id)
        if status is None:
            raise RerunLensError(f"job {job_id}: unknown")
        if status.state == "running":
            return status
        if status.state == "done":
            raise RerunLensError(f"job {job_id} is already done: {status.out}")
        if not Path(status.journal).exists():
            raise RerunLensError(f"job {job_id}: its journal {status.journal} is gone; start it again")
        if status.key_source == "session" and api_key is None:
            raise RouteError(f"job {job_id} used a key given for the session; enter it again to resume")
        profile = RouteProfile.model_validate(status.profile)
        if has_redaction(profile.base_url):
            raise RouteError(
                f"job {job_id}: its base URL held a secret that was not saved; start the job again"
            )
        ask = ResumeRequest(session_key=api_key, scenario=scenario)
        request = None if status.kind == "run" else self._rerun_request(status)  # the parent read once
        if request is None:
            plan = plan_from_journal(status.out, ask)
        else:
            plan = resume_rerun_plan(request, status.out, replace(ask, profile=profile))
        status = status.model_copy(
            update={
                "state": "running",
                "cancel_requested": False,
                "error": None,
                "finished_at": None,
                **_owner(),
                "started_at": _now(),
            }
        )

        def work(live: _Live) -> None:
            if request is None:
                outcome = run_plan(plan, self._controls(live))
                live.result = outcome
                self._finish(live, cancelled=outcome.cancelled)
            else:
                self._run_rerun(live, request, plan)

        return self._launch(status, work, [*plan.keys.secrets(), *secret_values(plan.profile.base_url)])

    def _rerun_request(self, status: JobStatus) -> RerunRequest:
        """The re-run request a job was started with (its parent read again from disk)."""
        parent = load_any(status.parent or "").log
        return RerunRequest(
            parent,
            status.task_ids,
            status.parent,
            status.tasks_file,
            status.answer_key,  # type: ignore[arg-type]
            status.label,
        )

    # --- internals --------------------------------------------------------------------------------

    def _run_rerun(self, live: _Live, request: RerunRequest, plan: RunPlan) -> None:
        report = rerun(request, plan, self._controls(live))
        live.result = report
        status = live.status
        with live.lock:
            status.run_id = report.outcome.run_id
            if not report.outcome.cancelled:
                status.turned_consistent = report.turned_consistent
                status.still_inconsistent = report.still_inconsistent
                status.pinned = report.pinned
        self._finish(live, cancelled=report.outcome.cancelled)

    def _controls(self, live: _Live) -> RunControls:
        return RunControls(progress=self._progress(live), cancel=live.cancel, echo=self._echo(live))

    def _new_status(self, kind: JobKind, request: str, plan: RunPlan, parent: str | None) -> JobStatus:
        keys = plan.keys
        return JobStatus(
            job_id=uuid.uuid4().hex[:8],
            kind=kind,
            state="running",
            request_key=request,
            label=plan.provenance.label,
            out=str(plan.out),
            journal=str(journal_path(plan.out)),
            parent=parent,
            task_ids=[str(t.task_id) for t in plan.tasks],
            rounds=plan.rounds,
            profile=plan.profile.public_dump(),
            key_source="session" if keys.source == "session" else f"env:{plan.profile.key_env}",
            key_fingerprint=keys.fingerprint,
            total=len(plan.tasks) * plan.rounds,
            run_id=plan.provenance.run_id,
            simulator=plan.profile.uses_simulator,
            started_at=_now(),
            **_owner(),
        )

    def _reuse(self, request: str, keys: RunKeys) -> JobStatus | None:
        """A running job for the same request, or an interrupted/cancelled one resumed."""
        session_key = keys.keys[0] if keys.source == "session" else None
        for status in self.jobs():
            if status.request_key != request:
                continue
            if status.state == "running":
                return status
            if status.resumable and (status.key_source != "session" or session_key is not None):
                return self.resume(status.job_id, api_key=session_key)
        return None

    def _launch(self, status: JobStatus, work: Any, secrets: list[str]) -> JobStatus:
        """Run `work` in a thread; a failure is recorded in one line with `secrets` (the keys) scrubbed."""
        live = _Live(status)
        with self._lock:
            self._live[status.job_id] = live
        self._write(live, force=True)

        def body() -> None:
            watcher = threading.Thread(target=self._watch_cancel, args=(live,), daemon=True)
            watcher.start()
            try:
                work(live)
            except BaseException as exc:  # the job must end in a state, whatever happened
                with live.lock:
                    live.status.state = "failed"
                    live.status.error = one_line(scrub(str(exc) or type(exc).__name__, secrets), 300)
                    live.status.finished_at = _now()
                self._write(live, force=True)
            finally:
                _RUNNING_HERE.discard(status.job_id)

        _RUNNING_HERE.add(status.job_id)
        live.thread = threading.Thread(target=body, name=f"rerunlens-job-{status.job_id}", daemon=True)
        live.thread.start()
        return self.status(status.job_id) or status

    def _watch_cancel(self, live: _Live) -> None:
        """Honour a cancel requested from another process (through the state file)."""
        path = self._state_path(live.status.job_id)
        while live.thread is None or live.thread.is_alive():
            if live.status.state != "running" or live.cancel.is_set():
                return
            on_disk = self._read_raw(path)
            if on_disk is not None and on_disk.get("cancel_requested"):
                live.cancel.set()
                return
            time.sleep(0.3)

    def _progress(self, live: _Live) -> Any:
        def update(p: Any) -> None:
            with live.lock:
                s = live.status
                s.done, s.total, s.tokens, s.retries, s.errors = (
                    p.done,
                    p.total,
                    p.tokens,
                    p.retries,
                    p.errors,
                )
            self._write(live)

        return update

    def _echo(self, live: _Live) -> Any:
        def note(msg: str) -> None:
            """Keep the first notice; add warnings, the simulator notice and an error count to it."""
            with live.lock:
                current = live.status.notice
                if current is None:
                    live.status.notice = msg
                elif msg not in current and (
                    msg.startswith("Warning:") or "built-in simulator" in msg or "errored" in msg
                ):
                    live.status.notice = f"{current} {msg}"

        return note

    def _finish(self, live: _Live, *, cancelled: bool) -> None:
        with live.lock:
            live.status.state = "cancelled" if cancelled else "done"
            live.status.finished_at = _now()
        self._write(live, force=True)

    def _write(self, live: _Live, force: bool = False) -> None:
        now = time.monotonic()
        with live.lock:
            if not force and now - live.last_write < _WRITE_EVERY_S:
                return
            live.last_write = now
            live.status.updated_at = _now()
            if not force:
                on_disk = self._read_raw(self._state_path(live.status.job_id))
                if on_disk and on_disk.get("cancel_requested"):
                    live.status.cancel_requested = True
            text = live.status.model_dump_json(indent=2)
        write_text_atomic(self._state_path(live.status.job_id), text)

    def _state_path(self, job_id: str) -> Path:
        if not job_id or not all(c.isalnum() or c in "-_" for c in job_id):
            raise RerunLensError(f"job id {job_id!r} is not valid")
        return self.state_dir / f"{job_id}{STATE_SUFFIX}"

    def _read_raw(self, path: Path) -> dict[str, Any] | None:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def _read(self, path: Path) -> JobStatus | None:
        data = self._read_raw(path)
        if data is None:
            return None
        try:
            status = JobStatus.model_validate(data)
        except ValueError:
            return None
        if status.state == "running" and not _owner_alive(status):
            status.state = "interrupted"
        return status


def _owner() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": socket.gethostname(), "process_token": PROCESS_TOKEN}


def _owner_alive(status: JobStatus) -> bool:
    """Whether the process running a job still exists (a job of ours missing from the registry is dead)."""
    if status.host and status.host != socket.gethostname():
        return True  # another machine sharing the folder: trust the file
    if status.process_token == PROCESS_TOKEN:
        return status.job_id in _RUNNING_HERE
    try:
        os.kill(status.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _now() -> datetime:
    return datetime.now(UTC)


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


def _request_key(
    kind: str, parent: str | None, ids: list[str], rounds: int, profile: RouteProfile, executor: str | None
) -> str:
    payload = json.dumps(
        [kind, parent, ids, rounds, profile.model_dump(mode="json"), executor], sort_keys=True, default=str
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


_REGISTRY: dict[Path, JobManager] = {}
_REGISTRY_LOCK = threading.Lock()


def get_manager(runs_dir: str | os.PathLike[str]) -> JobManager:
    """The process-wide manager for a runs folder (every page, tab and rerun of a script shares it)."""
    key = Path(runs_dir).resolve()
    with _REGISTRY_LOCK:
        if key not in _REGISTRY:
            _REGISTRY[key] = JobManager(key)
        return _REGISTRY[key]
