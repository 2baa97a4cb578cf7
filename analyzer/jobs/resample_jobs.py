"""Step resamples in a background thread, for the dashboard: start one for a task, poll its progress,
cancel it (`thread_jobs`: one registry keyed by the output path). UI-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from analyzer.jobs.thread_jobs import ThreadJob, ThreadJobs
from analyzer.routes.profile import RouteProfile
from analyzer.runner.resample import ResampleReport, ResampleRequest, resample
from analyzer.safety.keys import RunKeys

__all__ = ["ResampleJob", "cancel_resample", "resample_job", "start_resample"]


@dataclass
class ResampleJob(ThreadJob):
    """A resample running (or finished) in this process."""

    task_id: str = ""
    report: ResampleReport | None = None


_JOBS: ThreadJobs[ResampleJob] = ThreadJobs("resample")


def resample_job(out: str | Path) -> ResampleJob | None:
    """The resample writing `out` in this process, running or finished, if any."""
    return _JOBS.get(out)


def start_resample(request: ResampleRequest, profile: RouteProfile, keys: RunKeys) -> ResampleJob:
    """Start the resample in a daemon thread (or return the one already running for its output)."""

    def work(job: ResampleJob) -> None:
        job.report = resample(request, profile, keys, cancel=job.cancel, progress=job.progress)
        job.state = "cancelled" if job.report.cancelled else "done"

    return _JOBS.start(
        request.out, lambda job_id, where: ResampleJob(job_id, where, task_id=request.task_id), work
    )


def cancel_resample(out: str | Path) -> ResampleJob | None:
    """Ask the resample writing `out` to stop after its current sample."""
    return _JOBS.cancel(out)
