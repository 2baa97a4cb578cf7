"""Trajectories as chat messages and back: an executor records what it sent and received, the
resampler replays it.

Recorded form (a result's `trajectory`): every chat message is a `message` step (role, content; a
tool result keeps its `tool_call_id`), and every tool call an assistant message made follows it as a
`tool_call` step (name, arguments parsed from JSON where they are JSON, the call's `id`). The tools
offered to the model, when given, ride on the first step as `tools`, so a replay offers the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from analyzer.log.model import MessageStep, ToolCallStep

__all__ = ["messages_from_steps", "recorded_tools", "steps_from_messages"]


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def steps_from_messages(
    messages: Iterable[Mapping[str, Any]], tools: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Chat messages (OpenAI shape, dicts) as trajectory steps; `tools` (the chat API's `tools`
    parameter) is kept on the first step."""
    steps: list[dict[str, Any]] = []
    for m in messages:
        step: dict[str, Any] = {"type": "message", "role": str(m.get("role")), "content": m.get("content")}
        if m.get("tool_call_id") is not None:
            step["tool_call_id"] = m["tool_call_id"]
        steps.append(step)
        for call in m.get("tool_calls") or []:
            function = call.get("function") or {}
            steps.append(
                {
                    "type": "tool_call",
                    "name": str(function.get("name")),
                    "arguments": _arguments(function.get("arguments")),
                    "id": call.get("id"),
                }
            )
    if tools and steps:
        steps[0]["tools"] = tools
    return steps


def recorded_tools(steps: Sequence[MessageStep | ToolCallStep]) -> list[dict[str, Any]] | None:
    """The tools the recording executor offered (kept on the first step), or None."""
    tools = (steps[0].model_extra or {}).get("tools") if steps else None
    return tools if isinstance(tools, list) and tools else None


def messages_from_steps(steps: Sequence[MessageStep | ToolCallStep]) -> list[dict[str, Any]]:
    """Trajectory steps as chat messages to send again; a tool call joins the assistant message before
    it (or opens one when the trajectory recorded the call alone)."""
    out: list[dict[str, Any]] = []
    for i, step in enumerate(steps):
        if isinstance(step, MessageStep):
            message: dict[str, Any] = {"role": step.role, "content": step.content}
            extra = step.model_extra or {}
            if extra.get("tool_call_id") is not None:
                message["tool_call_id"] = extra["tool_call_id"]
            out.append(message)
            continue
        if not out or out[-1]["role"] != "assistant":
            out.append({"role": "assistant", "content": None})
        args = step.arguments
        call_id = (step.model_extra or {}).get("id") or f"call_{i}"
        out[-1].setdefault("tool_calls", []).append(
            {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": step.name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
        )
    return out
