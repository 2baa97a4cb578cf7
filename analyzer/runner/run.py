"""Run tasks for N rounds through one route, recording every attempt, checkpointing every result.

`run_tasks` is the one entry point for the CLI (`rerunlens run`), `rerun` and the dashboard's jobs.
"""

from __future__ import annotations

import contextlib
import queue
import shlex
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import openai
from pydantic import ValidationError

from analyzer.answers import normalized_key
from analyzer.errors import RerunLensError, RouteError
from analyzer.loader import save_log
from analyzer.model import FORMAT_V2, Result, ResultError, Route, RunLog, Summary, TaskSpec
from analyzer.route_profile import RouteProfile, check_keys_clean, flag_name, resolve_keys
from analyzer.runner.client import make_client
from analyzer.runner.embedded import Served, key_ring, serving
from analyzer.runner.executors import Executor, ExecutorResult, coerce_result, load_executor
from analyzer.runner.journal import JournalState, JournalWriter, journal_path, read_journal
from analyzer.runner.progress import Progress
from analyzer.runner.scrub import one_line, scrub
from analyzer.runner.transport import AttemptRecorder, KeyRing, now_utc, recording
from analyzer.simulator import Scenario
from analyzer.url_lint import has_redaction

ProgressCallback = Callable[[Progress], None]


@dataclass
class RunOutcome:
    """How a run ended."""

    run_id: str
    """The run's id (also in the log and journal)."""
    path: Path | None
    """The final log; None when the run was cancelled before finishing."""
    journal: Path
    """The journal (removed once the final log is written)."""
    log: RunLog | None
    """The final log, when written."""
    cancelled: bool
    """True when cancel was set (or Ctrl-C pressed) before every result was done."""
    progress: Progress
    """Figures at the end."""
    notice: str | None = None
    """The simulator notice, when the embedded simulator served."""
    resume_hint: str | None = None
    """How to finish a cancelled run."""


def grade(answer: str | None, expected: Any) -> bool | None:
    """Success: the normalized answer equals the normalized expected answer (or one of a list)."""
    if expected is None or answer is None:
        return None
    options = expected if isinstance(expected, list) else [expected]
    got = normalized_key(answer)
    return any(got == normalized_key(str(e)) for e in options)


