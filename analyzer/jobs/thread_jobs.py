"""Short jobs in a daemon thread of this process (a step resample, a live audit): one registry per kind,
keyed by the job's output, so a page rerun or a second tab finds the running job instead of starting
another; progress, cancel and a one-line failure. Runs and re-runs have the resumable
`analyzer.jobs.manager` instead: these are short and simply started again.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Literal, TypeVar

from analyzer.errors import RerunLensError

ThreadState = Literal["running", "done", "cancelled", "failed"]


@dataclass
class ThreadJob:
    """What every short job shows: where it stands, how far it got, why it stopped."""

    job_id: str
    out: Path
    state: ThreadState = "running"
    done: int = 0
    planned: int = 0
    message: str | None = None
    """The one-line error of a failed job (or what a cancelled one left)."""
    cancel: threading.Event = field(default_factory=threading.Event)

    @property
    def fraction(self) -> float:
        """Done / planned (0 before the first)."""
        return self.done / self.planned if self.planned else 0.0

    def progress(self, done: int, planned: int) -> None:
        self.done, self.planned = done, planned


J = TypeVar("J", bound=ThreadJob)


class ThreadJobs(Generic[J]):
    """The jobs of one kind in this process, by resolved output path."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._jobs: dict[Path, J] = {}
        self._lock = threading.Lock()

    def get(self, out: str | Path) -> J | None:
        """The job writing `out`, running or finished, if any."""
        with self._lock:
            return self._jobs.get(Path(out).resolve())

    def start(self, out: Path, make: Callable[[str, Path], J], work: Callable[[J], None]) -> J:
        """The job already running into `out`, else a new one (`make(job_id, where)`) whose `work`
        runs in a daemon thread; a failure it raises becomes the job's one-line message."""
        where = out.resolve()
        with self._lock:
            running = self._jobs.get(where)
            if running is not None and running.state == "running":
                return running
            job = make(uuid.uuid4().hex[:8], where)
            self._jobs[where] = job

        def guarded() -> None:
            try:
                work(job)
            except RerunLensError as exc:
                job.message, job.state = exc.message, "failed"
            except Exception as exc:  # noqa: BLE001 - a background failure is reported, never raised into a page
                job.message, job.state = f"{self.kind} failed ({type(exc).__name__})", "failed"

        threading.Thread(target=guarded, name=f"rerunlens-{self.kind}-{job.job_id}", daemon=True).start()
        return job

    def cancel(self, out: str | Path) -> J | None:
        """Ask the job writing `out` to stop after the work in flight."""
        job = self.get(out)
        if job is not None:
            job.cancel.set()
        return job
