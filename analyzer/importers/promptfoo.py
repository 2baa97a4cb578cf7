"""promptfoo results (`promptfoo eval -o results.json`, optionally with `--repeat N`).

promptfoo writes each repeat as its own row with no repeat index (only a new `testIdx`), so rows
are regrouped into tasks by (prompt, provider, test case) and numbered into rounds in `testIdx`
order within each task. Field map: `response.output` -> answer, `success` -> success, `score` ->
score, `failureReason` -> errors (2 = error; 1 = a failed assertion, which is a graded failure
even though promptfoo also fills `error` with the assertion's reason), `response.tokenUsage` (else
the row's `tokenUsage`) -> tokens, `cost`, `latencyMs` -> cost and latency, `provider.id` -> the
route's model. promptfoo records no key, base URL or sampling parameters per row; an error's
"after N attempts" (or "N retries") becomes N attempts. Prompts and providers are named with
promptfoo's own labels, in the order of its columns (`results.prompts`); an eval of more than one
column is a comparison, kept as experiment groups (`importers.experiments`), one per column.
"""

from __future__ import annotations

import json
import re
from typing import Any

from analyzer.importers.common import Provenance, Row, Source, member_obj, parse_time, plural
from analyzer.importers.inspect_attempts import outcome
from analyzer.log.loader import json_type
from analyzer.log.model import TaskSpec

FORMAT = "promptfoo"
FAILURE_ERROR = 2
"""promptfoo's `ResultFailureReason.ERROR`; 0 is none, 1 is a failed assertion."""
FAILURE_ASSERT = 1
"""promptfoo's failureReason for a row an assertion failed: graded, with its grading reason."""


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
    columns = _columns(inner, groups)
    names = _task_names(list(groups), labels, columns)
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
        experiments=_experiments(groups, names, labels, columns),
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
    if fields["cost_usd"] == 0 and "total_tokens" not in fields:
        fields["cost_usd"] = None  # promptfoo's 0 for a provider that reports no usage: not recorded
    grading = row.get("gradingResult")
    reason = grading.get("reason") if isinstance(grading, dict) else None
    if failure == FAILURE_ASSERT and isinstance(reason, str) and reason.strip():
        fields["grade_reason"] = reason.strip().splitlines()[0][:300]  # why promptfoo failed the row
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
            attempts=_attempts(message),
        )
    test_idx = source.optional_int(row.get("testIdx"), f"{place}.testIdx")
    return {
        "group": (_prompt_key(row, prompt), str(provider_id or ""), _canonical(test_key)),
        "test_idx": test_idx if test_idx is not None else 0,
        "index": int(place.rsplit("[", 1)[1].rstrip("]")),
        "provider_label": str(provider_label or ""),
        "prompt_label": str(prompt.get("label") or prompt.get("raw") or ""),
        "place": place,
        "fields": fields,
        "prompt": str(prompt.get("raw") or prompt.get("label") or ""),
        "expected": test.get("assert"),
        "description": test.get("description") if isinstance(test.get("description"), str) else None,
        "vars": test.get("vars"),
    }


ATTEMPTS = re.compile(r"after (\d+) (attempt|retr(?:y|ies)|tries|try)", re.IGNORECASE)
"""promptfoo's retry wrappers end the error text with `after 4 attempts` or `after 3 retries`."""


def _attempts(message: str) -> list[dict[str, Any]] | None:
    """The failed attempts an error's text counts (`after 4 attempts`: four; `after 3 retries`: the
    first try and three more); None when it says nothing about attempts."""
    found = ATTEMPTS.search(message)
    if found is None:
        return None
    count = int(found.group(1)) + (0 if found.group(2).lower().startswith("attempt") else 1)
    failed = outcome({"message": message})
    return [{"attempt": i, "retry": i, "outcome": failed} for i in range(max(count, 1))]


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


def _columns(
    inner: dict[str, Any], groups: dict[tuple[str, str, str], list[dict[str, Any]]]
) -> list[tuple[str, str, str]]:
    """promptfoo's columns in its own order: (prompt key, provider, prompt label) from
    `results.prompts` (one per prompt and provider), then any the rows use that it does not list."""
    out: list[tuple[str, str, str]] = []
    prompts = inner.get("prompts")
    listed: list[Any] = prompts if isinstance(prompts, list) else []
    by_label = {items[0]["provider_label"]: key[1] for key, items in groups.items()}
    for entry in listed:
        if not isinstance(entry, dict):
            continue
        prompt = str(entry.get("id") or entry.get("label") or entry.get("raw") or "")
        provider = by_label.get(str(entry.get("provider") or ""), str(entry.get("provider") or ""))
        out.append((prompt, provider, str(entry.get("label") or entry.get("raw") or "")))
    seen = {(c[0], c[1]) for c in out}
    for key, items in groups.items():
        if (key[0], key[1]) not in seen:
            seen.add((key[0], key[1]))
            out.append((key[0], key[1], items[0]["prompt_label"]))
    return out


