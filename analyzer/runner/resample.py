"""Step-level resampling: replay one task's recorded conversation up to each assistant step through
one pinned route, sample that step N times, and score how uncertain the model is there.

The recorded round's trajectory (chat messages and tool calls, `analyzer.log.chat_steps`) is turned back
into messages; for assistant step k (0-based over the assistant messages) the messages before it are
sent again, with the tools the executor offered, N times. Each sample is scored against the others
(`analyzer.metrics.step_uncertainty`); up to three steps with uncertainty >= 0.2 are flagged.

The samples are stored as a format-2 log linked to the parent (`parent_run_id`): one "task" per
step (`<task>#step<k>`), one round per sample, each result with its HTTP attempts, and a top-level
`resample` block with the scores. `rerunlens analyze` reads it like any log (each step's answer
consistency is its samples' agreement).
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import openai
from openai.types.chat import ChatCompletionMessageParam

from analyzer.errors import RerunLensError
from analyzer.log.chat_steps import messages_from_steps, recorded_tools, steps_from_messages
from analyzer.log.loader import save_log
from analyzer.log.model import FORMAT_V2, Result, ResultError, Route, RunLog, TaskSpec
from analyzer.metrics.step_uncertainty import Sample, StepScore, flag_steps, score_step
from analyzer.metrics.trajectories import call_token
from analyzer.routes.profile import RouteProfile, build_profile
from analyzer.runner.client import make_client
from analyzer.runner.completion_shape import usage_details
from analyzer.runner.embedded import key_ring, serving
from analyzer.runner.out_folder import beside
from analyzer.runner.rerun_route import parent_provider, parent_settings
from analyzer.runner.transport import now_utc, recording
from analyzer.safety.keys import RunKeys
from analyzer.safety.scrub import scrub
from analyzer.simulator import Scenario
from analyzer.simulator.agent import with_agent_tasks
from analyzer.simulator.app_tasks import app_scenario

__all__ = [
    "ResampleReport",
    "ResampleRequest",
    "StepResult",
    "default_resample_path",
    "pinned_profile",
    "replay_points",
    "resample",
]


@dataclass(frozen=True)
class ResampleRequest:
    """Which conversation to resample, how often, and where the new log goes."""

    parent: RunLog
    """The parent log."""
    task_id: str
    """The task whose conversation is replayed."""
    out: Path
    """The new log (must not exist)."""
    samples: int = 5
    """Samples per step (at least 2)."""
    steps: Sequence[int] | None = None
    """Assistant steps to resample (0-based); None: every one."""
    round: int | None = None
    """The round whose conversation is replayed; None: the first that recorded one."""
    source: str | Path | None = None
    """The parent's path (names a parent without a run id)."""
    scenario: Scenario | None = None
    """The simulator's scenario when no base URL is set; None plays the sample and agent tasks."""


@dataclass(frozen=True)
class StepResult:
    """One resampled step: where it is, what the recording did there, the samples and their score."""

    step: int
    """Assistant step (0-based over the conversation's assistant messages)."""
    tool_step: int
    """Tool calls made before it: its place on the divergence tree's x axis."""
    recorded: str
    """What the recorded round did at this step (calls or text, as one action)."""
    score: StepScore
    errors: int
    """Samples that failed (left out of the score)."""


@dataclass
class ResampleReport:
    """The scored steps, the flagged ones and the saved log."""

    task_id: str
    round: int
    steps: list[StepResult] = field(default_factory=list)
    flagged: list[int] = field(default_factory=list)
    """Up to three most uncertain steps with uncertainty >= 0.2."""
    out: Path | None = None
    cancelled: bool = False

    def to_json(self) -> dict[str, Any]:
        """The `resample` block of the new log (and what `--json` would print)."""
        return {
            "task_id": self.task_id,
            "round": self.round,
            "flagged": self.flagged,
            "cancelled": self.cancelled,
            "steps": [
                {
                    "step": s.step,
                    "tool_step": s.tool_step,
                    "recorded": s.recorded,
                    "samples": s.score.samples,
                    "errors": s.errors,
                    "uncertainty": s.score.uncertainty,
                    "uncertainty_low": s.score.low,
                    "uncertainty_high": s.score.high,
                    "entropy_bits": s.score.entropy_bits,
                    "entropy": s.score.entropy,
                    "actions": s.score.actions,
                }
                for s in self.steps
            ],
        }


