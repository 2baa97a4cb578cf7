"""An example executor: plug your own agent into `rerunlens run` / `rerun` with `--executor`.

    rerunlens run --tasks sample_runs/tasks.json --out runs/agent.altk_runs.json \
        --executor examples/agent_executor.py:run_task

RerunLens calls `run_task(task, client, route)` once per task and round:

- `task`   an `analyzer.log.model.TaskSpec` (`task_id`, `prompt`, `max_tokens`, `expected`);
- `client` an `openai.OpenAI` client pinned to the route: its base URL, key, timeout and retry budget
  are fixed, and every HTTP attempt it makes (retries and timeouts included) is recorded in the log.
  Make all model calls through it; do not build your own client;
- `route`  the `analyzer.routes.profile.RouteProfile` (model, temperature, top_p, seed, max_tokens, ...).

Return an `ExecutorResult` (or a dict with the same fields, or just the answer string). Usage should
be summed over every call the agent made. A raised exception becomes an error result; the run goes on.

This toy agent makes two calls: one to pick a tool, one to answer after "running" it. It records both
steps in a trajectory.
"""

from __future__ import annotations

from typing import Any

import openai

from analyzer.log.model import TaskSpec
from analyzer.routes.profile import RouteProfile
from analyzer.runner import ExecutorResult

TOOLS = ("search_app", "open_screen", "read_field")


def run_task(task: TaskSpec, client: openai.OpenAI, route: RouteProfile) -> ExecutorResult:
    """Plan with one call, act with a (pretend) tool, answer with a second call."""
    params: dict[str, Any] = {"model": route.model, "temperature": route.temperature, "top_p": route.top_p}
    if route.seed is not None:
        params["seed"] = route.seed
    plan = client.chat.completions.create(
        messages=[
            {
                "role": "system",
                "content": f"Pick one tool from {', '.join(TOOLS)} for the task. Reply with its name.",
            },
            {"role": "user", "content": task.prompt},
        ],
        max_tokens=8,
        **params,
    )
    tool = _tool_named(plan.choices[0].message.content or "")
    observation = f"{tool} returned the screen for: {task.prompt}"
    final = client.chat.completions.create(
        messages=[
            {"role": "system", "content": "Answer the task with the final answer only."},
            {"role": "user", "content": task.prompt},
            {"role": "assistant", "content": f"(called {tool})"},
            {"role": "user", "content": observation},
        ],
        max_tokens=task.max_tokens or route.max_tokens,
        **params,
    )
    answer = final.choices[0].message.content or ""
    usage = [c.usage for c in (plan, final) if c.usage is not None]
    return ExecutorResult(
        answer=answer,
        prompt_tokens=sum(u.prompt_tokens for u in usage),
        completion_tokens=sum(u.completion_tokens for u in usage),
        trajectory=[
            {"type": "tool_call", "name": tool, "arguments": {"query": task.prompt[:80]}},
            {"type": "message", "role": "assistant", "content": answer},
        ],
        served_model=final.model,
        system_fingerprint=final.system_fingerprint,
        finish_reason=final.choices[0].finish_reason,
    )


def _tool_named(text: str) -> str:
    for name in TOOLS:
        if name in text:
            return name
    return TOOLS[0]