def _task_names(
    keys: list[tuple[str, str, str]],
    labels: dict[tuple[str, str, str], str],
    columns: list[tuple[str, str, str]],
) -> dict[tuple[str, str, str], str]:
    """Readable task ids: the test's description (else its vars), plus promptfoo's prompt label and
    provider label when the file has more than one, made unique with a `#n` suffix if they clash."""
    prompt_labels = _prompt_labels(columns)
    providers = {k[1] for k in keys}
    names: dict[tuple[str, str, str], str] = {}
    seen: dict[str, int] = {}
    for key in keys:
        parts = [_test_name(key)]
        if len(prompt_labels) > 1:
            parts.append(prompt_labels.get(key[0], key[0]))
        if len(providers) > 1:
            parts.append(labels[key])
        name = " | ".join(parts)
        seen[name] = seen.get(name, 0) + 1
        names[key] = name if seen[name] == 1 else f"{name} #{seen[name]}"
    return names


PROMPT_LABEL_AT_MOST = 40
"""promptfoo's default label is the whole template: longer labels are cut to this."""


def _prompt_labels(columns: list[tuple[str, str, str]]) -> dict[str, str]:
    """Each prompt's label (cut short), in promptfoo's order; labels that clash get `(2)`, `(3)`."""
    out: dict[str, str] = {}
    for prompt, _, label in columns:
        if prompt in out:
            continue
        short = " ".join(label.split()) or prompt
        short = short if len(short) <= PROMPT_LABEL_AT_MOST else short[: PROMPT_LABEL_AT_MOST - 1] + "…"
        taken = set(out.values())
        n, shown = 1, short
        while shown in taken:
            n += 1
            shown = f"{short} ({n})"
        out[prompt] = shown
    return out


def _test_name(key: tuple[str, str, str]) -> str:
    test = json.loads(key[2])
    description = test.get("description")
    return description if isinstance(description, str) and description else _vars_text(test.get("vars"))


def _experiments(
    groups: dict[tuple[str, str, str], list[dict[str, Any]]],
    names: dict[tuple[str, str, str], str],
    labels: dict[tuple[str, str, str], str],
    columns: list[tuple[str, str, str]],
) -> list[dict[str, Any]] | None:
    """One experiment group per promptfoo column (prompt x provider) when there is more than one:
    its label and its tasks, each named by its test alone so the groups line up in Compare."""
    used = [c for c in columns if any((k[0], k[1]) == (c[0], c[1]) for k in groups)]
    if len(used) < 2:
        return None
    prompt_labels = _prompt_labels(columns)
    several_prompts = len({c[0] for c in used}) > 1
    several_providers = len({c[1] for c in used}) > 1
    out = []
    for prompt, provider, _ in used:
        keys = [k for k in groups if (k[0], k[1]) == (prompt, provider)]
        parts = [labels[keys[0]]] if several_providers else []
        parts += [prompt_labels[prompt]] if several_prompts else []
        tests: dict[str, int] = {}
        tasks = {}
        for k in keys:
            test = _test_name(k)
            tests[test] = tests.get(test, 0) + 1
            tasks[names[k]] = test if tests[test] == 1 else f"{test} #{tests[test]}"
        out.append({"label": " · ".join(parts), "tasks": tasks})
    return out


def _vars_text(variables: Any) -> str:
    if isinstance(variables, dict) and variables:
        return ", ".join(f"{k}={v}" for k, v in variables.items())
    return "test"


def _version(inner: dict[str, Any], meta: dict[str, Any]) -> str:
    tool = meta.get("promptfooVersion")
    return f"results v{inner.get('version', '?')}" + (f", promptfoo {tool}" if tool else "")


def _warnings(rows: list[Row], groups: dict[tuple[str, str, str], list[dict[str, Any]]]) -> list[str]:
    out = []
    errored = [r for r in rows if r.fields.get("status") == "error"]
    if errored and len(errored) == len(rows):
        first = errored[0].fields["error"]["message"]
        out.append(  # that every result errored is said by the analysis, for every format
            f"the first error promptfoo recorded (failureReason 2 on every row: {len(rows)} of {len(rows)}): "
            f"{first}"
        )
    elif errored:
        out.append(f"{plural(len(errored), 'row')} failed with an error (failureReason 2): counted as errors")
    retried = sum(len(r.fields.get("attempts") or []) > 1 for r in errored)
    if retried:
        out.append(
            f"promptfoo retried {plural(retried, 'row')} before giving up (the error says after how many "
            "attempts): each attempt is counted, with the outcome the error text names"
        )
    sizes = {len(v) for v in groups.values()}
    if sizes == {1}:
        out.append("each test ran once (no --repeat): every task has a single answer")
        return out
    out.append(
        "promptfoo writes repeats without a repeat index: rounds are the order of each "
        "(prompt, provider, test) group's rows by testIdx"
    )
    return out
