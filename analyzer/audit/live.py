"""A live audit: the same prompts sent to a reference and a candidate route, then both logs audited.

Both routes run at once through the runner (its pinned client records every attempt, keys go only
to the URL the user named, read from the variables the user named, never from a log), one request
at a time each, so drift over time hits both alike. Sampling is on (temperature 1 unless told):
an identity test compares distributions, and at temperature 0 a route shows one sample of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai

from analyzer.errors import RerunLensError
from analyzer.log.loader import load_path
from analyzer.log.model import RunLog, TaskSpec
from analyzer.metrics.token_count import count_messages, encoding_name
from analyzer.routes.profile import RouteProfile
from analyzer.runner.completion_shape import read_completion
from analyzer.runner.executors import ExecutorResult
from analyzer.runner.plan import Provenance, RunControls, new_plan
from analyzer.runner.run import run_plan
from analyzer.safety.keys import read_keys

ASK_ABOVE_REQUESTS = 500
"""A live audit of more requests than this asks before it starts."""
DEFAULT_MAX_TOKENS = 200


def audit_executor(task: TaskSpec, client: openai.OpenAI, route: RouteProfile) -> ExecutorResult:
    """One chat completion of a probe: the user prompt alone, its tools (a call required) where it has them.

    Tool calls are recorded with their arguments as the route sent them (text), so invalid JSON stays
    visible to the audit."""
    tools = (task.model_extra or {}).get("tools")
    body: dict[str, Any] = {
        "model": route.model,
        "messages": [{"role": "user", "content": task.prompt}],
        "temperature": route.temperature,
        "max_tokens": task.max_tokens or route.max_tokens or DEFAULT_MAX_TOKENS,
    }
    if tools:
        body |= {"tools": tools, "tool_choice": "required"}
    data: Any = client.post("/chat/completions", body=body, cast_to=object)
    result = ExecutorResult(**read_completion(data))
    message = data["choices"][0].get("message") or {}
    calls = [c.get("function") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    steps = [
        {"type": "tool_call", "name": str(f.get("name", "")), "arguments": f.get("arguments")}
        for f in calls
        if isinstance(f, dict)
    ]
    if steps:
        result.trajectory = steps
    return result


@dataclass(frozen=True)
class LiveRoute:
    label: str
    base_url: str
    key_env: str


@dataclass(frozen=True)
class LiveAudit:
    tasks: list[TaskSpec]
    samples: int
    reference: LiveRoute
    candidate: LiveRoute
    model: str
    temperature: float
    out: Path


def cost(audit: LiveAudit) -> tuple[int, int, int]:
    """(requests, prompt tokens, completion tokens at most) the audit will spend, both routes together."""
    enc = encoding_name(audit.model)
    per_round = sum(count_messages([{"role": "user", "content": t.prompt}], enc) for t in audit.tasks)
    caps = sum(t.max_tokens or DEFAULT_MAX_TOKENS for t in audit.tasks)
    return 2 * audit.samples * len(audit.tasks), 2 * audit.samples * per_round, 2 * audit.samples * caps


def _run(audit: LiveAudit, route: LiveRoute, errors: list[BaseException]) -> None:
    profile = RouteProfile(
        base_url=route.base_url,
        key_env=route.key_env,
        model=audit.model,
        temperature=audit.temperature,
        concurrency=1,
        max_retries=2,
    )
    out = audit.out / f"audit-{route.label}.altk_runs.json"
    try:
        plan = new_plan(
            audit.tasks,
            profile,
            out,
            keys=read_keys(profile.key_envs()),
            rounds=audit.samples,
            provenance=Provenance(label=f"audit {route.label}"),
            executor=audit_executor,
        )
        run_plan(plan, RunControls(None, threading.Event(), None))
    except BaseException as err:  # reported by the caller, in the caller's thread
        errors.append(err)


def run_live(audit: LiveAudit) -> tuple[RunLog, RunLog]:
    """Run both routes at once (one request at a time each) and read back both logs."""
    audit.out.mkdir(parents=True, exist_ok=True)
    errors: list[BaseException] = []
    threads = [
        threading.Thread(target=_run, args=(audit, r, errors)) for r in (audit.reference, audit.candidate)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return tuple(  # type: ignore[return-value]
        load_path(audit.out / f"audit-{r.label}.altk_runs.json").log
        for r in (audit.reference, audit.candidate)
    )


def confirm_cost(
    audit: LiveAudit, say: Callable[[str], None], ask: Callable[[str], bool] | None, yes: bool
) -> None:
    """Print the cost first; past `ASK_ABOVE_REQUESTS` ask (or refuse where nobody can be asked)."""
    requests, prompt, completion = cost(audit)
    say(
        f"Live audit: {requests:,} requests ({len(audit.tasks)} prompts x {audit.samples} samples "
        "x 2 routes), "
        f"about {prompt:,} prompt tokens and at most {completion:,} completion tokens, at temperature "
        f"{audit.temperature:g} (an identity test needs samples from the distribution)."
    )
    if requests <= ASK_ABOVE_REQUESTS or yes:
        return
    if ask is None:
        raise RerunLensError(
            f"audit: {requests:,} requests is above {ASK_ABOVE_REQUESTS}; pass --yes to start"
        )
    if not ask(f"Send {requests:,} requests"):
        raise RerunLensError("audit: not started")


def routes_from_names(
    urls: Sequence[str | None], key_envs: Sequence[str | None], default_env: str | None
) -> tuple[LiveRoute, LiveRoute]:
    """The two routes; each key variable is the route's own, else --key-env, else the profile default."""
    if not all(urls):
        raise RerunLensError("audit: a live audit needs both --reference URL and --candidate URL")
    fallback = default_env or RouteProfile().key_env
    ref, cand = (
        LiveRoute(label, str(url), env or fallback)
        for label, url, env in zip(("reference", "candidate"), urls, key_envs, strict=True)
    )
    return ref, cand