def replay_points(
    log: RunLog, task_id: str, round_: int | None = None
) -> tuple[int, list[dict[str, Any]], Any]:
    """The round replayed, its conversation as chat messages, and the tools it offered.

    Raises:
        RerunLensError: the task recorded no conversation (in that round).
    """
    for rnd, result in log.results():
        if str(result.task_id) == task_id and result.trajectory and (round_ is None or rnd == round_):
            return rnd, messages_from_steps(result.trajectory), recorded_tools(result.trajectory)
    where = f" in round {round_}" if round_ is not None else ""
    raise RerunLensError(f"task {task_id}: no recorded conversation{where} to resample")


def _as_sample(message: dict[str, Any]) -> Sample:
    calls = message.get("tool_calls") or []
    if calls:
        return Sample(tuple(call_token(c["function"]["name"], c["function"]["arguments"]) for c in calls), "")
    return Sample(None, str(message.get("content") or ""))


def _positions(messages: list[dict[str, Any]], wanted: Sequence[int] | None) -> list[tuple[int, int, int]]:
    """(assistant step, message index, tool calls before it) of every step to resample."""
    out, step, tools_before = [], 0, 0
    for i, m in enumerate(messages):
        if m["role"] != "assistant":
            continue
        if wanted is None or step in wanted:
            out.append((step, i, tools_before))
        tools_before += len(m.get("tool_calls") or [])
        step += 1
    if wanted is not None:
        missing = sorted(set(wanted) - {s for s, _i, _t in out})
        if missing:
            raise RerunLensError(
                f"--steps {missing[0]}: the conversation has {step} assistant steps (0-{step - 1})"
            )
    return out


def pinned_profile(parent: RunLog, overrides: dict[str, Any] | None = None) -> RouteProfile:
    """The route a resample pins: the parent's provider (its base URL and key variable) and model,
    temperature, top_p and max_tokens, under the environment and `overrides` (CLI flags); one worker."""
    base = {**parent_provider(parent).profile_base(), **parent_settings(parent)}
    return build_profile(base=base, overrides={**(overrides or {}), "concurrency": 1})


def default_resample_path(parent_path: str | Path, task_id: str) -> Path:
    """`<parent stem>.resample-<task>.altk_runs.json` beside the parent (the dashboard looks there; a
    shipped sample's in the runs folder: `out_folder.beside`)."""
    parent = Path(parent_path)
    stem = parent.name.removesuffix(".json").removesuffix(".altk_runs")
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", task_id).strip("-") or "task"
    return beside(parent, f"{stem}.resample-{safe}.altk_runs.json")


Progress = Callable[[int, int], None]
"""Called with (samples done, samples planned) after every sample."""


@dataclass(frozen=True)
class _Call:
    """One sample request: the pinned client and route, the context, and where it goes in the log."""

    client: openai.OpenAI
    profile: RouteProfile
    context: list[dict[str, Any]]
    tools: Any
    task_id: str
    sample: int
    secrets: list[str]
    route: Route


def _sample_once(call: _Call, seq: int) -> tuple[Result, Sample | None]:
    """One completion for the step; the result (with its attempts) and the sample, None on error."""
    p = call.profile
    params: dict[str, Any] = {"model": p.model, "temperature": p.temperature, "top_p": p.top_p}
    if p.seed is not None:
        params["seed"] = p.seed
    if p.max_tokens is not None:
        params["max_tokens"] = p.max_tokens
    if call.tools:
        params["tools"] = call.tools
    started = now_utc()
    with recording(seq) as rec:
        try:
            messages = cast(list[ChatCompletionMessageParam], call.context)
            completion = call.client.chat.completions.create(messages=messages, **params)
        except openai.OpenAIError as exc:
            error = ResultError(
                type=type(exc).__name__, message=scrub(" ".join(str(exc).split())[:300], call.secrets)
            )
            result = Result(
                task_id=call.task_id, round=call.sample, status="error", error=error,
                started_at=started, finished_at=now_utc(), attempts=list(rec.attempts), route=call.route,
            )  # fmt: skip
            return result, None
    choice = completion.choices[0]
    message = choice.message.model_dump(exclude_none=True)
    sample = _as_sample(message)
    usage = completion.usage
    result = Result(
        task_id=call.task_id,
        round=call.sample,
        answer=sample.action,
        prompt_tokens=usage.prompt_tokens if usage else None,
        completion_tokens=usage.completion_tokens if usage else None,
        total_tokens=usage.total_tokens if usage else None,
        **usage_details(usage),
        started_at=started,
        finished_at=now_utc(),
        served_model=completion.model,
        system_fingerprint=completion.system_fingerprint,
        finish_reason=choice.finish_reason,
        attempts=list(rec.attempts),
        route=call.route,
        trajectory=steps_from_messages([message]),
    )
    return result, sample


