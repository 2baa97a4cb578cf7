"""The scheduling loop: a bounded pool of workers, a journal line per result, progress after each."""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from dataclasses import dataclass

import openai

from analyzer.log.model import Result, TaskSpec
from analyzer.runner.executors import Executor, coerce_result
from analyzer.runner.journal import JournalWriter
from analyzer.runner.plan import RunControls, RunPlan
from analyzer.runner.progress import Progress
from analyzer.runner.results import Attempted, Stamp, build_result
from analyzer.runner.transport import now_utc, recording

WorkItem = tuple[TaskSpec, int, int]
"""A task, its round, and its position in the run (which fixes its key in a key rotation)."""


@dataclass(frozen=True)
class Bound:
    """The executor and the client it calls through, bound for one run."""

    fn: Executor
    client: openai.OpenAI
    stamp: Stamp


class Scheduler:
    """Runs a plan's unfinished (task, round) pairs on `profile.concurrency` worker threads."""

    def __init__(self, plan: RunPlan, bound: Bound, writer: JournalWriter, controls: RunControls) -> None:
        self.plan, self.bound, self.writer, self.controls = plan, bound, writer, controls
        self.tasks = list(plan.tasks)
        self.results: dict[tuple[str, int], Result] = dict(plan.done)
        self.total = plan.total
        self.lock = threading.Lock()
        self.started = time.monotonic()
        done = self.results.values()
        self.tokens = sum(r.total_tokens or 0 for r in done)
        self.retries = sum(r.retries for r in done)
        self.errors = sum(r.status == "error" for r in done)

    @property
    def cancel(self) -> threading.Event:
        return self.controls.cancel

    @property
    def done_count(self) -> int:
        return len(self.results)

    def progress(self) -> Progress:
        """Where the run stands now."""
        elapsed = time.monotonic() - self.started
        return Progress(self.done_count, self.total, self.tokens, self.retries, self.errors, elapsed)

    def run(self) -> None:
        """Run every unfinished pair; return when all are done or the run is cancelled.

        Raises:
            BaseException: the first failure of the runner itself (not of a task), or Ctrl-C.
        """
        todo = [
            (task, rnd, (rnd - 1) * len(self.tasks) + i)
            for rnd in range(1, self.plan.rounds + 1)
            for i, task in enumerate(self.tasks)
            if rnd <= self.plan.rounds_of(str(task.task_id)) and (str(task.task_id), rnd) not in self.results
        ]
        self._notify(self.progress())
        work: queue.SimpleQueue[WorkItem] = queue.SimpleQueue()
        for item in todo:
            work.put(item)
        failures: list[BaseException] = []
        workers = [
            threading.Thread(
                target=self._worker, args=(work, failures), name=f"rerunlens-run-{i}", daemon=True
            )
            for i in range(min(self.plan.profile.concurrency, len(todo)))
        ]
        for w in workers:
            w.start()
        try:
            for w in workers:
                while w.is_alive():
                    w.join(timeout=0.2)
        except BaseException:
            # Ctrl-C: stop handing out work and return at once; workers are daemon threads, so an
            # in-flight request cannot hold the process (its result is redone on resume).
            self.cancel.set()
            raise
        self.bound.client.close()
        if failures:
            raise failures[0]  # a bug in the runner itself should surface, not vanish

    def rounds_of_results(self) -> list[list[Result]]:
        """The finished results, round by round, in task order."""
        return [
            [self.results[(str(t.task_id), rnd)] for t in self.tasks if (str(t.task_id), rnd) in self.results]
            for rnd in range(1, self.plan.rounds + 1)
        ]

    def _worker(self, work: queue.SimpleQueue[WorkItem], failures: list[BaseException]) -> None:
        """Take the next (task, round) until none is left or the run is cancelled."""
        while not self.cancel.is_set():
            try:
                task, rnd, seq = work.get_nowait()
            except queue.Empty:
                return
            try:
                self._one(task, rnd, seq)
            except BaseException as exc:
                failures.append(exc)
                self.cancel.set()
                return

    def _notify(self, snapshot: Progress) -> None:
        """Call the progress callback; a failing callback (a closed page) must not stop the run."""
        if self.controls.progress is None:
            return
        with contextlib.suppress(Exception):
            self.controls.progress(snapshot)

    def _one(self, task: TaskSpec, rnd: int, seq: int) -> None:
        if self.cancel.is_set():
            return
        started = now_utc()
        t0 = time.perf_counter()
        error: BaseException | None = None
        value = None
        with recording(seq) as rec:
            try:
                raw = self.bound.fn(task, self.bound.client, self.plan.profile)
                value = coerce_result(raw, self.bound.stamp.executor)
            except Exception as exc:  # a failing task becomes an error result; the run goes on
                error = exc
        if error is not None and self.cancel.is_set():
            return  # interrupted rather than failed: a resume will run it again
        latency = (time.perf_counter() - t0) * 1000
        result = build_result(Attempted(task, rnd, rec, value, error, started, latency), self.bound.stamp)
        with self.lock:
            key = (str(task.task_id), rnd)
            if key in self.results:
                return
            self.writer.append(result)
            self.results[key] = result
            self.tokens += result.total_tokens or 0
            self.retries += result.retries
            self.errors += result.status == "error"
            snapshot = self.progress()
        self._notify(snapshot)
