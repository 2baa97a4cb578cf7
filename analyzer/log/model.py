"""The run log file format (`altk_runs.json`), versions 1 and 2, as pydantic models.

Version 1 is what a plain repeated-run script writes: a `summary` and round-major `runs`, five
fields per result. Version 2 keeps that shape and adds optional fields, so one model reads both.
Unknown fields are kept (``extra="allow"``) so a load-save round trip loses nothing.
"""

from __future__ import annotations

import gc
import threading
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, Strict

FORMAT_V2 = "altk-runs/2"

Outcome = Literal[
    "ok",
    "rate_limited",
    "timeout",
    "auth_error",
    "not_found",
    "server_error",
    "connection_error",
    "bad_request",
    "redirect",
    "too_large",
]
"""What one HTTP attempt came to (`redirect`: a 3xx, followed without the key off the route's origin;
`too_large`: a response body over the runner's size cap, not read further)."""

ResultStatus = Literal["ok", "error"]
"""Whether a result produced an answer."""

TaskId = Annotated[str, Strict()] | Annotated[int, Strict()]
"""A task id as written in the file (`true` is not an id); frames compare it as a string."""

MAX_COUNT = 10**12
"""Upper bound for counts (tokens, rounds, retries): a million results at this bound still sum
inside a 64-bit integer, so no figure overflows."""

# Numbers are strict: `true`, `"12"` and `12.5` are not counts, and `true` is not a temperature.
# (Pydantic's lax mode would read `true` as 1 and `"12"` as 12, silently.)
NonNegInt = Annotated[int, Strict(), Field(ge=0, le=MAX_COUNT)]
NonNegFloat = Annotated[float, Strict(), Field(ge=0, allow_inf_nan=False)]
Number = Annotated[float, Strict(), Field(allow_inf_nan=False)]
Int64 = Annotated[int, Strict(), Field(ge=-(2**63), le=2**63 - 1)]
HttpStatus = Annotated[int, Strict(), Field(ge=0, le=999)]
StrictBool = Annotated[bool, Strict()]
"""`true` or `false` only: lax mode would read `1`, `"yes"`, `"on"` and `"true"` as true."""


class _Record(BaseModel):
    """Base for every record: keeps unknown fields, rejects NaN and infinities."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False, populate_by_name=True)


class Summary(_Record):
    """What the script that wrote the log claims; RerunLens recomputes every figure."""

    model: str | None = None
    """Model name the script used."""
    base_url: str | None = None
    """Base URL the script used."""
    repeat: NonNegInt | None = None
    """Number of rounds the script says it ran."""
    task_count: NonNegInt | None = None
    """Number of tasks the script says it ran."""
    consistency_gap_pp: Number | None = None
    """The answer consistency gap in percentage points, as the script computed it."""
    total_tokens: NonNegInt | None = None
    """Total tokens over all results, as the script computed it."""
    avg_tokens_per_task: NonNegFloat | None = None
    """Average tokens per task, as the script computed it."""


class Route(_Record):
    """The route a call went through: where, with which key (fingerprint only) and parameters."""

    base_url: str | None = None
    """API root the SDK called (it appends `/chat/completions`)."""
    key_env: str | None = None
    """Name of the environment variable that held the key (profiles only)."""
    key_fingerprint: str | None = None
    """One-way fingerprint of the key, e.g. `sha256:0123456789ab`; never the key."""
    model: str | None = None
    """Model requested."""
    temperature: Number | None = None
    """Sampling temperature sent."""
    top_p: Number | None = None
    """Nucleus sampling parameter sent."""
    seed: Int64 | None = None
    """Seed sent."""
    max_tokens: NonNegInt | None = None
    """Completion token cap sent."""
    timeout_s: NonNegFloat | None = None
    """Client timeout per attempt, seconds."""
    max_retries: NonNegInt | None = None
    """SDK retries allowed after the first attempt."""
    concurrency: NonNegInt | None = None
    """Parallel tasks in the run (profiles only)."""
    simulator: StrictBool | None = None
    """True when the embedded simulator served the run."""


class ResultError(_Record):
    """Why a result has no answer."""

    type: str | None = None
    """Exception or error class, e.g. `RateLimitError`."""
    message: str | None = None
    """One-line error message (never containing a key)."""
    http_status: HttpStatus | None = None
    """HTTP status of the last attempt, when there was one."""


class Attempt(_Record):
    """One HTTP attempt, the SDK's own retries included."""

    attempt: NonNegInt
    """0-based attempt number within the result."""
    retry: NonNegInt | None = None
    """The SDK's retry number of this request: 0 for a call's first try. A result whose executor made
    several calls has several attempts with 0; only the others are retries. None where not recorded
    (then every attempt after a result's first counts as a retry)."""
    started_at: datetime | None = None
    """When the request was sent (UTC)."""
    ended_at: datetime | None = None
    """When the response or failure arrived (UTC)."""
    status_code: HttpStatus | None = None
    """HTTP status code; null when no response arrived (timeout, connection error)."""
    outcome: Outcome
    """What the attempt came to."""
    retry_after_s: NonNegFloat | None = None
    """Retry-After the server asked for, seconds."""
    base_url: str | None = None
    """API root of this attempt."""
    key_fingerprint: str | None = None
    """Fingerprint of the key this attempt used."""
    redirect_to: str | None = None
    """For a `redirect`: where the 3xx pointed (scheme, host, port and path; no query)."""


