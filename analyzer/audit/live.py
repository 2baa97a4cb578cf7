"""A live audit: the same prompts sent to a reference and a candidate route, then both logs audited.

Both routes run at once through the runner (its pinned client records every attempt, keys go only
to the URL the user named, read from the variables the user named, never from a log), one request
at a time each, so drift over time hits both alike. Sampling is on (temperature 1 unless told):
an identity test compares distributions, and at temperature 0 a route shows one sample of it.

An interrupted audit (Ctrl-C, a kill, a route that stops answering) continues when started again on
the same folder: every result already written is kept (`live_folder`), only the rest is sent.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import openai

from analyzer.audit.audit import LIVE_LABEL
from analyzer.audit.ledger import COOKBOOK_PROMPT_OVERHEAD, task_prompt
from analyzer.audit.live_folder import (
    MANIFEST,
    LiveAudit,
    LiveRoute,
    journal_begun,
    kept_results,
    log_path,
    save_manifest,
)
from analyzer.errors import RerunLensError, RouteError
from analyzer.log.loader import load_path
from analyzer.log.model import RunLog, TaskSpec
from analyzer.metrics.token_count import count_text, encoding_name
from analyzer.routes.profile import RouteProfile
from analyzer.runner.completion_shape import read_completion
from analyzer.runner.executors import Executor, ExecutorResult
from analyzer.runner.journal import journal_path, read_journal
from analyzer.runner.plan import (
    Provenance,
    ResumeRequest,
    RunControls,
    Simulation,
    new_plan,
    plan_from_journal,
)
from analyzer.runner.progress import Progress
from analyzer.runner.run import run_plan
from analyzer.safety.keys import read_keys
from analyzer.simulator import Scenario
from analyzer.simulator.scenario import Distortion, Substitute

ASK_ABOVE_REQUESTS = 500
"""A live audit of more requests than this asks before it starts."""
DEFAULT_MAX_TOKENS = 200
INTERRUPT_WAIT_S = 10.0
"""How long Ctrl-C waits, in all, for the routes' requests in flight to land (and be kept) before it
exits; one still in flight then is sent again when the audit continues."""
SIMULATED_ROUTES: dict[str, Scenario] = {
    "honest": Scenario(billing="o200k_base"),
    "another model, 1.3 x the tokens reported": Scenario(
        billing="o200k_base", distortion=Distortion(substitute=Substitute(shift=3.0), usage_factor=1.3)
    ),
}
"""What the built-in simulator can play for a route with no base URL (an offline audit to try)."""

Surface = Literal["cli", "page"]
"""Where an audit's user reads a message: the `rerunlens audit` command or the dashboard's Audit view."""
_TO_CONTINUE: dict[Surface, str] = {
    "cli": "start the same audit with that folder to continue without sending them again",
    "page": "press Continue this audit to send only the rest",
}
_ELSEWHERE: dict[Surface, str] = {"cli": "or choose another --out", "page": "or start a new live audit"}
_SET_KEY: dict[Surface, str] = {
    "cli": "export {env} with that key again to continue",
    "page": "set {env} to that key in the dashboard server's environment (then restart it) to continue",
}


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


def route_subject(label: str) -> str:
    """How the host question names an audit's route: the user typed it, no log chose it."""
    return f"this audit's {label} route"


def _expected_prompt(task: TaskSpec, encoding: str) -> int:
    """A request's prompt tokens: the cookbook's rule with the task's tool definitions; tools outside
    the rule add their JSON text's tokens (an estimate: this is a cost shown before sending)."""
    counted, _why = task_prompt(task, encoding, {})
    if math.isnan(counted):
        tools = (task.model_extra or {}).get("tools")
        counted = count_text(task.prompt, encoding) + count_text(json.dumps(tools), encoding)
    return int(counted) + COOKBOOK_PROMPT_OVERHEAD


def cost(audit: LiveAudit) -> tuple[int, int, int]:
    """(requests, prompt tokens, completion tokens at most) the audit will spend, both routes together."""
    enc = encoding_name(audit.model)
    per_round = sum(_expected_prompt(t, enc) for t in audit.tasks)
    caps = sum(t.max_tokens or DEFAULT_MAX_TOKENS for t in audit.tasks)
    return audit.requests, 2 * audit.samples * per_round, 2 * audit.samples * caps


