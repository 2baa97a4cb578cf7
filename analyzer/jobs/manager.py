"""Background runs and re-runs for the dashboard, UI-free: the registry that starts, finds, cancels
and resumes them.

A job runs a plan (`run_plan`, or a re-run's `rerun`) in a background thread (`jobs.threads`). It is
known twice: in a process-wide registry (`get_manager(runs_dir)`), and as a small state file in the
runs folder (`jobs.store`). A page reload or a second browser tab asks the manager and finds the
running job instead of starting a duplicate; when the process that ran a job died, the state file and
the run's journal let `resume` finish it. No key is ever written: the state holds the key's variable
name (or "session") and its fingerprint.

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
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from analyzer.errors import RerunLensError, RouteError
from analyzer.history.on_write import history_wanted, index_written
from analyzer.importers import load_any
from analyzer.jobs.status import JobKind, JobState, JobStatus, now
from analyzer.jobs.store import StateStore, owner
from analyzer.jobs.threads import LiveJob
from analyzer.routes.profile import RouteProfile
from analyzer.routes.url_lint import has_redaction
from analyzer.runner.journal import journal_path
from analyzer.runner.pinned_rerun import RerunRequest, rerun, resume_rerun_plan
from analyzer.runner.plan import ResumeRequest, RunPlan, plan_from_journal
from analyzer.runner.run import run_plan
from analyzer.safety.keys import RunKeys
from analyzer.safety.url_secrets import secret_values

__all__ = ["JobKind", "JobManager", "JobState", "JobStatus", "get_manager"]

_M = TypeVar("_M", bound=Callable[..., Any])


def _serialized(method: _M) -> _M:
    """Run a find-or-start method under the start lock, so two tabs clicking at once start one job."""

    @functools.wraps(method)
    def locked(self: JobManager, *args: Any, **kwargs: Any) -> Any:
        with self._start_lock:
            return method(self, *args, **kwargs)

    return cast(_M, locked)


class JobManager:
    """Starts, finds, cancels and resumes jobs whose logs go to one runs folder."""

    def __init__(self, runs_dir: str | os.PathLike[str]) -> None:
        self.runs_dir = Path(runs_dir).resolve()
        self.store = StateStore(self.runs_dir)
        self._live: dict[str, LiveJob] = {}
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

        def work(live: LiveJob) -> None:
            self._run(live, plan)

        return self._launch(status, work, [*plan.keys.secrets(), *secret_values(plan.profile.base_url)])

    @_serialized
    def start_rerun(self, request: RerunRequest, plan: RunPlan, beside: RunPlan | None = None) -> JobStatus:
        """Run a re-run's plan in the background (`rerun_plan` builds it from a parent log), and after it
        `beside`, the rounds on the parent's own route (`runner.parent_route.parent_route_plan`), if any.

        The same request (parent, tasks, rounds, route) while one runs returns that job; an identical
        job that was interrupted or cancelled is resumed instead of started afresh.
        """
        parent_path = str(Path(request.source or "").resolve())
        ids = [str(t.task_id) for t in plan.tasks]
        key = _request_key("rerun", parent_path, ids, _rounds_asked(plan, beside), plan.profile, None)
        found = self._reuse(key, plan.keys)
        if found is not None:
            return found
        status = self._new_status("rerun", key, plan, parent_path)
        status.tasks_file = str(request.tasks_file) if request.tasks_file else None
        status.answer_key = request.answer_key
        status.selection = request.selection if isinstance(request.selection, str) else None

        def work(live: LiveJob) -> None:
            self._run_rerun(live, request, plan, beside)

        secrets = [*plan.keys.secrets(), *secret_values(plan.profile.base_url)]
        if beside is not None:
            secrets += [*beside.keys.secrets(), *secret_values(beside.profile.base_url)]
        return self._launch(status, work, secrets)

    # --- reading ----------------------------------------------------------------------------------

    def status(self, job_id: str) -> JobStatus | None:
        """The job's status: live when this process runs it, else from its state file."""
        live = self._live.get(job_id)
        if live is not None:
            return live.snapshot()
        return self.store.read(job_id)

    def jobs(self) -> list[JobStatus]:
        """Every job known in this runs folder, newest first."""
        seen: dict[str, JobStatus] = {}
        for job_id in self.store.job_ids():
            status = self.status(job_id)
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
            live.request_cancel()
            return self.status(job_id)
        status = self.store.read(job_id)
        if status is not None and status.state == "running":
            status.cancel_requested = True
            self.store.write(status)
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
        # The route the user chose on the page (kept in the state file), never the journal's own.
        ask = ResumeRequest(profile=profile, session_key=api_key, scenario=scenario)
        request = None if status.kind == "run" else self._rerun_request(status)  # the parent read once
        if request is None:
            plan = plan_from_journal(status.out, ask)
        else:
            plan = resume_rerun_plan(request, status.out, ask)
        status = status.model_copy(
            update={
                "state": "running",
                "cancel_requested": False,
                "error": None,
                "finished_at": None,
                **owner(),
                "started_at": now(),
            }
        )

        def work(live: LiveJob) -> None:
            if request is None:
                self._run(live, plan)
            else:
                self._run_rerun(live, request, plan, None)

        return self._launch(status, work, [*plan.keys.secrets(), *secret_values(plan.profile.base_url)])

    def _rerun_request(self, status: JobStatus) -> RerunRequest:
        """The re-run request a job was started with (its parent read again from disk)."""
        parent = load_any(status.parent or "").log
        return RerunRequest(
            parent,
            status.task_ids,
            status.parent,
            status.tasks_file,
            status.answer_key,
            status.label,
        )

    # --- internals --------------------------------------------------------------------------------

    def _run(self, live: LiveJob, plan: RunPlan) -> None:
        outcome = run_plan(plan, live.controls())
        live.result = outcome
        self._index(live, [outcome.path])
        live.finish(cancelled=outcome.cancelled)

    def _index(self, live: LiveJob, logs: list[Path | None]) -> None:
        """The logs a job wrote, indexed into the runs folder's history before the job reads as done;
        a failure is a warning in the job's notice."""
        if history_wanted():
            index_written(logs, self.runs_dir, lambda line: live.controls().say(f"Warning: {line}"))

    def _run_rerun(self, live: LiveJob, request: RerunRequest, plan: RunPlan, beside: RunPlan | None) -> None:
        report = rerun(request, plan, live.controls(), beside)
        live.result = report
        status = live.status
        with live.lock:
            status.run_id = report.outcome.run_id
            if not report.outcome.cancelled:
                status.turned_consistent = report.turned_consistent
                status.still_inconsistent = report.still_inconsistent
                status.pinned = report.pinned
                status.changes = report.warnings
        self._index(live, [report.outcome.path, report.beside_path])
        live.finish(cancelled=report.outcome.cancelled)

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
            total=plan.total,
            run_id=plan.provenance.run_id,
            simulator=plan.profile.uses_simulator,
            started_at=now(),
            **owner(),
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

    def _launch(self, status: JobStatus, work: Callable[[LiveJob], None], secrets: list[str]) -> JobStatus:
        """Register the job and run `work` in its thread."""
        live = LiveJob(status, self.store)
        with self._lock:
            self._live[status.job_id] = live
        live.start(work, secrets)
        return self.status(status.job_id) or status


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


def _rounds_asked(plan: RunPlan, beside: RunPlan | None) -> object:
    """A re-run's rounds as its request key holds them: one number, or with each task's own (the
    planner's) and those on the parent's own route, so that such re-runs are not taken for each other."""
    if plan.task_rounds is None and beside is None:
        return plan.rounds
    own = dict(plan.task_rounds or {})
    return [plan.rounds, own, dict(beside.task_rounds or {}) if beside is not None else None]


def _request_key(
    kind: str, parent: str | None, ids: list[str], rounds: object, profile: RouteProfile, executor: str | None
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