def run_tasks(
    tasks: Sequence[TaskSpec] | None,
    profile: RouteProfile | None,
    out: str | Path,
    *,
    rounds: int | None = None,
    executor: str | Executor | None = None,
    resume: bool = False,
    label: str | None = None,
    parent_run_id: str | None = None,
    run_id: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    api_key: str | None = None,
    api_keys: list[str] | None = None,
    scenario: Scenario | None = None,
    echo: Callable[[str], None] | None = None,
    extra: dict[str, Any] | None = None,
    resume_command: str | None = None,
    simulator_port: int | None = None,
) -> RunOutcome:
    """Run every task `rounds` times (default: the profile's) and write a format-2 log to `out`.

    Args:
        tasks: Task definitions; may be None when resuming (the journal has them).
        profile: The route; with no base URL the embedded simulator serves. On resume the journal's
            route is the run's route: None takes it as recorded, and a profile that differs from it
            in any setting (rounds aside) is refused, naming the settings.
        out: Final log path; the journal sits beside it (`*.journal.jsonl`).
        rounds: Rounds per task; None uses `profile.rounds`.
        executor: `module:function`, a callable, or None for one chat completion per task.
        resume: Finish the run recorded in the journal instead of starting a new one.
        label, parent_run_id, run_id: Log provenance (a re-run names its parent).
        progress: Called after every finished result with a `Progress`.
        cancel: Set it to stop; finished results stay in the journal for a resume.
        api_key: A key for this run only (e.g. a dashboard password field); never stored.
        api_keys: Several keys to rotate over per attempt (the sample logs' key-rotation setups).
        scenario: Simulator scenario when the embedded simulator serves.
        echo: Where one-line notices go (default: nowhere).
        extra: Further top-level fields for the log.
        resume_command: The command line to print when interrupted (CLI only).
        simulator_port: Port to try first for the embedded simulator (any free one otherwise).

    Raises:
        RerunLensError: a journal is in the way (or missing on resume), an executor cannot load.
        KeyboardInterrupt: after Ctrl-C, once the journal is safe and the resume hint is printed.
    """
    say = echo or (lambda _msg: None)
    out = Path(out)
    jpath = journal_path(out)
    cancel = cancel or threading.Event()
    done: dict[tuple[str, int], Result] = {}
    if resume:
        if not jpath.exists():
            if out.exists():
                raise RerunLensError(f"{out}: already complete; nothing to resume")
            raise RerunLensError(f"{jpath}: no journal to resume from")
        state = read_journal(jpath)
        header = state.header
        profile = _resume_route(header, profile, jpath)
        tasks, rounds, run_id, created_at = _from_header(state, tasks, rounds)
        label = label if label is not None else header.get("label")
        parent_run_id = parent_run_id or header.get("parent_run_id")
        extra = extra if extra is not None else header.get("extra")
        if executor is None:
            executor = header.get("executor")
        wanted = {(str(t.task_id), rnd) for t in tasks for rnd in range(1, rounds + 1)}
        done = {k: r for k, r in state.results.items() if k in wanted}
        preferred_port = header.get("simulator_port")
        recorded_route = header.get("route") if isinstance(header.get("route"), dict) else {}
    else:
        if jpath.exists():
            raise RerunLensError(
                f"{jpath}: an unfinished run is recorded there; finish it with --resume or delete the journal"
            )
        if not tasks:
            raise RerunLensError("no tasks to run")
        if profile is None:
            raise RerunLensError("no route profile given")
        if out.exists():
            raise RerunLensError(f"{out} already exists; choose another output path or delete it")
        run_id = run_id or uuid.uuid4().hex[:12]
        created_at = now_utc()
        preferred_port = simulator_port
        recorded_route = {}
    assert tasks is not None and profile is not None
    rounds = rounds or profile.rounds
    fn, spec = (
        (executor, getattr(executor, "__name__", "custom")) if callable(executor) else load_executor(executor)
    )

    _keys_clean_early(profile, api_key, api_keys)
    with serving(profile, scenario=scenario, preferred_port=preferred_port) as served:
        if served.notice:
            say(served.notice)
        keys = key_ring(profile, served, api_key=api_key, api_keys=api_keys)
        if resume:
            _same_keys(recorded_route, keys, profile, jpath)
        header = {
            "run_id": run_id,
            "created_at": created_at.isoformat(),
            "label": label,
            "parent_run_id": parent_run_id,
            "rounds": rounds,
            "executor": spec if isinstance(executor, str) or executor is None else None,
            "profile": profile.public_dump(),
            "route": _log_route(profile, served, keys).model_dump(mode="json", exclude_none=True),
            "tasks": [t.model_dump(mode="json", exclude_none=True) for t in tasks],
            "simulator_port": served.simulator.port if served.simulator else None,
            "extra": extra,
        }
        writer = JournalWriter(jpath, None if resume else header)
        runner = _Runner(tasks, rounds, profile, served, keys, fn, spec, writer, done, progress, cancel)
        try:
            runner.run()
        except KeyboardInterrupt:
            cancel.set()
            writer.close()
            hint = _resume_hint(out, resume_command)
            say(f"Interrupted: {runner.done_count} of {runner.total} results are saved in {jpath}. {hint}")
            raise
        except RerunLensError:
            raise
        except Exception as exc:  # a bug in the runner: one line, the journal kept for a resume
            final = runner.progress()
            raise _kept(exc, "the run stopped", final, jpath, out, resume_command, keys) from None
        finally:
            writer.close()

    final = runner.progress()
    if cancel.is_set() and final.done < final.total:
        hint = _resume_hint(out, resume_command)
        say(f"Cancelled: {final.done} of {final.total} results are saved in {jpath}. {hint}")
        return RunOutcome(run_id, None, jpath, None, True, final, served.notice, hint)

    try:
        log = RunLog(
            format=FORMAT_V2,
            run_id=run_id,
            created_at=created_at,
            **({"parent_run_id": parent_run_id} if parent_run_id else {}),
            **({"label": label} if label else {}),
            route=_log_route(profile, served, keys),
            tasks=list(tasks),
            runs=runner.rounds_of_results(),
            **(extra or {}),
        )
        log.summary = _summary(log, profile, served)
        save_log(log, out)
    except Exception as exc:  # the results are safe in the journal: say so in one line, keep it
        raise _kept(exc, "could not write the final log", final, jpath, out, resume_command, keys) from None
    jpath.unlink(missing_ok=True)
    errors = error_summary(runner.results.values())
    say(
        f"Wrote {out}: {len(tasks)} tasks x {rounds} rounds, {final.tokens:,} tokens, {final.retries} retries"
        + (f"; {errors}" if errors else "")
    )
    return RunOutcome(run_id, out, jpath, log, False, final, served.notice)


