"""Step resamples in a background thread, for the dashboard: start one for a task, poll its progress,
cancel it. UI-free; one process-wide registry keyed by the output path, so a page rerun or a second
tab finds the running resample instead of starting another. (Runs and re-runs have their own,
resumable job manager in `analyzer.jobs.manager`; a resample is short and is simply started again.)
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from analyzer.errors import RerunLensError
from analyzer.routes.profile import RouteProfile
from analyzer.runner.resample import ResampleReport, ResampleRequest, resample
from analyzer.safety.keys import RunKeys

__all__ = ["ResampleJob", "cancel_resample", "resample_job", "start_resample"]

ResampleState = Literal["running", "done", "cancelled", "failed"]


@dataclass
class ResampleJob:
    """A resample running (or finished) in this process."""

    job_id: str
    task_id: str
    out: Path
    state: ResampleState = "running"
    done: int = 0
    planned: int = 0
    message: str | None = None
    """The one-line error of a failed resample."""
    report: ResampleReport | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    @property
    def fraction(self) -> float:
        """Samples done / planned (0 before the first sample)."""
        return self.done / self.planned if self.planned else 0.0


_JOBS: dict[Path, ResampleJob] = {}
_LOCK = threading.Lock()


def resample_job(out: str | Path) -> ResampleJob | None:
    """The resample writing `out` in this process, running or finished, if any."""
    with _LOCK:
        return _JOBS.get(Path(out).resolve())


def start_resample(request: ResampleRequest, profile: RouteProfile, keys: RunKeys) -> ResampleJob:
    """Start the resample in a daemon thread (or return the one already running for its output)."""
    where = request.out.resolve()
    with _LOCK:
        running = _JOBS.get(where)
        if running is not None and running.state == "running":
            return running
        job = ResampleJob(job_id=uuid.uuid4().hex[:8], task_id=request.task_id, out=where)
        _JOBS[where] = job

    def progress(done: int, planned: int) -> None:
        job.done, job.planned = done, planned

    def work() -> None:
        try:
            job.report = resample(request, profile, keys, cancel=job.cancel, progress=progress)
            job.state = "cancelled" if job.report.cancelled else "done"
        except RerunLensError as exc:
            job.message, job.state = exc.message, "failed"
        except Exception as exc:  # noqa: BLE001 - a background failure is reported, never raised into a page
            job.message, job.state = f"resample failed ({type(exc).__name__})", "failed"

    threading.Thread(target=work, name=f"rerunlens-resample-{job.job_id}", daemon=True).start()
    return job


def cancel_resample(out: str | Path) -> ResampleJob | None:
    """Ask the resample writing `out` to stop after its current sample."""
    job = resample_job(out)
    if job is not None:
        job.cancel.set()
    return job