def _stop_when_unreachable(route: LiveRoute, stop: threading.Event, unreachable: list[str]) -> Executor:
    """`audit_executor`, but a route that cannot be reached (no HTTP answer after the client's retries)
    stops the whole audit instead of filling its log with errors: the request is not recorded, so the
    same audit started again sends it. An HTTP error is the route's answer and is recorded."""

    def send(task: TaskSpec, client: openai.OpenAI, profile: RouteProfile) -> ExecutorResult:
        try:
            return audit_executor(task, client, profile)
        except openai.APIConnectionError as err:
            unreachable.append(f"the {route.label} route could not be reached ({type(err).__name__})")
            stop.set()
            raise

    return send


def _run(audit: LiveAudit, route: LiveRoute, failures: _Failures, controls: RunControls) -> None:
    """One route's share: a new run, the rest of its journal, or nothing when its log is written."""
    out = log_path(audit, route)
    if out.exists():
        return
    profile = RouteProfile(
        base_url=route.base_url,
        key_env=route.key_env,
        model=audit.model,
        temperature=audit.temperature,
        concurrency=1,
        max_retries=2,
    )
    executor = _stop_when_unreachable(route, controls.cancel, failures.unreachable)
    try:
        if journal_begun(journal_path(out)):
            again = ResumeRequest(profile, audit.tasks, audit.samples, executor=executor)
            plan = plan_from_journal(out, replace(again, scenario=route.scenario))
        else:
            journal_path(out).unlink(missing_ok=True)  # begun but not one line written: nothing to keep
            plan = new_plan(
                audit.tasks,
                profile,
                out,
                keys=read_keys(profile.key_envs()),
                rounds=audit.samples,
                provenance=Provenance(label=LIVE_LABEL.format(route=route.label)),
                executor=executor,
                simulation=Simulation(scenario=route.scenario),
            )
        run_plan(plan, controls)
    except BaseException as err:  # reported by the caller, in the caller's thread
        failures.errors.append(err)


@dataclass
class _Failures:
    errors: list[BaseException] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)


def run_live(
    audit: LiveAudit,
    cancel: threading.Event | None = None,
    progress: Callable[[int, int], None] | None = None,
    say: Callable[[str], None] | None = None,
    surface: Surface = "cli",
) -> tuple[RunLog, RunLog]:
    """Run both routes at once (one request at a time each) and read back both logs.

    Results already written into `audit.out` by the same audit are kept, never sent again.
    `progress(done, total)` hears both routes' results together (kept ones included); setting
    `cancel` stops both; `say` hears what Ctrl-C left; messages say what to do on `surface`.

    Raises:
        RerunLensError: another audit's folder, cancelled, or a route unreachable, before both logs
            were complete (what was written is kept for the same audit to continue).
        RouteError: a route's key is not the one its results were sent with.
        KeyboardInterrupt: Ctrl-C, once both routes are told to stop.
    """
    done = dict(kept_results(audit))
    same_keys(audit, surface)
    save_manifest(audit)
    stop = threading.Event()  # set by `cancel`, Ctrl-C or an unreachable route; stops both
    failures = _Failures()

    def heard(label: str) -> Callable[[Progress], None]:
        def record(p: Progress) -> None:
            done[label] = p.done
            if progress is not None:
                progress(sum(done.values()), audit.requests)

        return record

    threads = [
        threading.Thread(
            target=_run, args=(audit, r, failures, RunControls(heard(r.label), stop)), daemon=True
        )
        for r in audit.routes
    ]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(timeout=0.2)
                if cancel is not None and cancel.is_set():
                    stop.set()
    except KeyboardInterrupt:
        stop.set()
        deadline = time.monotonic() + INTERRUPT_WAIT_S
        for t in threads:  # a request in flight may land (and be kept); a slow one cannot hold the exit
            t.join(timeout=max(deadline - time.monotonic(), 0.0))
        if say is not None:
            landing = any(t.is_alive() for t in threads)  # its result may still be written: "at least"
            say(f"Interrupted: {'at least ' if landing else ''}{left_text(audit, surface)}")
        raise
    if failures.errors:
        raise failures.errors[0]
    if not all(log_path(audit, r).exists() for r in audit.routes):
        why = failures.unreachable[0] if failures.unreachable else "cancelled"
        raise RerunLensError(f"audit: {why}; {left_text(audit, surface)}")
    return load_path(log_path(audit, audit.reference)).log, load_path(log_path(audit, audit.candidate)).log