def error_summary(results: Iterable[Result]) -> str | None:
    """`N of M results errored (most common: Type, HTTP 401 - message)`, or None when none errored."""
    items = list(results)
    errored = [r for r in items if r.status == "error"]
    if not errored:
        return None
    kinds = Counter(_error_kind(r) for r in errored)
    (common, count), *_ = kinds.most_common(1)
    return f"{len(errored)} of {len(items)} results errored (most common, {count}x: {common})"


def _error_kind(result: Result) -> str:
    err = result.error
    if err is None:
        return "unknown error"
    status = f" HTTP {err.http_status}" if err.http_status else ""
    text = one_line(err.message or "", 90) if err.message else ""
    return f"{err.type}{status}" + (f" - {text}" if text else "")


def _kept(
    exc: BaseException,
    what: str,
    progress: Progress,
    jpath: Path,
    out: Path,
    command: str | None,
    keys: KeyRing,
) -> RerunLensError:
    """A one-line error for a failure after results were journalled: they are kept, and how to resume."""
    reason = one_line(scrub(f"{type(exc).__name__}: {exc}", keys.secrets()), 200)
    return RerunLensError(
        f"{what} ({reason}); the {progress.done} finished results are kept in {jpath}. "
        f"{_resume_hint(out, command)}"
    )


def _keys_clean_early(profile: RouteProfile, api_key: str | None, api_keys: list[str] | None) -> None:
    """Refuse a key with white space or control characters before the simulator even starts."""
    if api_keys:
        check_keys_clean([f"key {n} of the rotation" for n in range(1, len(api_keys) + 1)], api_keys)
    elif api_key is not None:
        check_keys_clean(["the session's key field"], [api_key])
    else:
        check_keys_clean(profile.key_envs(), resolve_keys(profile))


def _same_keys(recorded: dict[str, Any], keys: KeyRing, profile: RouteProfile, jpath: Path) -> None:
    """A resumed run must send the key(s) it started with (compared by fingerprint), or its log mixes two."""
    before = recorded.get("key_fingerprints") or (
        [recorded["key_fingerprint"]] if recorded.get("key_fingerprint") else []
    )
    now = [fp for fp in keys.fingerprints if fp]
    if before and now != list(before):
        raise RouteError(
            f"--resume: the journal {jpath.name} was started with the key {', '.join(before)} and "
            f"{profile.key_env} now holds {', '.join(now) or 'no key'}; resume with the same key"
        )


def _resume_route(header: dict[str, Any], given: RouteProfile | None, jpath: Path) -> RouteProfile:
    """The route a resumed run uses: the journal's. A given profile must match it (rounds aside)."""
    try:
        recorded = RouteProfile.model_validate(header.get("profile") or {})
    except ValueError as err:
        raise RerunLensError(f"journal {jpath} is damaged at line 1: its route profile is not valid") from err
    if given is None:
        if has_redaction(recorded.base_url):
            raise RouteError(
                f"the journal {jpath.name} was started with a base URL holding a secret, which was not "
                "saved; resume with the same --base-url"
            )
        return recorded
    mine = given.public_dump()
    theirs = recorded.public_dump()
    differ = sorted(f for f in theirs if f != "rounds" and mine.get(f) != theirs.get(f))
    if differ:
        shown = ", ".join(f"{flag_name(f)} {theirs.get(f)!r} (given {mine.get(f)!r})" for f in differ)
        raise RouteError(
            f"--resume: the journal {jpath.name} was started with a different route: {shown}; "
            "resume with the journal's route (drop those flags) or start a new run with another --out"
        )
    if has_redaction(given.base_url):
        raise RouteError("--resume: give the real --base-url, not its redacted form")
    return given.model_copy(update={"rounds": recorded.rounds})


def _from_header(
    state: JournalState, tasks: Sequence[TaskSpec] | None, rounds: int | None
) -> tuple[list[TaskSpec], int, str, datetime]:
    header = state.header
    recorded = [TaskSpec.model_validate(t) for t in header.get("tasks", [])]
    if tasks is not None and [str(t.task_id) for t in tasks] != [str(t.task_id) for t in recorded]:
        raise RerunLensError("the journal was written for a different task list; resume with the same tasks")
    if rounds is not None and rounds != header.get("rounds"):
        raise RerunLensError(f"the journal was written for {header.get('rounds')} rounds, not {rounds}")
    return (
        recorded,
        int(header["rounds"]),
        str(header["run_id"]),
        datetime.fromisoformat(header["created_at"]),
    )


