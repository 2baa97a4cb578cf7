"""A dishonest route, simulated: what `Scenario.distortion` changes in a request's reply.

Each function takes the request's own random draw, so a distorted reply is as repeatable as an
honest one. The served model name and fingerprint never change: that is what makes these faults
invisible in an ordinary log.
"""

from __future__ import annotations

import json
import random
from typing import Any

from analyzer.metrics.prompt_rule import Uncovered, chat_tokens
from analyzer.metrics.token_count import count_completion, count_messages, count_text
from analyzer.simulator.engine import Nudge, count_tokens
from analyzer.simulator.scenario import Distortion, Scenario

BROKEN_KINDS = ("invalid JSON", "undeclared tool", "schema violation")
SYSTEM_PROMPT_SHIFT = 1.0
"""How far an injected system prompt moves the answer preferences."""


def substitute_for(distortion: Distortion, draw: random.Random) -> Nudge | None:
    """The model that answers this request in the backend's place: a substitute's, an injected
    system prompt's (it bends the answers the same way), or None for the backend's own."""
    sub = distortion.substitute
    if sub is not None and sub.share > 0 and draw.random() < sub.share:
        return sub.name, sub.shift
    if distortion.system_prompt:
        return "system:" + distortion.system_prompt, SYSTEM_PROMPT_SHIFT
    return None


def sent_messages(messages: list[Any], distortion: Distortion) -> list[Any]:
    """The messages the model reads: the route's injected system prompt first, where it adds one."""
    if not distortion.system_prompt:
        return messages
    return [{"role": "system", "content": distortion.system_prompt}, *messages]


def truncated(text: str, distortion: Distortion, draw: random.Random) -> str | None:
    """The text cut to half its words when this reply is one the route cuts short, else None."""
    if distortion.truncate_share <= 0 or draw.random() >= distortion.truncate_share:
        return None
    words = text.split()
    return " ".join(words[: len(words) // 2]) if len(words) > 1 else text[: len(text) // 2]


def _value(schema: Any, draw: random.Random) -> Any:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(schema, dict) and schema.get("enum"):
        return draw.choice(schema["enum"])
    if kind == "integer":
        return draw.randint(1, 9)
    if kind == "number":
        return round(draw.uniform(1, 9), 1)
    if kind == "boolean":
        return draw.random() < 0.5
    if kind == "object":
        return {k: _value(v, draw) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [_value(schema.get("items") or {}, draw)]
    return draw.choice(("Paris", "北京", "Lisbon", "tomorrow"))


def tool_call(body: dict[str, Any], distortion: Distortion, draw: random.Random) -> tuple[str, str] | None:
    """(name, arguments) when the request requires a tool call, well formed or broken at the route's rate."""
    functions = [t.get("function") for t in body.get("tools") or [] if isinstance(t, dict)]
    tools = [t for t in functions if isinstance(t, dict) and isinstance(t.get("name"), str)]
    if not tools or body.get("tool_choice") in (None, "none", "auto"):
        return None
    tool: dict[str, Any] = draw.choice(tools)
    args = _value(tool.get("parameters") or {"type": "object"}, draw)
    name, text = str(tool["name"]), json.dumps(args, ensure_ascii=False)
    if distortion.broken_tool_calls > 0 and draw.random() < distortion.broken_tool_calls:
        kind = draw.choice(BROKEN_KINDS)
        if kind == "invalid JSON":
            text = text[:-1]
        elif kind == "undeclared tool":
            name = f"{name}_v2"
        else:
            text = json.dumps({"unexpected": True}, ensure_ascii=False)
    return name, text


def billed_prompt(request: dict[str, Any], sent: list[Any]) -> int:
    """The prompt an honest o200k_base route bills: the cookbook's rules over the messages the model
    reads and the tool definitions (whatever the tool choice); where they do not cover the request,
    its messages plus its tools and response format as JSON text."""
    tools: dict[str, Any] = {k: request[k] for k in ("tools", "functions") if k in request}
    tokens = chat_tokens({"messages": sent, **tools}, "o200k_base")
    if not isinstance(tokens, Uncovered):
        return tokens
    extras = tools | ({"response_format": request["response_format"]} if "response_format" in request else {})
    return count_messages(sent) + count_text(json.dumps(extras, ensure_ascii=False))


def usage(
    scenario: Scenario,
    messages: list[Any],
    message: dict[str, Any],
    served_tokens: int,
    request: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The usage a reply reports: counted by the scenario's billing, then as the route distorts it."""
    d = scenario.distortion
    sent = sent_messages(messages, d)
    if scenario.billing == "o200k_base":
        prompt, completion = billed_prompt(request or {}, sent), count_completion(message)
    else:
        prompt = sum(count_tokens(str(m.get("content", ""))) + 3 for m in sent if isinstance(m, dict))
        completion = served_tokens
    completion += 0 if d.drop_reasoning else d.reasoning_tokens
    prompt, completion = round(prompt * d.usage_factor), round(completion * d.usage_factor)
    out: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if d.reasoning_tokens and not d.drop_reasoning:
        out["completion_tokens_details"] = {"reasoning_tokens": d.reasoning_tokens}
    return out