def resample(
    request: ResampleRequest,
    profile: RouteProfile,
    keys: RunKeys,
    *,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> ResampleReport:
    """Replay the task's conversation up to each chosen assistant step on the pinned route, sample
    the step `request.samples` times, score it, flag the uncertain steps and save the log.

    Args:
        request: The conversation, the steps, the sample count and the output path.
        profile: The pinned route (its base URL, or the embedded simulator when it has none).
        keys: The key(s) read for the route (`analyzer.safety.keys.read_keys(profile.key_envs())`).
        cancel: Set it to stop after the current sample; what was sampled is scored and saved.
        progress: Called with (done, planned) after every sample.

    Raises:
        RerunLensError: fewer than two samples, the output exists, no conversation, a step out of range.
    """
    if request.samples < 2:
        raise RerunLensError(f"--samples {request.samples}: need at least 2 samples to compare")
    if request.out.exists():
        raise RerunLensError(f"{request.out} already exists; choose another output path or delete it")
    rnd, messages, tools = replay_points(request.parent, request.task_id, request.round)
    points = _positions(messages, request.steps)
    report = ResampleReport(task_id=request.task_id, round=rnd)
    rows: list[list[Result]] = [[] for _ in range(request.samples)]
    scenario = request.scenario or with_agent_tasks(app_scenario())
    with serving(profile, scenario=scenario) as served:
        ring = key_ring(keys, served)
        client, _transport = make_client(profile, served.base_url, ring)
        route = profile.to_route(base_url=served.shown_url, fingerprints=[f for f in ring.fingerprints if f])
        done, planned = 0, len(points) * request.samples
        for step, index, before in points:
            samples: list[Sample] = []
            for i in range(request.samples):
                if cancel is not None and cancel.is_set():
                    report.cancelled = True
                    break
                call = _Call(
                    client,
                    profile,
                    messages[:index],
                    tools,
                    f"{request.task_id}#step{step}",
                    i + 1,
                    ring.secrets(),
                    route,
                )
                result, sample = _sample_once(call, seq=done)
                rows[i].append(result)
                samples += [sample] if sample is not None else []
                done += 1
                if progress is not None:
                    progress(done, planned)
            taken = sum(1 for row in rows if row and row[-1].task_id == f"{request.task_id}#step{step}")
            recorded = _as_sample(messages[index]).action
            report.steps.append(StepResult(step, before, recorded, score_step(samples), taken - len(samples)))
            if report.cancelled:
                break
    report.flagged = flag_steps({s.step: s.score for s in report.steps})
    report.out = _save(request, report, rows, route, messages)
    return report


def _save(
    request: ResampleRequest,
    report: ResampleReport,
    rows: list[list[Result]],
    route: Any,
    messages: list[dict[str, Any]],
) -> Path:
    """The samples as a log linked to the parent, with the scores in its `resample` block."""
    parent = request.parent
    parent_id = parent.run_id or (Path(request.source).name if request.source else "unknown")
    specs = [
        TaskSpec(task_id=f"{request.task_id}#step{s.step}", prompt=_last_prompt(messages, s.step))
        for s in report.steps
    ]
    log = RunLog(
        format=FORMAT_V2,
        run_id=uuid.uuid4().hex[:12],
        created_at=now_utc(),
        parent_run_id=parent_id,
        label=f"resample of {request.task_id} (round {report.round}), {request.samples} samples per step",
        route=route,
        tasks=specs,
        runs=[row for row in rows if row],
        resample=report.to_json(),
    )
    return save_log(log, request.out)


def _last_prompt(messages: list[dict[str, Any]], step: int) -> str:
    """The last user or tool message before assistant step `step`: what the model answered there."""
    seen, last = 0, ""
    for m in messages:
        if m["role"] == "assistant":
            if seen == step:
                break
            seen += 1
        elif m["role"] in ("user", "tool") and m.get("content"):
            last = str(m["content"])
    return last or "(no prompt)"
