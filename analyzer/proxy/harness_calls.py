"""The model calls a harness's log records, per result, as the join needs them.

Inspect records each model call's request (its messages, condensed into the sample's
`events_data.calls` pool, and the `x-irid` header it sent), the call's start and end: the join is
exact there. promptfoo records each result's rendered prompt and no per-call time: its calls are
matched by the prompt's hash (a chat prompt given as JSON messages is hashed as those messages).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from analyzer.errors import LogError
from analyzer.importers.common import Source, parse_json, parse_time
from analyzer.importers.inspect_archive import is_eval_archive, read_eval_archive
from analyzer.log.loader import MAX_LOG_BYTES
from analyzer.proxy.facts import canonical_hash, conversation
from analyzer.proxy.harness_logs import INSPECT, PROMPTFOO
from analyzer.proxy.join import HarnessCall
from analyzer.safety.bounded_read import read_file


def harness_calls(kind: str, path: Path) -> list[HarnessCall]:
    """The calls recorded in a harness log (none for a harness whose log records no requests)."""
    if kind not in (INSPECT, PROMPTFOO):
        return []
    data = read_file(path, MAX_LOG_BYTES, f"{kind} log", LogError)
    source = Source(str(path))
    if kind == PROMPTFOO:
        return promptfoo_calls(parse_json(data.decode("utf-8-sig", "replace"), source))
    parsed = read_eval_archive(data, source) if is_eval_archive(data) else parse_json(data, source)
    return inspect_calls(parsed)


def inspect_calls(parsed: dict[str, Any]) -> list[HarnessCall]:
    """Every model event of every sample, with its request's messages hash and `x-irid`."""
    out = []
    provider = str((parsed.get("eval") or {}).get("model") or "").split("/", 1)[0]
    for sample in parsed.get("samples") or []:
        if not isinstance(sample, dict):
            continue
        key = (str(sample.get("id")), int(sample.get("epoch") or 1))
        pool = (sample.get("events_data") or {}).get("calls") or []
        for event in sample.get("events") or []:
            if isinstance(event, dict) and event.get("event") == "model":
                out.append(_inspect_call(key, event, pool, provider))
    return out


def _inspect_call(key: tuple[str, int], event: dict[str, Any], pool: list[Any], provider: str) -> HarnessCall:
    call: dict[str, Any] = event["call"] if isinstance(event.get("call"), dict) else {}
    request = dict(call.get("request") or {})
    field = call.get("call_key") or "messages"
    refs = call.get("call_refs")
    if refs:
        request[field] = [pool[i] for start, end in refs for i in range(start, end) if i < len(pool)]
    path = "/v1/messages" if provider == "anthropic" else "/v1/responses" if field == "input" else "/chat"
    asked = conversation(path, request) if request.get(field) is not None else None
    extra = request.get("extra_headers")
    headers: dict[str, Any] = extra if isinstance(extra, dict) else {}
    return HarnessCall(
        result=key,
        messages_hash=canonical_hash(asked) if asked is not None else None,
        client_id=headers.get("x-irid"),
        start=parse_time(event.get("timestamp")),
        end=parse_time(event.get("completed")),
    )


def promptfoo_calls(parsed: dict[str, Any]) -> list[HarnessCall]:
    """One call per promptfoo result: its rendered prompt as the request's messages."""
    results = ((parsed.get("results") or {}).get("results")) or []
    out = []
    for i, r in enumerate(results):
        raw = (
            (r.get("prompt") or {}).get("raw")
            if isinstance(r, dict) and isinstance(r.get("prompt"), dict)
            else None
        )
        if isinstance(raw, str):  # the importer keeps each row's place as its source_ref
            out.append(
                HarnessCall(result=f"results.results[{i}]", messages_hash=canonical_hash(_as_messages(raw)))
            )
    return out


def _as_messages(raw: str) -> Any:
    """A promptfoo prompt as the chat messages its OpenAI provider sends."""
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if isinstance(value, list) and all(isinstance(m, dict) and "role" in m for m in value):
        return value
    return [{"role": "user", "content": raw}]