def _resume_hint(out: Path, command: str | None) -> str:
    if command:
        return f"Resume with: {command}"
    return f"Resume with: rerunlens run --out {shlex.quote(str(out))} --resume (same tasks and route flags)"


def _log_route(profile: RouteProfile, served: Served, keys: KeyRing) -> Route:
    fps = [fp for fp in keys.fingerprints if fp]
    route = profile.to_route(base_url=served.shown_url, fingerprints=fps)
    route.simulator = served.simulator is not None
    return route


def _summary(log: RunLog, profile: RouteProfile, served: Served) -> Summary:
    """The format-1 summary block, computed by the metrics' own analyze() so it never disagrees."""
    from analyzer.analysis import analyze

    head = analyze(log).headline
    total = head.tokens.total or 0
    return Summary(
        model=profile.model,
        base_url=served.shown_url,
        repeat=len(log.runs),
        task_count=head.tasks,
        consistency_gap_pp=round(head.answer_gap_pp, 2) if head.answer_gap_pp is not None else None,
        total_tokens=int(total),
        avg_tokens_per_task=round(total / head.tasks, 2) if head.tasks else 0.0,
    )


class _Runner:
    """The scheduling loop: a bounded pool, a journal line per result, progress after each."""

    def __init__(
        self,
        tasks: Sequence[TaskSpec],
        rounds: int,
        profile: RouteProfile,
        served: Served,
        keys: KeyRing,
        fn: Executor,
        spec: str,
        writer: JournalWriter,
        done: dict[tuple[str, int], Result],
        callback: ProgressCallback | None,
        cancel: threading.Event,
    ) -> None:
        self.tasks, self.rounds, self.profile, self.served = list(tasks), rounds, profile, served
        self.keys, self.fn, self.spec, self.writer = keys, fn, spec, writer
        self.results = dict(done)
        self.callback, self.cancel = callback, cancel
        self.total = len(self.tasks) * rounds
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.tokens = sum(r.total_tokens or 0 for r in done.values())
        self.retries = sum(max(0, len(r.attempts or []) - 1) for r in done.values())
        self.errors = sum(r.status == "error" for r in done.values())
        self.client, self.transport = make_client(profile, served.base_url, keys)

    @property
    def done_count(self) -> int:
        return len(self.results)

    def progress(self) -> Progress:
        return Progress(
            self.done_count,
            self.total,
            self.tokens,
            self.retries,
            self.errors,
            time.monotonic() - self.started,
        )

    def run(self) -> None:
        todo = [
            (task, rnd, (rnd - 1) * len(self.tasks) + i)
            for rnd in range(1, self.rounds + 1)
            for i, task in enumerate(self.tasks)
            if (str(task.task_id), rnd) not in self.results
        ]
        self._notify(self.progress())
        work: queue.SimpleQueue[tuple[TaskSpec, int, int]] = queue.SimpleQueue()
        for item in todo:
            work.put(item)
        failures: list[BaseException] = []
        workers = [
            threading.Thread(
                target=self._worker, args=(work, failures), name=f"rerunlens-run-{i}", daemon=True
            )
            for i in range(min(self.profile.concurrency, len(todo)))
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
        self.client.close()
        if failures:
            raise failures[0]  # a bug in the runner itself should surface, not vanish

    def _worker(
        self, work: queue.SimpleQueue[tuple[TaskSpec, int, int]], failures: list[BaseException]
    ) -> None:
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
        if self.callback is None:
            return
        with contextlib.suppress(Exception):
            self.callback(snapshot)

    def _one(self, task: TaskSpec, rnd: int, seq: int) -> None:
        if self.cancel.is_set():
            return
        started = now_utc()
        t0 = time.perf_counter()
        error: BaseException | None = None
        value: ExecutorResult | None = None
        with recording(seq) as rec:
            try:
                value = coerce_result(self.fn(task, self.client, self.profile), self.spec)
            except Exception as exc:  # a failing task becomes an error result; the run goes on
                error = exc
        if error is not None and self.cancel.is_set():
            return  # interrupted rather than failed: a resume will run it again
        latency = (time.perf_counter() - t0) * 1000
        try:
            result = self._result(task, rnd, rec, value, error, started, latency)
        except Exception as exc:  # whatever went wrong recording it, the result is kept as an error
            result = self._bare_error(task, rnd, rec, exc, started, latency)
        with self.lock:
            key = (str(task.task_id), rnd)
            if key in self.results:
                return
            self.writer.append(result)
            self.results[key] = result
            self.tokens += result.total_tokens or 0
            self.retries += max(0, len(result.attempts or []) - 1)
            self.errors += result.status == "error"
            snapshot = self.progress()
        self._notify(snapshot)

    def _result(
        self,
        task: TaskSpec,
        rnd: int,
        rec: AttemptRecorder,
        value: ExecutorResult | None,
        error: BaseException | None,
        started: datetime,
        latency_ms: float,
    ) -> Result:
        p = self.profile
        last_fp = rec.attempts[-1].key_fingerprint if rec.attempts else self.keys.fingerprints[0]
        route = Route(
            base_url=self.served.shown_url,
            key_fingerprint=last_fp,
            model=p.model,
            temperature=p.temperature,
            top_p=p.top_p,
            seed=p.seed,
            max_tokens=task.max_tokens if task.max_tokens is not None else p.max_tokens,
            timeout_s=p.timeout_s,
            max_retries=p.max_retries,
        )
        fields: dict[str, Any] = {
            "task_id": task.task_id,
            "round": rnd,
            "started_at": started,
            "finished_at": now_utc(),
            "latency_ms": round(latency_ms, 1),
            "route": route,
            "attempts": rec.attempts,
        }
        if task.expected is not None:
            fields["expected"] = task.expected
        if error is not None:
            status = getattr(error, "status_code", None) or rec.last_status
            if isinstance(error, openai.APITimeoutError | openai.APIConnectionError):
                status = None
            fields |= {
                "status": "error",
                "answer": None,
                "error": ResultError(
                    type=type(error).__name__,
                    message=one_line(scrub(str(error), self.keys.secrets())),
                    http_status=status if isinstance(status, int) else None,
                ),
            }
            return Result(**fields)
        assert value is not None
        served_model = value.served_model or rec.served_model
        fingerprint = value.system_fingerprint or rec.system_fingerprint
        fields |= {
            "status": "ok",
            "answer": value.answer,
            "prompt_tokens": value.prompt_tokens,
            "completion_tokens": value.completion_tokens,
            "total_tokens": value.total_tokens,
        }
        success = grade(value.answer, task.expected)
        optional = {
            "success": success,
            "served_model": served_model,
            "system_fingerprint": fingerprint,
            "finish_reason": value.finish_reason,
            "trajectory": value.trajectory,
        }
        fields |= {k: v for k, v in optional.items() if v is not None}
        try:
            return Result(**fields)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(x) for x in first["loc"]) or "result"
            executor_fields = ("answer", *optional, "prompt_tokens", "completion_tokens", "total_tokens")
            if str(first["loc"][0] if first["loc"] else "") not in executor_fields:
                raise  # not the executor's doing: _one records a bare error result
            bad = first.get("input")
            shown = f"={one_line(scrub(repr(bad), self.keys.secrets()), 60)}" if bad is not None else ""
            for name in executor_fields:
                fields.pop(name, None)
            fields |= {
                "status": "error",
                "answer": None,
                "error": ResultError(
                    type="InvalidExecutorResult",
                    message=one_line(f"executor {self.spec} returned {where}{shown}: {first['msg']}", 300),
                ),
            }
            return Result(**fields)

    def _bare_error(
        self,
        task: TaskSpec,
        rnd: int,
        rec: AttemptRecorder,
        exc: BaseException,
        started: datetime,
        latency_ms: float,
    ) -> Result:
        """An error result with the bare essentials, when the full one could not be built."""
        message = one_line(scrub(f"{type(exc).__name__}: {exc}", self.keys.secrets()), 300)
        attempts = rec.attempts
        try:
            Result(task_id=task.task_id, round=rnd, attempts=attempts)
        except ValidationError:
            attempts = []
        return Result(
            task_id=task.task_id,
            round=rnd,
            started_at=started,
            finished_at=now_utc(),
            latency_ms=round(latency_ms, 1),
            attempts=attempts,
            status="error",
            answer=None,
            error=ResultError(type="RecordError", message=message),
        )

    def rounds_of_results(self) -> list[list[Result]]:
        return [
            [self.results[(str(t.task_id), rnd)] for t in self.tasks if (str(t.task_id), rnd) in self.results]
            for rnd in range(1, self.rounds + 1)
        ]
