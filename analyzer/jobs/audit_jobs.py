"""Live audits in a background thread, for the dashboard: start one, poll its progress, cancel it, read
its verdict (`thread_jobs`: one registry keyed by the audit's folder). UI-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from analyzer.audit import Audit, audit_logs
from analyzer.audit.live import LiveAudit, left_text, run_live
from analyzer.audit.live_folder import log_path
from analyzer.errors import RerunLensError
from analyzer.history.on_write import history_wanted, index_written
from analyzer.jobs.thread_jobs import ThreadJob, ThreadJobs
from analyzer.log.model import RunLog

__all__ = ["AuditJob", "audit_job", "cancel_audit", "start_audit"]


@dataclass
class AuditJob(ThreadJob):
    """A live audit running (or finished) in this process; `out` is the folder both logs go to."""

    live: LiveAudit | None = None
    """What it sends, kept so a cancelled or failed audit can continue into the same folder."""
    result: Audit | None = None
    logs: tuple[Path, Path] | None = None
    """The reference's and the candidate's logs, once written."""
    runs: tuple[RunLog, RunLog] | None = None
    """Those logs as read, for the evidence under the verdict."""


_JOBS: ThreadJobs[AuditJob] = ThreadJobs("live audit")


def audit_job(out: str | Path) -> AuditJob | None:
    """The live audit writing into `out` in this process, running or finished, if any."""
    return _JOBS.get(out)


def start_audit(live: LiveAudit, runs_dir: Path, alpha: float = 0.05) -> AuditJob:
    """Start the audit in a daemon thread (or return the one already running into its folder); its
    logs are indexed into the runs folder's history when they are written. Started again on the folder
    of a cancelled or failed one, it keeps every result written and sends only the rest."""

    def work(job: AuditJob) -> None:
        try:
            reference, candidate = run_live(live, job.cancel, job.progress, surface="page")
        except RerunLensError:
            if not job.cancel.is_set():
                raise
            job.message, job.state = left_text(live, "page"), "cancelled"
            return
        paths = (log_path(live, live.reference), log_path(live, live.candidate))
        if history_wanted():
            index_written(list(paths), runs_dir, lambda line: setattr(job, "message", f"Warning: {line}"))
        job.result, job.logs = audit_logs(reference, candidate, alpha), paths
        job.runs = (reference, candidate)
        job.state = "done"

    def make(job_id: str, where: Path) -> AuditJob:
        return AuditJob(job_id, where, planned=live.requests, live=live)

    return _JOBS.start(live.out, make, work)


def cancel_audit(out: str | Path) -> AuditJob | None:
    """Ask the live audit writing into `out` to stop after the requests in flight."""
    return _JOBS.cancel(out)