def kept_text(audit: LiveAudit) -> str:
    """What an interrupted audit kept: `40 of 216 results are kept in DIR`."""
    kept = sum(kept_results(audit).values())
    return f"{kept:,} of {audit.requests:,} results are kept in {audit.out}"


def left_text(audit: LiveAudit, surface: Surface) -> str:
    """What an interrupted audit kept and how to continue it where the user reads it (`surface`)."""
    return f"{kept_text(audit)}; {_TO_CONTINUE[surface]}"


def same_keys(audit: LiveAudit, surface: Surface) -> None:
    """Refuse to continue a route whose key is not the one its journalled results were sent with
    (compared by fingerprint): its log would mix two keys.

    Raises:
        RouteError: in one line naming the folder, the variable and what the user can do on `surface`.
    """
    for route in audit.routes:
        journal = journal_path(log_path(audit, route))
        if log_path(audit, route).exists() or not journal_begun(journal):
            continue
        recorded = read_journal(journal).header.get("route")
        recorded = recorded if isinstance(recorded, dict) else {}
        single = recorded.get("key_fingerprint")
        before = list(recorded.get("key_fingerprints") or ([single] if single else []))
        keys = read_keys([route.key_env])
        now = [fp for fp in (keys if route.base_url else keys.for_simulator()).fingerprints if fp]
        if before and now != before:
            raise RouteError(
                f"audit: the {route.label} route's results in {audit.out} were sent with the key "
                f"{', '.join(before)} and {route.key_env} now holds {', '.join(now) or 'no key'}; "
                f"{_SET_KEY[surface].format(env=route.key_env)}, {_ELSEWHERE[surface]}"
            )


def kept_sentence(audit: LiveAudit, kept: dict[str, int]) -> str | None:
    """What a continued audit keeps (None for a new one); the CLI prints it after the cost."""
    total = sum(kept.values())
    if not total:
        return None
    left = audit.requests - total
    each = ", ".join(f"{label} {n:,}" for label, n in kept.items())
    send = f"{left:,} requests left to send" if left else "nothing left to send"
    return (
        f"Continuing the live audit in {audit.out}: kept {total:,} of {audit.requests:,} results already "
        f"written ({each}); {send}."
    )


def confirm_cost(
    audit: LiveAudit, say: Callable[[str], None], ask: Callable[[str], bool] | None, yes: bool
) -> None:
    """Print the cost first (and what a continued audit keeps); past `ASK_ABOVE_REQUESTS` requests
    left to send, ask (or refuse where nobody can be asked).

    Raises:
        RerunLensError: another audit's folder, not agreed, or nobody to ask.
    """
    kept = kept_results(audit)
    requests = audit.requests - sum(kept.values())
    say(cost_sentence(audit))
    if (continued := kept_sentence(audit, kept)) is not None:
        say(continued)
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


def left_cost_sentence(audit: LiveAudit) -> str:
    """What continuing an unfinished audit will spend (only what is not yet written), said before it
    continues, with what is kept."""
    enc = encoding_name(audit.model)
    requests = prompt = completion = 0
    for route in audit.routes:
        left = _left_samples(audit, route)
        for task in audit.tasks:
            n = left.get(str(task.task_id), 0)
            requests += n
            prompt += n * _expected_prompt(task, enc)
            completion += n * (task.max_tokens or DEFAULT_MAX_TOKENS)
    return (
        f"Left to send: {requests:,} requests, about {prompt:,} prompt tokens and at most {completion:,} "
        f"completion tokens, at temperature {audit.temperature:g} ({kept_text(audit)})."
    )


def _left_samples(audit: LiveAudit, route: LiveRoute) -> dict[str, int]:
    """Samples per prompt `route` has still to send."""
    out = log_path(audit, route)
    if out.exists():
        return {}
    journal = journal_path(out)
    done = Counter(task for task, _ in read_journal(journal).results) if journal_begun(journal) else Counter()
    return {str(t.task_id): audit.samples - done[str(t.task_id)] for t in audit.tasks}


def saved_route_subject(label: str, out: Path) -> str:
    """How the host question names a route an unfinished audit's `audit.json` chose (not the user)."""
    return f"the {label} route that {out / MANIFEST} names"


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