class ToolCallStep(_Record):
    """An agent's tool call."""

    type: Literal["tool_call"]
    """Step kind."""
    name: str
    """Tool name."""
    arguments: Any = None
    """Arguments as the agent sent them."""


class MessageStep(_Record):
    """A message in an agent's trajectory."""

    type: Literal["message"]
    """Step kind."""
    role: str
    """Speaker: system, user, assistant or tool."""
    content: str | None = None
    """Message text."""


Step = Annotated[ToolCallStep | MessageStep, Field(discriminator="type")]


class Result(_Record):
    """One task's result in one round."""

    task_id: TaskId
    """Task this result answers; results are aligned across rounds by it, never by position."""
    answer: str | None = None
    """Final answer text; null when the result errored."""
    prompt_tokens: NonNegInt | None = None
    """Prompt tokens; null when the agent did not record usage (unknown, not zero)."""
    completion_tokens: NonNegInt | None = None
    """Completion tokens; null when unknown."""
    total_tokens: NonNegInt | None = None
    """Total tokens; null when unknown."""
    cached_tokens: NonNegInt | None = None
    """Prompt tokens the provider served from its cache (its usage details), part of `prompt_tokens`;
    null when the usage does not give them."""
    reasoning_tokens: NonNegInt | None = None
    """Hidden reasoning tokens (the usage details), part of `completion_tokens`; null when not given."""
    round: Annotated[int, Strict(), Field(ge=1, le=MAX_COUNT)] | None = None
    """1-based round number (format 2); the result's position in `runs` decides its round."""
    status: ResultStatus = "ok"
    """`ok` or `error`."""
    error: ResultError | None = None
    """Why the result errored."""
    expected: Any = None
    """Ground truth, where the task has it."""
    success: StrictBool | None = None
    """Whether the answer was graded correct."""
    score: Number | None = None
    """Graded score, compared with a threshold when `success` is absent."""
    grade_reason: str | None = None
    """Why the grader failed this result, in its own words (promptfoo's grading reason: an assertion's
    message, or the error its code threw; first line, at most 300 characters); null when not given."""
    started_at: datetime | None = None
    """When work on the result began (UTC)."""
    finished_at: datetime | None = None
    """When the result was final (UTC)."""
    latency_ms: NonNegFloat | None = None
    """Wall time of the whole result, retries included, milliseconds."""
    route: Route | None = None
    """Route as actually sent."""
    served_model: str | None = None
    """Model name the provider reported."""
    system_fingerprint: str | None = None
    """Backend fingerprint the provider reported."""
    finish_reason: str | None = None
    """Why generation stopped (`stop`, `length`, ...)."""
    attempts: list[Attempt] | None = None
    """Every HTTP attempt behind this result."""
    trajectory: list[Step] | None = None
    """Agent steps, where the executor recorded them."""

    @property
    def retries(self) -> int:
        """Attempts that retried a call: those whose SDK retry number is above 0, where every attempt
        records one; else every attempt after the first (older logs). 0 without attempts."""
        attempts = self.attempts or []
        if attempts and all(a.retry is not None for a in attempts):
            return sum(1 for a in attempts if a.retry)
        return max(len(attempts) - 1, 0)


class TaskSpec(_Record):
    """A task definition as found in a task file and in a format-2 log's `tasks`."""

    task_id: TaskId
    """Unique task id."""
    prompt: str
    """What the agent is asked."""
    max_tokens: NonNegInt | None = None
    """Per-task completion cap, overriding the route's."""
    expected: Any = None
    """Ground truth for grading, where known."""


