"""Live audits in a background thread, for the dashboard: start one, poll its progress, cancel it, read
its verdict (`thread_jobs`: one registry keyed by the audit's folder). UI-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from analyzer.audit import Audit, audit_logs
from analyzer.audit.live import LiveAudit, run_live
from analyzer.errors import RerunLensError
from analyzer.history.on_write import history_wanted, index_written
from analyzer.jobs.thread_jobs import ThreadJob, ThreadJobs

__all__ = ["AuditJob", "audit_job", "cancel_audit", "start_audit"]


@dataclass
class AuditJob(ThreadJob):
    """A live audit running (or finished) in this process; `out` is the folder both logs go to."""

    result: Audit | None = None
    logs: tuple[Path, Path] | None = None
    """The reference's and the candidate's logs, once written."""


_JOBS: ThreadJobs[AuditJob] = ThreadJobs("live audit")


def audit_job(out: str | Path) -> AuditJob | None:
    """The live audit writing into `out` in this process, running or finished, if any."""
    return _JOBS.get(out)


def start_audit(live: LiveAudit, runs_dir: Path, alpha: float = 0.05) -> AuditJob:
    """Start the audit in a daemon thread (or return the one already running into its folder); its
    logs are indexed into the runs folder's history when they are written."""

    def work(job: AuditJob) -> None:
        try:
            reference, candidate = run_live(live, job.cancel, job.progress)
        except RerunLensError as exc:
            if not job.cancel.is_set():
                raise
            job.message, job.state = exc.message, "cancelled"
            return
        paths = tuple(job.out / f"audit-{r.label}.altk_runs.json" for r in (live.reference, live.candidate))
        if history_wanted():
            index_written(list(paths), runs_dir, lambda line: setattr(job, "message", f"Warning: {line}"))
        job.result, job.logs = audit_logs(reference, candidate, alpha), (paths[0], paths[1])
        job.state = "done"

    planned = 2 * live.samples * len(live.tasks)
    return _JOBS.start(live.out, lambda job_id, where: AuditJob(job_id, where, planned=planned), work)


def cancel_audit(out: str | Path) -> AuditJob | None:
    """Ask the live audit writing into `out` to stop after the requests in flight."""
    return _JOBS.cancel(out)
