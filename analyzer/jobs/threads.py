"""A job's life in this process: its thread, its cancel event, and its status written as it moves.

`LiveJob.start(work)` runs `work(live)` in a daemon thread; whatever happens, the job ends in a state
(`done`, `cancelled` or `failed` with one scrubbed line). Progress is written to the state file at
most every `WRITE_EVERY_S`; a cancel asked through the file by another process is honoured.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from analyzer.jobs.status import JobStatus, now
from analyzer.jobs.store import RUNNING_HERE, StateStore
from analyzer.runner.plan import RunControls
from analyzer.runner.progress import Progress
from analyzer.safety.scrub import one_line, scrub

WRITE_EVERY_S = 0.25
"""Least time between two progress writes of one job's state file."""


class LiveJob:
    """In-process handle of a job: its thread, cancel event and latest status."""

    def __init__(self, status: JobStatus, store: StateStore) -> None:
        self.status = status
        self.store = store
        self.cancel = threading.Event()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()
        self.last_write = 0.0
        self.result: Any = None

    def snapshot(self) -> JobStatus:
        """A copy of the status, safe to hand to a page."""
        with self.lock:
            return self.status.model_copy(deep=True)

    def start(self, work: Callable[[LiveJob], None], secrets: list[str]) -> None:
        """Run `work` in a thread; a failure is recorded in one line with `secrets` (the keys) scrubbed."""
        self.write(force=True)

        def body() -> None:
            watcher = threading.Thread(target=self._watch_cancel, daemon=True)
            watcher.start()
            try:
                work(self)
            except BaseException as exc:  # the job must end in a state, whatever happened
                with self.lock:
                    self.status.state = "failed"
                    self.status.error = one_line(scrub(str(exc) or type(exc).__name__, secrets), 300)
                    self.status.finished_at = now()
                self.write(force=True)
            finally:
                RUNNING_HERE.discard(self.status.job_id)

        RUNNING_HERE.add(self.status.job_id)
        self.thread = threading.Thread(target=body, name=f"rerunlens-job-{self.status.job_id}", daemon=True)
        self.thread.start()

    def request_cancel(self) -> None:
        """Stop after the results in flight (they stay in the journal)."""
        self.cancel.set()
        with self.lock:
            self.status.cancel_requested = True
        self.write(force=True)

    def controls(self) -> RunControls:
        """What a run needs to report into this job and to hear a cancel."""
        return RunControls(progress=self._progress, cancel=self.cancel, echo=self._note)

    def finish(self, *, cancelled: bool) -> None:
        """The job ended: `cancelled` (resumable) or `done`."""
        with self.lock:
            self.status.state = "cancelled" if cancelled else "done"
            self.status.finished_at = now()
        self.write(force=True)

    def write(self, force: bool = False) -> None:
        """The status to its state file; throttled unless `force`."""
        stamp = time.monotonic()
        with self.lock:
            if not force and stamp - self.last_write < WRITE_EVERY_S:
                return
            self.last_write = stamp
            self.status.updated_at = now()
            if not force and self.store.cancel_requested(self.status.job_id):
                self.status.cancel_requested = True
            text = self.status.model_dump_json(indent=2)
        self.store.write_text(self.status.job_id, text)

    def _watch_cancel(self) -> None:
        """Honour a cancel requested from another process (through the state file)."""
        while self.thread is None or self.thread.is_alive():
            if self.status.state != "running" or self.cancel.is_set():
                return
            if self.store.cancel_requested(self.status.job_id):
                self.cancel.set()
                return
            time.sleep(0.3)

    def _progress(self, p: Progress) -> None:
        with self.lock:
            s = self.status
            s.done, s.total, s.tokens, s.retries, s.errors = p.done, p.total, p.tokens, p.retries, p.errors
        self.write()

    def _note(self, msg: str) -> None:
        """Keep the first notice; add warnings, the simulator notice and an error count to it."""
        with self.lock:
            current = self.status.notice
            if current is None:
                self.status.notice = msg
            elif msg not in current and (
                msg.startswith("Warning:") or "built-in simulator" in msg or "errored" in msg
            ):
                self.status.notice = f"{current} {msg}"
