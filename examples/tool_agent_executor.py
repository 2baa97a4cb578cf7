"""An example tool-using agent that records its whole conversation: plug it in with `--executor`.

    rerunlens run --tasks agent_tasks.json --out runs/agent.altk_runs.json \
        --executor examples/tool_agent_executor.py:run_task

The agent loops: send the conversation with the tools offered, run the tool calls the model makes,
append their results, until the model answers in text (or `MAX_STEPS` model calls). It records every
message it sent and received, and every tool call, as the result's `trajectory`
(`analyzer.log.chat_steps.steps_from_messages`): that is what lets RerunLens find where rounds part ways
and replay a conversation up to any step (`analyzer.runner.resample`).

The tools are the simulator's shop back office (`analyzer.simulator.agent_world`); swap in your own.
Offline, the embedded simulator plays a scripted model for the tasks of `analyzer.simulator.agent`.
"""

from __future__ import annotations

import json
from typing import Any

import openai

from analyzer.log.chat_steps import steps_from_messages
from analyzer.log.model import TaskSpec
from analyzer.routes.profile import RouteProfile
from analyzer.runner import ExecutorResult
from analyzer.simulator.agent_world import run_tool, tool_schemas

MAX_STEPS = 30
SYSTEM = (
    "You are a shop back-office agent. Use the tools to do the task, then reply with the final answer only."
)


def run_task(task: TaskSpec, client: openai.OpenAI, route: RouteProfile) -> ExecutorResult:
    """Run the tool loop for one task and return the answer, summed usage and the trajectory."""
    params: dict[str, Any] = {"model": route.model, "temperature": route.temperature, "top_p": route.top_p}
    if route.seed is not None:
        params["seed"] = route.seed
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": task.prompt},
    ]
    prompt_tokens = completion_tokens = 0
    answer = "(no final answer within the step limit)"
    last = None
    for _ in range(MAX_STEPS):
        last = client.chat.completions.create(messages=messages, tools=tool_schemas(), **params)
        if last.usage is not None:
            prompt_tokens += last.usage.prompt_tokens
            completion_tokens += last.usage.completion_tokens
        reply = last.choices[0].message
        calls = reply.tool_calls or []
        messages.append(
            {
                "role": "assistant",
                "content": reply.content,
                **({"tool_calls": [c.model_dump() for c in calls]} if calls else {}),
            }
        )
        if not calls:
            answer = reply.content or ""
            break
        for call in calls:
            args = json.loads(call.function.arguments or "{}")
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": run_tool(call.function.name, args)}
            )
    return ExecutorResult(
        answer=answer,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        trajectory=steps_from_messages(messages, tools=tool_schemas()),
        served_model=last.model if last else None,
        system_fingerprint=last.system_fingerprint if last else None,
        finish_reason=last.choices[0].finish_reason if last else None,
    )
