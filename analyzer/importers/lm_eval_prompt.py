"""What one lm-evaluation-harness sample says: its prompt and its answer in each repeat.

`arguments` holds each request's arguments: `{"gen_args_0": {"arg_0": context, "arg_1": ...}}` in
lm-eval 0.4.3 and later, a list of argument lists before. The context is the prompt text, or, with
`--apply_chat_template` on an API model, the chat as a JSON string (inside a one-item list in
recent versions). `resps` holds each request's responses, one per repeat: for `generate_until`
one request whose responses are texts; for multiple choice one request per choice whose responses
are `[loglikelihood, is_greedy]`, and the answer is the choice with the highest loglikelihood (as
lm-eval's `acc` picks it).
"""

from __future__ import annotations

import json
from typing import Any

from analyzer.importers.common import Source


def requests(record: dict[str, Any]) -> list[list[Any]]:
    """Each request's arguments as a list (`[context, continuation or generation settings]`)."""
    arguments = record.get("arguments")
    if isinstance(arguments, dict):
        out = []
        for value in arguments.values():
            if isinstance(value, dict):
                out.append([value[k] for k in sorted(value, key=_arg_order)])
        return out
    if isinstance(arguments, list):
        return [a if isinstance(a, list) else [a] for a in arguments]
    return []


def _arg_order(key: str) -> int:
    tail = key.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def prompt_text(record: dict[str, Any]) -> str:
    """The first request's context: the text, or a chat's user messages joined by a blank line."""
    reqs = requests(record)
    context: Any = reqs[0][0] if reqs and reqs[0] else ""
    if isinstance(context, list) and len(context) == 1:
        context = context[0]
    if isinstance(context, str) and context.lstrip().startswith("[{"):
        try:
            chat = json.loads(context)
        except ValueError:
            return context
        if isinstance(chat, list) and all(isinstance(m, dict) for m in chat):
            users = [str(m.get("content")) for m in chat if m.get("role") == "user"]
            return "\n\n".join(users) if users else context
    return context if isinstance(context, str) else json.dumps(context, ensure_ascii=False)


def answers(record: dict[str, Any], place: str, source: Source) -> list[str | None]:
    """The document's answer in each repeat."""
    resps = record.get("resps")
    if not isinstance(resps, list):
        source.fail(f"{place}.resps", "expected a list of each request's responses")
    per_request = [r if isinstance(r, list) else [r] for r in resps]
    if not per_request:
        return [None]
    if _is_choice(per_request[0]):
        return _choices(per_request, requests(record))
    return [_text(r) for r in per_request[0]]


def _is_choice(responses: list[Any]) -> bool:
    first = responses[0] if responses else None
    return isinstance(first, list) and len(first) == 2 and isinstance(first[0], int | float)


def _choices(per_request: list[list[Any]], reqs: list[list[Any]]) -> list[str | None]:
    """For each repeat, the continuation of the request with the highest loglikelihood."""
    repeats = min(len(r) for r in per_request)
    out: list[str | None] = []
    for i in range(repeats):
        scores = [r[i][0] if isinstance(r[i], list) and r[i] else float("-inf") for r in per_request]
        best = max(range(len(scores)), key=lambda j: scores[j])
        continuation = reqs[best][1] if best < len(reqs) and len(reqs[best]) > 1 else None
        out.append(continuation.strip() if isinstance(continuation, str) else str(best))
    return out


def _text(response: Any) -> str | None:
    if response is None or isinstance(response, str):
        return response
    return json.dumps(response, ensure_ascii=False, sort_keys=True)
