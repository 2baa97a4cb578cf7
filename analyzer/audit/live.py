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
from analyzer.runner.plan import Provenance, RunControls, Simulation, new_plan
from analyzer.runner.progress import Progress
from analyzer.runner.run import run_plan
from analyzer.safety.keys import read_keys
from analyzer.simulator import Scenario
from analyzer.simulator.scenario import Distortion, Substitute

ASK_ABOVE_REQUESTS = 500
"""A live audit of more requests than this asks before it starts."""
DEFAULT_MAX_TOKENS = 200
SIMULATED_ROUTES: dict[str, Scenario] = {
    "honest": Scenario(billing="o200k_base"),
    "another model, 1.3 x the tokens reported": Scenario(
        billing="o200k_base", distortion=Distortion(substitute=Substitute(shift=3.0), usage_factor=1.3)
    ),
}
"""What the built-in simulator can play for a route with no base URL (an offline audit to try)."""


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
    scenario: Scenario | None = None
    """How the built-in simulator serves this route when it has no base URL (None: honestly)."""


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


def _run(audit: LiveAudit, route: LiveRoute, errors: list[BaseException], controls: RunControls) -> None:
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
            simulation=Simulation(scenario=route.scenario),
        )
        run_plan(plan, controls)
    except BaseException as err:  # reported by the caller, in the caller's thread
        errors.append(err)


def run_live(
    audit: LiveAudit,
    cancel: threading.Event | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[RunLog, RunLog]:
    """Run both routes at once (one request at a time each) and read back both logs.

    `progress(done, total)` hears both routes' results together; setting `cancel` stops both.

    Raises:
        RerunLensError: cancelled before both logs were complete.
    """
    audit.out.mkdir(parents=True, exist_ok=True)
    stop = cancel or threading.Event()
    errors: list[BaseException] = []
    done: dict[str, tuple[int, int]] = {}

    def heard(label: str) -> Callable[[Progress], None]:
        def record(p: Progress) -> None:
            done[label] = (p.done, p.total)
            if progress is not None:
                progress(sum(d for d, _ in done.values()), 2 * audit.samples * len(audit.tasks))

        return record

    routes = (audit.reference, audit.candidate)
    threads = [
        threading.Thread(target=_run, args=(audit, r, errors, RunControls(heard(r.label), stop)))
        for r in routes
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    if stop.is_set():
        raise RerunLensError(f"audit: cancelled; the finished results stay in the journals in {audit.out}")
    return tuple(  # type: ignore[return-value]
        load_path(audit.out / f"audit-{r.label}.altk_runs.json").log
        for r in (audit.reference, audit.candidate)
    )


def confirm_cost(
    audit: LiveAudit, say: Callable[[str], None], ask: Callable[[str], bool] | None, yes: bool
) -> None:
    """Print the cost first; past `ASK_ABOVE_REQUESTS` ask (or refuse where nobody can be asked)."""
    requests = cost(audit)[0]
    say(cost_sentence(audit))
    if requests <= ASK_ABOVE_REQUESTS or yes:
        return
    if ask is None:
        raise RerunLensError(
            f"audit: {requests:,} requests is above {ASK_ABOVE_REQUESTS}; pass --yes to start"
        )
    if not ask(f"Send {requests:,} requests"):
        raise RerunLensError("audit: not started")


def cost_sentence(audit: LiveAudit) -> str:
    """What the audit will spend, said before it starts (the CLI prints it, the page shows it)."""
    requests, prompt, completion = cost(audit)
    return (
        f"Live audit: {requests:,} requests ({len(audit.tasks)} prompts x {audit.samples} samples "
        "x 2 routes), "
        f"about {prompt:,} prompt tokens and at most {completion:,} completion tokens, at temperature "
        f"{audit.temperature:g} (an identity test needs samples from the distribution)."
    )


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
