"""promptfoo results (`promptfoo eval -o results.json`, optionally with `--repeat N`).

promptfoo writes each repeat as its own row with no repeat index (only a new `testIdx`), so rows
are regrouped into tasks by (prompt, provider, test case) and numbered into rounds in `testIdx`
order within each task. Field map: `response.output` -> answer, `success` -> success, `score` ->
score, `failureReason` -> errors (2 = error; 1 = a failed assertion, which is a graded failure
even though promptfoo also fills `error` with the assertion's reason), `response.tokenUsage` (else
the row's `tokenUsage`) -> tokens, `cost`, `latencyMs` -> cost and latency, `provider.id` -> the
route's model. promptfoo records no key, base URL, sampling parameters or retries per row.
"""

from __future__ import annotations

import json
from typing import Any

from analyzer.importers.common import Provenance, Row, Source, member_obj, parse_time, plural
from analyzer.log.loader import json_type
from analyzer.log.model import TaskSpec

FORMAT = "promptfoo"
FAILURE_ERROR = 2
"""promptfoo's `ResultFailureReason.ERROR`; 0 is none, 1 is a failed assertion."""


def looks_like(data: Any) -> bool:
    """An `-o results.json` export: `results` holding a `results` list (and `evalId` or `version`)."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        return False
    inner = data["results"]
    return isinstance(inner.get("results"), list) and ("evalId" in data or "version" in inner)


def read(data: Any, source: Source) -> tuple[list[Row], Provenance]:
    """Rows and provenance from a parsed promptfoo results export."""
    top = source.obj(data, "top level")
    inner = source.obj(top.get("results"), "results")
    raw_rows = source.items(inner.get("results"), "results.results")
    parsed = [
        _parse(source.obj(r, f"results.results[{i}]"), f"results.results[{i}]", source)
        for i, r in enumerate(raw_rows)
    ]
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for item in parsed:
        groups.setdefault(item["group"], []).append(item)
    labels = {key: items[0]["provider_label"] for key, items in groups.items()}
    names = _task_names(list(groups), labels)
    rows: list[Row] = []
    tasks: list[TaskSpec] = []
    for key, items in groups.items():
        items.sort(key=lambda it: (it["test_idx"], it["index"]))
        for round_number, it in enumerate(items, start=1):
            rows.append(Row(task_id=names[key], round=round_number, fields=it["fields"], place=it["place"]))
        tasks.append(TaskSpec(task_id=names[key], prompt=items[0]["prompt"], expected=items[0]["expected"]))
    meta = member_obj(top, "metadata")
    prov = Provenance(
        format=FORMAT,
        version=_version(inner, meta),
        importer=__name__,
        label=f"promptfoo: {top.get('evalId') or source.name.rsplit('/', 1)[-1]}",
        created_at=parse_time(inner.get("timestamp")),
        tasks=tasks,
        warnings=_warnings(rows, groups),
    )
    return rows, prov


def _parse(row: dict[str, Any], place: str, source: Source) -> dict[str, Any]:
    prompt = source.optional_obj(row.get("prompt"), f"{place}.prompt")
    provider = row.get("provider")
    if provider is not None and not isinstance(provider, str | dict):
        source.fail(f"{place}.provider", f"expected a provider id or object, got {json_type(provider)}")
    provider_id = provider.get("id") if isinstance(provider, dict) else provider
    provider_label = (provider.get("label") or provider_id) if isinstance(provider, dict) else provider
    test = source.optional_obj(row.get("testCase"), f"{place}.testCase") or {"vars": row.get("vars")}
    test_key = {k: test.get(k) for k in ("description", "vars", "assert") if k in test}
    response = source.optional_obj(row.get("response"), f"{place}.response")
    output = response.get("output")
    failure = source.optional_int(row.get("failureReason"), f"{place}.failureReason")
    fields: dict[str, Any] = {
        "answer": output if isinstance(output, str) else (None if output is None else _canonical(output)),
        "success": source.optional_bool(row.get("success"), f"{place}.success"),
        "score": source.optional_number(row.get("score"), f"{place}.score"),
        "cost_usd": source.optional_number(row.get("cost"), f"{place}.cost"),
        "route": {"model": provider_id if isinstance(provider_id, str) else None},
        **(
            _tokens(response["tokenUsage"], f"{place}.response.tokenUsage", source)
            if response.get("tokenUsage")
            else _tokens(row.get("tokenUsage"), f"{place}.tokenUsage", source)
        ),
    }
    latency = source.optional_number(row.get("latencyMs"), f"{place}.latencyMs")
    if latency is not None and latency >= 0:
        fields["latency_ms"] = latency
    if failure == FAILURE_ERROR:
        message = str(row.get("error") or response.get("error") or "error").strip().splitlines()[0][:300]
        fields.update(
            status="error",
            answer=None,
            success=None,
            score=None,
            error={"type": "provider_error", "message": message},
        )
    test_idx = source.optional_int(row.get("testIdx"), f"{place}.testIdx")
    return {
        "group": (_prompt_key(row, prompt), str(provider_id or ""), _canonical(test_key)),
        "test_idx": test_idx if test_idx is not None else 0,
        "index": int(place.rsplit("[", 1)[1].rstrip("]")),
        "provider_label": str(provider_label or ""),
        "place": place,
        "fields": fields,
        "prompt": str(prompt.get("raw") or prompt.get("label") or ""),
        "expected": test.get("assert"),
        "description": test.get("description") if isinstance(test.get("description"), str) else None,
        "vars": test.get("vars"),
    }


def _prompt_key(row: dict[str, Any], prompt: dict[str, Any]) -> str:
    """Which prompt a row used: its `promptId` (a hash of the template), else the template label.

    Not `promptIdx`, which numbers (prompt, provider) columns, nor the rendered `raw` text, which
    differs per test.
    """
    prompt_id = row.get("promptId")
    if isinstance(prompt_id, str) and prompt_id:
        return prompt_id
    return str(prompt.get("label") or prompt.get("raw") or "")


def _tokens(usage: Any, place: str, source: Source) -> dict[str, int]:
    """promptfoo token usage; nothing when it is absent or all zero with no request counted."""
    usage = source.optional_obj(usage, place)
    theirs = {"prompt_tokens": "prompt", "completion_tokens": "completion", "total_tokens": "total"}
    counts = {
        ours: source.count(usage[key], f"{place}.{key}")
        for ours, key in theirs.items()
        if usage.get(key) is not None
    }
    return counts if any(v > 0 for v in counts.values()) else {}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _task_names(
    keys: list[tuple[str, str, str]], labels: dict[tuple[str, str, str], str]
) -> dict[tuple[str, str, str], str]:
    """Readable task ids: the test's description (else its vars), plus the provider and prompt
    number when the file has more than one, made unique with a `#n` suffix if they still clash."""
    prompts = sorted({k[0] for k in keys})
    providers = {k[1] for k in keys}
    names: dict[tuple[str, str, str], str] = {}
    seen: dict[str, int] = {}
    for key in keys:
        test = json.loads(key[2])
        description = test.get("description")
        base = description if isinstance(description, str) and description else _vars_text(test.get("vars"))
        parts = [base]
        if len(prompts) > 1:
            parts.append(f"prompt {prompts.index(key[0]) + 1}")
        if len(providers) > 1:
            parts.append(labels[key])
        name = " | ".join(parts)
        seen[name] = seen.get(name, 0) + 1
        names[key] = name if seen[name] == 1 else f"{name} #{seen[name]}"
    return names


def _vars_text(variables: Any) -> str:
    if isinstance(variables, dict) and variables:
        return ", ".join(f"{k}={v}" for k, v in variables.items())
    return "test"


def _version(inner: dict[str, Any], meta: dict[str, Any]) -> str:
    tool = meta.get("promptfooVersion")
    return f"results v{inner.get('version', '?')}" + (f", promptfoo {tool}" if tool else "")


def _warnings(rows: list[Row], groups: dict[tuple[str, str, str], list[dict[str, Any]]]) -> list[str]:
    out = []
    errored = sum(r.fields.get("status") == "error" for r in rows)
    if errored:
        out.append(f"{plural(errored, 'row')} failed with an error (failureReason 2): counted as errors")
    sizes = {len(v) for v in groups.values()}
    if sizes == {1}:
        out.append("each test ran once (no --repeat): every task has a single answer")
    out.append(
        "promptfoo writes repeats without a repeat index: rounds are the order of each "
        "(prompt, provider, test) group's rows by testIdx"
    )
    return out
