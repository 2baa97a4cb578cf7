"""Live audits in a background thread, for the dashboard: start one, poll its progress, cancel it, read
its verdict. UI-free; one process-wide registry keyed by the audit's folder, so a page rerun or a
second tab finds the running audit instead of starting another. (Like a resample, a live audit is
short and is simply started again; runs and re-runs have the resumable `analyzer.jobs.manager`.)
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from analyzer.audit import Audit, audit_logs
from analyzer.audit.live import LiveAudit, run_live
from analyzer.errors import RerunLensError
from analyzer.history.on_write import history_wanted, index_written

__all__ = ["AuditJob", "audit_job", "cancel_audit", "start_audit"]

AuditState = Literal["running", "done", "cancelled", "failed"]


@dataclass
class AuditJob:
    """A live audit running (or finished) in this process."""

    job_id: str
    out: Path
    """The folder both routes' logs are written to."""
    state: AuditState = "running"
    done: int = 0
    planned: int = 0
    message: str | None = None
    """The one-line error of a failed audit, or what a cancelled one left."""
    result: Audit | None = None
    logs: tuple[Path, Path] | None = None
    """The reference's and the candidate's logs, once written."""
    cancel: threading.Event = field(default_factory=threading.Event)

    @property
    def fraction(self) -> float:
        """Requests answered / planned (0 before the first)."""
        return self.done / self.planned if self.planned else 0.0


_JOBS: dict[Path, AuditJob] = {}
_LOCK = threading.Lock()


def audit_job(out: str | Path) -> AuditJob | None:
    """The live audit writing into `out` in this process, running or finished, if any."""
    with _LOCK:
        return _JOBS.get(Path(out).resolve())


def start_audit(live: LiveAudit, runs_dir: Path, alpha: float = 0.05) -> AuditJob:
    """Start the audit in a daemon thread (or return the one already running into its folder); its
    logs are indexed into the runs folder's history when they are written."""
    where = live.out.resolve()
    with _LOCK:
        running = _JOBS.get(where)
        if running is not None and running.state == "running":
            return running
        job = AuditJob(job_id=uuid.uuid4().hex[:8], out=where, planned=2 * live.samples * len(live.tasks))
        _JOBS[where] = job

    def progress(done: int, planned: int) -> None:
        job.done, job.planned = done, planned

    def work() -> None:
        try:
            reference, candidate = run_live(live, job.cancel, progress)
            paths = tuple(where / f"audit-{r.label}.altk_runs.json" for r in (live.reference, live.candidate))
            if history_wanted():
                index_written(list(paths), runs_dir, lambda line: setattr(job, "message", f"Warning: {line}"))
            job.result, job.logs = audit_logs(reference, candidate, alpha), (paths[0], paths[1])
            job.state = "done"
        except RerunLensError as exc:
            job.message, job.state = exc.message, "cancelled" if job.cancel.is_set() else "failed"
        except Exception as exc:  # noqa: BLE001 - a background failure is reported, never raised into a page
            job.message, job.state = f"live audit failed ({type(exc).__name__})", "failed"

    threading.Thread(target=work, name=f"rerunlens-audit-{job.job_id}", daemon=True).start()
    return job


def cancel_audit(out: str | Path) -> AuditJob | None:
    """Ask the live audit writing into `out` to stop after the requests in flight."""
    job = audit_job(out)
    if job is not None:
        job.cancel.set()
    return job
