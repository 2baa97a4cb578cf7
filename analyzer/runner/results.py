"""Turning one executor call into one `Result`: its route as sent, its attempts, its answer or error.

Every text that leaves a response or an executor (answer, served model, fingerprint, error message)
passes the key scrubber here, so a provider or an agent that echoes the key cannot write it down.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import openai
from pydantic import ValidationError

from analyzer.log.model import Attempt, Result, ResultError, Route, TaskSpec
from analyzer.metrics.answers import normalized_key
from analyzer.routes.profile import RouteProfile
from analyzer.runner.executors import ExecutorResult
from analyzer.runner.transport import AttemptRecorder, now_utc
from analyzer.safety.scrub import one_line, scrub, scrub_json

EXECUTOR_FIELDS = (
    "answer",
    "success",
    "served_model",
    "system_fingerprint",
    "finish_reason",
    "trajectory",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cached_tokens",
    "reasoning_tokens",
)
"""Result fields an executor's return value fills: a bad one is the executor's error, not ours."""


@dataclass(frozen=True)
class Stamp:
    """What every result of a run is stamped with: the route as sent, and the keys to scrub."""

    profile: RouteProfile
    """The run's route profile."""
    shown_url: str
    """The base URL as it may be written down (secrets redacted)."""
    first_fingerprint: str | None
    """The key fingerprint of a result that made no attempt."""
    secrets: tuple[str, ...]
    """The keys, only to scrub texts with."""
    executor: str
    """The executor's name, for its errors."""

    def clean(self, text: str, limit: int | None = None) -> str:
        """A text with every form of every key removed, on one line when a limit is given."""
        cleaned = scrub(text, list(self.secrets))
        return one_line(cleaned, limit) if limit else cleaned


@dataclass
class Attempted:
    """One executor call as it happened."""

    task: TaskSpec
    round: int
    recorder: AttemptRecorder
    value: ExecutorResult | None
    error: BaseException | None
    started: datetime
    latency_ms: float


def grade(answer: str | None, expected: Any) -> bool | None:
    """Success: the normalized answer equals the normalized expected answer (or one of a list)."""
    if expected is None or answer is None:
        return None
    options = expected if isinstance(expected, list) else [expected]
    got = normalized_key(answer)
    return any(got == normalized_key(str(e)) for e in options)


def build_result(done: Attempted, stamp: Stamp) -> Result:
    """The result of one call: an error result when the call failed or returned something invalid.

    Whatever goes wrong while building it, a result comes back (a bare `RecordError` one at worst).
    """
    try:
        fields = _common(done, stamp)
        if done.error is not None:
            return Result(**fields, **_error_fields(done, stamp))
        assert done.value is not None
        try:
            return Result(**fields, **_answer_fields(done, stamp))
        except ValidationError as err:
            return _invalid_executor_result(err, fields, stamp)
    except Exception as exc:  # whatever went wrong recording it, the result is kept as an error
        return _bare_error(done, exc, stamp)


def _last_key_sent(attempts: list[Attempt], first: str | None) -> str | None:
    """The fingerprint of the last key the result's calls carried; a redirect's hop elsewhere carried none."""
    sent = [a.key_fingerprint for a in attempts if a.key_fingerprint]
    return sent[-1] if sent else first


def _common(done: Attempted, stamp: Stamp) -> dict[str, Any]:
    p, task = stamp.profile, done.task
    attempts = done.recorder.attempts
    route = Route(
        base_url=stamp.shown_url,
        key_fingerprint=_last_key_sent(attempts, stamp.first_fingerprint),
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
        "round": done.round,
        "started_at": done.started,
        "finished_at": now_utc(),
        "latency_ms": round(done.latency_ms, 1),
        "route": route,
        "attempts": attempts,
    }
    if task.expected is not None:
        fields["expected"] = task.expected
    return fields


def _error_fields(done: Attempted, stamp: Stamp) -> dict[str, Any]:
    error = done.error
    status = getattr(error, "status_code", None) or done.recorder.last_status
    if isinstance(error, openai.APITimeoutError | openai.APIConnectionError):
        status = None
    return {
        "status": "error",
        "answer": None,
        "error": ResultError(
            type=type(error).__name__,
            message=stamp.clean(str(error), 300),
            http_status=status if isinstance(status, int) else None,
        ),
    }


def _answer_fields(done: Attempted, stamp: Stamp) -> dict[str, Any]:
    value, rec = done.value, done.recorder
    assert value is not None
    answer = stamp.clean(value.answer) if isinstance(value.answer, str) else value.answer
    fields: dict[str, Any] = {
        "status": "ok",
        "answer": answer,
        "prompt_tokens": value.prompt_tokens,
        "completion_tokens": value.completion_tokens,
        "total_tokens": value.total_tokens,
        "cached_tokens": value.cached_tokens,
        "reasoning_tokens": value.reasoning_tokens,
    }
    optional = {
        "success": grade(answer, done.task.expected),
        "served_model": value.served_model or rec.served_model,
        "system_fingerprint": value.system_fingerprint or rec.system_fingerprint,
        "finish_reason": value.finish_reason,
        "trajectory": scrub_json(value.trajectory, list(stamp.secrets)) if value.trajectory else None,
    }
    for name in ("served_model", "system_fingerprint", "finish_reason"):
        text = optional[name]
        if isinstance(text, str):
            optional[name] = stamp.clean(text)
    fields |= {k: v for k, v in optional.items() if v is not None}
    return fields


def _invalid_executor_result(err: ValidationError, fields: dict[str, Any], stamp: Stamp) -> Result:
    """An executor returned a value the log cannot hold: an `InvalidExecutorResult` error, the run goes on.

    Raises:
        ValidationError: when the invalid field is not the executor's (a bug of ours: recorded bare).
    """
    first = err.errors()[0]
    where = ".".join(str(x) for x in first["loc"]) or "result"
    if str(first["loc"][0] if first["loc"] else "") not in EXECUTOR_FIELDS:
        raise err
    bad = first.get("input")
    shown = f"={stamp.clean(repr(bad), 60)}" if bad is not None else ""
    message = one_line(f"executor {stamp.executor} returned {where}{shown}: {first['msg']}", 300)
    return Result(
        **fields,
        status="error",
        answer=None,
        error=ResultError(type="InvalidExecutorResult", message=message),
    )


def _bare_error(done: Attempted, exc: BaseException, stamp: Stamp) -> Result:
    """An error result with the bare essentials, when the full one could not be built."""
    attempts = done.recorder.attempts
    try:
        Result(task_id=done.task.task_id, round=done.round, attempts=attempts)
    except ValidationError:
        attempts = []
    return Result(
        task_id=done.task.task_id,
        round=done.round,
        started_at=done.started,
        finished_at=now_utc(),
        latency_ms=round(done.latency_ms, 1),
        attempts=attempts,
        status="error",
        answer=None,
        error=ResultError(type="RecordError", message=stamp.clean(f"{type(exc).__name__}: {exc}", 300)),
    )


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
