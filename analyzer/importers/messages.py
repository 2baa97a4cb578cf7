"""Chat messages from the source tools turned into trajectory steps and a final answer.

Three message shapes are read: OpenAI's (tau-bench: `tool_calls[].function.{name, arguments}`, the
arguments a JSON string), tau2's (`tool_calls[].{name, arguments}`, arguments an object, with a
`requestor`) and Inspect's (`tool_calls[].{function, arguments}`, content a string or a list of
parts). System messages are left out: they are the same long policy text in every run.
"""

from __future__ import annotations

from typing import Any

from analyzer.log.call_tokens import canonical_json

AGENT_ROLES = frozenset({"assistant"})
"""Roles whose tool calls are the agent's own actions."""


def is_agent(message: Any) -> bool:
    """True for a message object the agent wrote."""
    return (
        isinstance(message, dict) and isinstance(message.get("role"), str) and message["role"] in AGENT_ROLES
    )


def text_of(content: Any) -> str | None:
    """Message content as text: a string as is, a list of parts joined by their `text`, else None."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "\n".join(parts) if parts else None
    return None


def tool_call_step(call: Any) -> dict[str, Any] | None:
    """One tool call as a `tool_call` step, whatever the source's shape; None when it has no name."""
    if not isinstance(call, dict):
        return None
    function = call.get("function")
    if isinstance(function, dict):  # OpenAI: {"function": {"name", "arguments"}}
        name, arguments = function.get("name"), function.get("arguments")
    elif isinstance(function, str):  # Inspect: {"function": name, "arguments": {...}}
        name, arguments = function, call.get("arguments")
    else:  # tau2: {"name", "arguments"}
        name, arguments = call.get("name"), call.get("arguments")
    if not isinstance(name, str) or not name:
        return None
    return {"type": "tool_call", "name": name, "arguments": arguments}


def trajectory(messages: list[Any]) -> list[dict[str, Any]]:
    """Steps from a message list: each non-system message with text, then the agent's tool calls.

    Tool calls of other roles (tau2's simulated user acts on its own device in the telecom domain)
    are kept as messages, so the `actions` key compares what the agent did and nothing else.
    """
    steps: list[dict[str, Any]] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if not isinstance(role, str) or role == "system":
            continue
        content = text_of(message.get("content"))
        if content:
            steps.append({"type": "message", "role": role, "content": content})
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            step = tool_call_step(call)
            if step is None:
                continue
            if role in AGENT_ROLES:
                steps.append(step)
            else:
                steps.append(
                    {"type": "message", "role": role, "content": f"[{role} tool call] {step['name']}"}
                )
    return steps


STOP_TOKENS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")
"""tau-bench's and tau2's in-band end-of-conversation signals: tau2's solo agent turns its `done`
call into a message that is only `###STOP###`, its user simulator ends with these. Never an answer."""


def without_stop_tokens(text: str) -> str:
    """The text with every stop token removed, stripped."""
    for token in STOP_TOKENS:
        text = text.replace(token, "")
    return text.strip()


def ends_on_stop(messages: list[Any]) -> bool:
    """True when the agent's last message is nothing but a stop token (tau2's solo agent's `done`)."""
    last = next((m for m in reversed(messages) if is_agent(m)), None)
    text = text_of(last.get("content")) if last is not None else None
    return bool(text and text.strip()) and not without_stop_tokens(text or "")


def final_answer(messages: list[Any]) -> str | None:
    """The agent's last message with text (its closing words) other than a stop token, or None when
    it never spoke. A stop token inside a message is dropped and the rest kept."""
    for message in reversed(messages):
        if is_agent(message):
            content = text_of(message.get("content")) or ""
            kept = without_stop_tokens(content)
            if kept:
                return content if content.strip() == kept else kept
    return None


def actions_answer(steps: list[dict[str, Any]]) -> str | None:
    """The agent's tool calls in order, one `name {canonical JSON arguments}` a line: the answer of
    a run whose agent only acts (tau2 without a user simulator); None when it made no call."""
    calls = [
        f"{step['name']} {canonical_json(step.get('arguments'))}"
        for step in steps
        if step.get("type") == "tool_call"
    ]
    return "\n".join(calls) if calls else None