class RunLog(_Record):
    """A whole run log: rounds of per-task results plus (format 2) provenance."""

    format: str | None = None
    """`altk-runs/2` for format 2; absent in format 1."""
    run_id: str | None = None
    """Unique id of this run."""
    created_at: datetime | None = None
    """When the run started (UTC)."""
    parent_run_id: str | None = None
    """For a re-run, the `run_id` of the run it re-ran."""
    label: str | None = None
    """Human label, e.g. `C: pinned route`."""
    route: Route | None = None
    """The route profile the run used (key fingerprint, never a key)."""
    tasks: list[TaskSpec] | None = None
    """Task definitions that were run."""
    summary: Summary | None = None
    """The writer's own figures: a claim, recomputed and checked on load."""
    rerun_of: dict[str, Any] | None = None
    """For a re-run: the parent, the selection, the parent's route settings and what differs from them."""
    simulator_scenario: dict[str, Any] | None = None
    """The built-in simulator's scenario when it served the run, so a re-run can replay it."""
    resample: dict[str, Any] | None = None
    """For a step resample (`rerunlens resample`): the task, the steps, their scores, the flagged ones."""
    imported_from: dict[str, Any] | None = None
    """For a log imported from another tool: its format and version, the importer, the file, warnings."""
    runs: list[list[Result]]
    """Round-major results: one list per round."""

    _deferred_json: bytes | None = PrivateAttr(None)
    """A fast load's validated file, from which `runs` is built on first use (see `deferred`)."""
    _table: Any = PrivateAttr(None)
    """A loaded log's columns (`analyzer.log.table.LogTable`), which analysis reads instead of the
    result objects. A loaded log is for reading: a copy (`model_copy`) leaves the columns behind."""

    @classmethod
    def deferred(cls, header: RunLog, raw: bytes, table: Any) -> RunLog:
        """A log whose result objects are built from `raw` only when something asks for `runs`.

        `header` holds every other field (its `runs` is ignored); `raw` must be a log that already
        validated, and `table` its columns. Analysis reads the columns, so a million results never
        become a million objects unless a caller walks them. Everything else (equality, dumps,
        copies) sees the full log.
        """
        fields = {k: v for k, v in header.__dict__.items() if k != "runs"}
        log = cls.model_construct(_fields_set={*header.model_fields_set, "runs"}, **fields)
        log._deferred_json = raw
        log._table = table
        return log

    def __getattribute__(self, name: str) -> Any:
        if name in _BUILD_ON_ACCESS:
            private = object.__getattribute__(self, "__pydantic_private__")
            if private and private.get("_deferred_json") is not None:
                _build_runs(self, private)
        return super().__getattribute__(name)

    def __eq__(self, other: object) -> bool:
        """Same fields and unknown fields; what a fast load keeps aside is not part of the log."""
        if not isinstance(other, RunLog):
            return NotImplemented
        return self.__dict__ == other.__dict__ and self.__pydantic_extra__ == other.__pydantic_extra__

    __hash__ = None  # type: ignore[assignment]

    def __copy__(self) -> RunLog:
        copied = super().__copy__()
        copied._table = None  # a copy may be changed; its columns are built afresh when needed
        return copied

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> RunLog:
        copied = super().__deepcopy__(memo)
        copied._table = None
        return copied

    @property
    def version(self) -> int:
        """1 for a plain script's log, 2 for a log that declares `altk-runs/2`."""
        return 2 if self.format == FORMAT_V2 else 1

    def display_label(self, fallback: str) -> str:
        """The log's own label, else `fallback` (usually the file name)."""
        return self.label or fallback

    def results(self) -> list[tuple[int, Result]]:
        """Every result with its 1-based round, in file order."""
        return [(i + 1, r) for i, rnd in enumerate(self.runs) for r in rnd]


_BUILD_ON_ACCESS = frozenset({"runs", "__dict__"})
"""Attribute reads that need a deferred log's result objects (`__dict__` covers dumps and copies)."""


_BUILD_LOCK = threading.Lock()
"""Dashboard sessions run in threads: one builds a deferred log's results, the others wait for it."""


def _build_runs(log: RunLog, private: dict[str, Any]) -> None:
    """Validate a deferred log's file into result objects, once, with the collector paused."""
    with _BUILD_LOCK:
        raw = private.get("_deferred_json")
        if raw is None:  # another thread built them while this one waited
            return
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            full = RunLog.model_validate_json(raw)
        finally:
            if was_enabled:
                gc.enable()
        object.__setattr__(log, "__dict__", full.__dict__)
        object.__setattr__(log, "__pydantic_fields_set__", full.__pydantic_fields_set__)
        object.__setattr__(log, "__pydantic_extra__", full.__pydantic_extra__)
        private["_deferred_json"] = None
