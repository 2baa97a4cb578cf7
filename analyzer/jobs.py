"""Background runs and re-runs for the dashboard, UI-free.

A job runs `run_tasks` or `rerun` in a background thread. It is known twice: in a process-wide
registry (`get_manager(runs_dir)`), and as a small state file in the runs folder
(`<runs_dir>/.rerunlens/jobs/<job_id>.jobstate`). A page reload or a second browser tab asks the
manager and finds the running job instead of starting a duplicate; when the process that ran a job
died, the state file and the run's journal let `resume` finish it. No key is ever written: the
state holds the key's variable name (or "session") and its fingerprint.

    mgr = get_manager("runs")
    job = mgr.start_rerun("runs/A.altk_runs.json", ["shop-002"], profile, rounds=5)
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
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from analyzer.atomic import write_text_atomic
from analyzer.errors import RerunLensError, RouteError
from analyzer.model import TaskSpec
from analyzer.route_profile import RouteProfile, key_fingerprint, resolve_keys
from analyzer.url_lint import has_redaction

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

    @_serialized
    def start_run(
        self,
        tasks: Sequence[TaskSpec],
        profile: RouteProfile,
        *,
        rounds: int | None = None,
        out: str | os.PathLike[str] | None = None,
        label: str | None = None,
        api_key: str | None = None,
        executor: str | None = None,
        scenario: Any = None,
    ) -> JobStatus:
        """Run `tasks` in the background; the same request while one runs returns that job instead.

        `api_key` is for this session only and never written; `scenario` configures the embedded
        simulator when no base URL is set.
        """
        rounds = rounds or profile.rounds
        ids = [str(t.task_id) for t in tasks]
        request = _request_key("run", None, ids, rounds, profile, executor)
        found = self._reuse(request, api_key)
        if found is not None:
            return found
        job_id = uuid.uuid4().hex[:8]
        target = Path(out) if out else self.runs_dir / f"run-{_stamp()}-{job_id}.altk_runs.json"
        status = self._new_status(job_id, "run", request, target, None, ids, rounds, profile, label, api_key)

        def work(live: _Live) -> None:
            from analyzer.runner import run_tasks

            outcome = run_tasks(
                list(tasks),
                profile,
                target,
                rounds=rounds,
                executor=executor,
                label=label,
                run_id=status.run_id,
                progress=self._progress(live),
                cancel=live.cancel,
                api_key=api_key,
                scenario=scenario,
                echo=self._echo(live),
            )
            live.result = outcome
            self._finish(live, cancelled=outcome.cancelled)

        return self._launch(status, work, _secrets(profile, api_key))

    @_serialized
    def start_rerun(
        self,
        parent: str | os.PathLike[str],
        only: str | Sequence[str],
        profile: RouteProfile,
        *,
        rounds: int | None = None,
        out: str | os.PathLike[str] | None = None,
        key: str = "exact",
        label: str | None = None,
        api_key: str | None = None,
        tasks_file: str | os.PathLike[str] | None = None,
        scenario: Any = None,
    ) -> JobStatus:
        """Re-run tasks of the log at `parent` on a pinned route, in the background.

        `only` is `flagged`, `inconsistent` or a list of task ids. The same request (parent, tasks,
        rounds, route) while one runs returns that job; an identical job that was interrupted or
        cancelled is resumed instead of started afresh. `api_key` is for this session only and never
        written; `tasks_file` gives definitions for a format-1 parent.
        """
        from analyzer.loader import load_path
        from analyzer.runner.pinned_rerun import select_tasks

        parent_path = Path(parent).resolve()
        parent_log = load_path(parent_path).log
        ids = select_tasks(parent_log, only, key)  # type: ignore[arg-type]
        if not ids:
            raise RerunLensError(f"no {only} tasks in {parent_path.name}: nothing to re-run")
        rounds = rounds or profile.rounds
        pinned = profile.model_copy(update={"key_rotation": []})
        request = _request_key("rerun", str(parent_path), ids, rounds, pinned, None)
        found = self._reuse(request, api_key)
        if found is not None:
            return found
        job_id = uuid.uuid4().hex[:8]
        stem = parent_path.name.removesuffix(".json").removesuffix(".altk_runs")
        target = Path(out) if out else self.runs_dir / f"{stem}.rerun-{job_id}.altk_runs.json"
        status = self._new_status(
            job_id, "rerun", request, target, str(parent_path), ids, rounds, pinned, label, api_key
        )
        status.tasks_file = str(tasks_file) if tasks_file else None
        status.answer_key = key

        def work(live: _Live) -> None:
            self._run_rerun(live, parent_log, pinned, api_key, scenario, tasks_file, key, resume=False)

        return self._launch(status, work, _secrets(pinned, api_key))

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

    def before_after(self, job_id: str, key: str = "exact") -> Any:
        """A finished re-run's before/after frame (recomputed from the two logs, so it survives reloads)."""
        from analyzer.loader import load_path
        from analyzer.runner.pinned_rerun import compare_before_after

        status = self.status(job_id)
        if status is None or status.kind != "rerun" or status.state != "done" or status.parent is None:
            raise RerunLensError(f"job {job_id}: no finished re-run to compare")
        parent = load_path(status.parent).log
        new = load_path(status.out).log
        return compare_before_after(parent, new, status.task_ids, key)  # type: ignore[arg-type]

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
            if status.kind == "run":
                from analyzer.runner import run_tasks

                outcome = run_tasks(
                    None,
                    profile,
                    status.out,
                    resume=True,
                    progress=self._progress(live),
                    cancel=live.cancel,
                    api_key=api_key,
                    scenario=scenario,
                    echo=self._echo(live),
                )
                live.result = outcome
                self._finish(live, cancelled=outcome.cancelled)
            else:
                from analyzer.loader import load_path

                parent_log = load_path(status.parent or "").log
                tasks_file = getattr(status, "tasks_file", None)
                self._run_rerun(
                    live, parent_log, profile, api_key, scenario, tasks_file, status.answer_key, resume=True
                )

        return self._launch(status, work, _secrets(profile, api_key))

    # --- internals --------------------------------------------------------------------------------

    def _run_rerun(
        self,
        live: _Live,
        parent_log: Any,
        profile: RouteProfile,
        api_key: str | None,
        scenario: Any,
        tasks_file: Any,
        key: str,
        *,
        resume: bool,
    ) -> None:
        from analyzer.runner import rerun

        status = live.status
        report = rerun(
            parent_log,
            status.task_ids,
            profile=profile,
            out=status.out,
            rounds=status.rounds,
            source=status.parent,
            tasks_file=tasks_file,
            key=key,
            label=status.label,  # type: ignore[arg-type]
            progress=self._progress(live),
            cancel=live.cancel,
            api_key=api_key,
            scenario=scenario,
            echo=self._echo(live),
            resume=resume,
            run_id=status.run_id,
        )
        live.result = report
        with live.lock:
            status.run_id = report.outcome.run_id
            if not report.outcome.cancelled:
                status.turned_consistent = report.turned_consistent
                status.still_inconsistent = report.still_inconsistent
        self._finish(live, cancelled=report.outcome.cancelled)

    def _new_status(
        self,
        job_id: str,
        kind: JobKind,
        request: str,
        out: Path,
        parent: str | None,
        ids: list[str],
        rounds: int,
        profile: RouteProfile,
        label: str | None,
        api_key: str | None,
    ) -> JobStatus:
        from analyzer.runner.journal import journal_path

        if api_key is not None:
            source, fp = "session", key_fingerprint(api_key)
        else:
            source, fp = f"env:{profile.key_env}", key_fingerprint(resolve_keys(profile)[0])
        return JobStatus(
            job_id=job_id,
            kind=kind,
            state="running",
            request_key=request,
            label=label,
            out=str(out),
            journal=str(journal_path(out)),
            parent=parent,
            task_ids=ids,
            rounds=rounds,
            profile=profile.public_dump(),
            key_source=source,
            key_fingerprint=fp,
            total=len(ids) * rounds,
            run_id=uuid.uuid4().hex[:12],
            simulator=profile.uses_simulator,
            started_at=_now(),
            **_owner(),
        )

    def _reuse(self, request: str, api_key: str | None) -> JobStatus | None:
        """A running job for the same request, or an interrupted/cancelled one resumed."""
        for status in self.jobs():
            if status.request_key != request:
                continue
            if status.state == "running":
                return status
            if status.resumable and (status.key_source != "session" or api_key is not None):
                return self.resume(status.job_id, api_key=api_key)
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
                from analyzer.runner.scrub import one_line, scrub

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


def _secrets(profile: RouteProfile, api_key: str | None) -> list[str]:
    """The key(s) a job may send, read now, so a failure message can be scrubbed of them."""
    if api_key is not None:
        return [api_key]
    return [k for k in resolve_keys(profile) if k]


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
