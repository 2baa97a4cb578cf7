"""Inspect AI logs (`.json`, and `.eval` archives assembled by `inspect_archive`), without inspect_ai.

Field map: sample `id` -> task, `epoch` -> round, `output.completion` -> answer (logs before
inspect-ai 0.3.123 have no `output.completion`: the text parts of `output.choices[0].message.content`,
as Inspect's own `completion` property reads them), the headline
scorer's value -> success/score (`C`/`I`/`P`/`N` as Inspect's `value_to_float`: 1, 0, 0.5, 0;
numbers -> score; booleans -> success), `target` -> expected, `model_usage` -> tokens, `error` ->
an errored result, `model` events and `error_retries` -> attempts (`inspect_attempts`), `messages` ->
trajectory,
`output.model` and the stop reason -> served model and finish reason, `eval.model`,
`eval.model_base_url`, `eval.model_generate_config` and `plan.config` -> route.

Inspect's epoch reducers skip errored epochs silently; here an errored epoch is an error, counted
and shown, and left out of the outcome figures like every errored result.
"""

from __future__ import annotations

from typing import Any

from analyzer.importers.common import (
    Provenance,
    Row,
    Source,
    make_route,
    member_list,
    member_obj,
    parse_time,
    plural,
)
from analyzer.importers.inspect_attempts import attempts, client_side_errors, retried_calls, skipped_retries
from analyzer.importers.inspect_scale import rubric_scale
from analyzer.importers.inspect_stopped import stopped, stopped_warning
from analyzer.importers.messages import text_of, trajectory
from analyzer.log.loader import json_type
from analyzer.log.model import Route, TaskSpec

FORMAT = "inspect-ai"
LETTER_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
"""Inspect's `value_to_float` for its letter grades: correct, incorrect, partial, no answer."""
_ROUTE_CONFIG = {
    "temperature": "temperature",
    "top_p": "top_p",
    "seed": "seed",
    "max_tokens": "max_tokens",
    "timeout": "timeout_s",
    "max_retries": "max_retries",
}


def looks_like(data: Any) -> bool:
    """An object with an `eval` spec that names a model and a `version`."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("eval"), dict)
        and "model" in data["eval"]
        and "version" in data
    )


def read(data: Any, source: Source) -> tuple[list[Row], Provenance]:
    """Rows and provenance from a parsed Inspect log (a `.json` log or an assembled `.eval`)."""
    log = source.obj(data, "top level")
    spec = source.obj(log.get("eval"), "eval")
    samples = source.items(log.get("samples") or [], "samples")
    if not samples:
        source.fail("samples", "the log has no samples (was it written with --no-log-samples?)")
    places = log.get("_sample_places") or [f"samples[{i}]" for i in range(len(samples))]
    scorer = _headline_scorer(log)
    rows = [_row(source.obj(s, p), p, scorer, source) for s, p in zip(samples, places, strict=True)]
    tasks, flattened = _tasks(samples, places, source)
    warnings = _warnings(log, rows)
    ungraded = sum(_ungraded(s, r) for s, r in zip(samples, rows, strict=True))
    if ungraded:
        warnings.append(
            f"{plural(ungraded, 'result')} scored with a value that is not a number, a boolean or C/I/P/N "
            "(a list or an object, as multi-part scorers give): left ungraded, so Mean@n, Pass^n and "
            "Pass@n leave them out"
        )
    if flattened:
        warnings.append(
            f"the input of {plural(flattened, 'task')} is a chat with more than the user's messages: the "
            "prompt keeps the user messages' text only (a re-run sends it as one user message)"
        )
    warnings += _call_warnings([s for s in samples if isinstance(s, dict)])
    skipped = sum(skipped_retries(s) for s in samples if isinstance(s, dict))
    if skipped:
        warnings.append(
            f"Inspect re-ran a sample {plural(skipped, 'time')} (retry_on_error) after an error that was "
            "no model API error: these tries are not counted as HTTP attempts or retries"
        )
    scale = rubric_scale(log, samples, scorer)
    if scale is not None:
        warnings.append(
            f"{scale['phrase']}: a rubric with no pass mark in the log, so no pass/fail is derived "
            "(no Mean@n or Pass^k); only the mean grade is shown"
            + (f", as Inspect's {scale['metric']} is" if scale.get("metric") else "")
        )
    version = log.get("version")
    packages = member_obj(spec, "packages")
    prov = Provenance(
        format=FORMAT,
        version=f"log v{version}, inspect_ai {packages.get('inspect_ai', '?')}",
        importer=__name__,
        label=f"Inspect: {spec.get('task', '?')} on {spec.get('model', '?')}",
        created_at=parse_time(spec.get("created")),
        route=_route(log, spec, source),
        tasks=tasks or None,
        warnings=warnings,
        score_scale=scale,
        stopped=stopped(log, samples),
    )
    return rows, prov


def _tasks(samples: list[Any], places: list[str], source: Source) -> tuple[list[TaskSpec], int]:
    """One task per sample id: its `input` as the prompt and `target` as expected (first epoch seen);
    and how many tasks' input was a chat of more than the user's messages, kept as the user text."""
    specs: dict[str, TaskSpec] = {}
    flattened = 0
    for sample, place in zip(samples, places, strict=True):
        task_id = sample["id"]
        prompt, lossy = _prompt(sample.get("input"), f"{place}.input", source)  # every epoch's is checked
        if str(task_id) in specs:
            continue
        flattened += lossy
        if prompt is not None:
            specs[str(task_id)] = TaskSpec(task_id=task_id, prompt=prompt, expected=sample.get("target"))
    return list(specs.values()), flattened


def _prompt(value: Any, place: str, source: Source) -> tuple[str | None, bool]:
    """The prompt of an Inspect `input` (a string, or a list of chat messages) and whether messages
    other than the user's were left out; None when it holds no user text."""
    if value is None or isinstance(value, str):
        return value, False
    if not isinstance(value, list):
        source.fail(place, f"expected a string or a list of chat messages, got {json_type(value)}")
    messages = value
    texts, others = [], 0
    for i, raw in enumerate(messages):
        message = source.obj(raw, f"{place}[{i}]")
        text = text_of(message.get("content"))
        if message.get("role") == "user" and text:
            texts.append(text)
        else:
            others += 1
    return ("\n\n".join(texts) if texts else None), bool(others)


def _headline_scorer(log: dict[str, Any]) -> str | None:
    """The scorer Inspect headlines (`results.headline.scorer`), else the first scorer in results."""
    results = member_obj(log, "results")
    headline = results.get("headline")
    if isinstance(headline, dict) and isinstance(headline.get("scorer"), str):
        return headline["scorer"]
    scores = results.get("scores")
    if isinstance(scores, list) and scores and isinstance(scores[0], dict):
        name = scores[0].get("name")
        return name if isinstance(name, str) else None
    return None


def _row(sample: dict[str, Any], place: str, scorer: str | None, source: Source) -> Row:
    task_id = source.task_id(sample.get("id"), f"{place}.id")
    epoch = sample.get("epoch", 1)
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        source.fail(f"{place}.epoch", "expected an epoch number (1 or more)")
    output = source.optional_obj(sample.get("output"), f"{place}.output")
    messages = source.optional_items(sample.get("messages"), f"{place}.messages")
    fields: dict[str, Any] = {
        "answer": _completion(output, f"{place}.output", source),
        "expected": sample.get("target"),
        "trajectory": trajectory(messages) if messages is not None else None,
        "served_model": source.optional_text(output.get("model"), f"{place}.output.model"),
        "finish_reason": _stop_reason(output),
        "started_at": parse_time(sample.get("started_at")),
        "finished_at": parse_time(sample.get("completed_at")),
        **_grade(sample.get("scores"), scorer, f"{place}.scores", source),
        **_tokens(sample.get("model_usage"), f"{place}.model_usage", source),
    }
    total_time = source.optional_number(sample.get("total_time"), f"{place}.total_time")
    if total_time is not None and total_time >= 0:
        fields["latency_ms"] = total_time * 1000.0
    error = sample.get("error")
    if error is not None:
        error = source.obj(error, f"{place}.error")
        reason = _error(error)
        if reason["message"] in {m.splitlines()[0][:300] for m in client_side_errors(sample)}:
            reason["client_side"] = True  # it failed before any request: not the provider's
        fields.update(status="error", answer=None, success=None, score=None, error=reason)
    source.optional_items(sample.get("error_retries"), f"{place}.error_retries")
    source.optional_items(sample.get("events"), f"{place}.events")
    fields["attempts"] = attempts(sample, error)
    return Row(task_id=task_id, round=epoch, fields=fields, place=place)


def _completion(output: dict[str, Any], place: str, source: Source) -> str | None:
    """The answer: `completion` where the log has it, else the first choice's message text (the
    text parts joined by newlines, as Inspect's `ChatMessage.text`); None when neither is there."""
    if "completion" in output:
        return source.optional_text(output.get("completion"), f"{place}.completion")
    choices = source.optional_items(output.get("choices"), f"{place}.choices")
    if not choices:
        return None
    first = source.obj(choices[0], f"{place}.choices[0]")
    message = source.optional_obj(first.get("message"), f"{place}.choices[0].message")
    content = message.get("content")
    if isinstance(content, list):
        content = [p for p in content if not isinstance(p, dict) or p.get("type", "text") == "text"]
    return text_of(content)


def _grade(scores: Any, scorer: str | None, place: str, source: Source) -> dict[str, Any]:
    """Success and score from the headline scorer's `Score`; nothing when the sample was not scored.

    A score value that is a list or an object (Inspect allows them for multi-part scorers) grades
    nothing; `scores` itself must be an object of `Score` objects (or null).
    """
    scores = source.optional_obj(scores, place)
    if not scores:
        return {}
    name = scorer if scorer in scores else next(iter(scores))
    value = source.obj(scores[name], f"{place}.{name}").get("value")
    if isinstance(value, bool):
        return {"success": value, "score": 1.0 if value else 0.0}
    if isinstance(value, int | float):
        return {"score": source.number(value, f"{place}.{name}.value")}
    if isinstance(value, str) and value in LETTER_VALUES:
        out: dict[str, Any] = {"score": LETTER_VALUES[value]}
        if value in ("C", "I", "N"):
            out["success"] = value == "C"
        return out
    if isinstance(value, str):
        try:
            return {"score": float(value)}
        except ValueError:
            return {}
    return {}


def _call_warnings(samples: list[dict[str, Any]]) -> list[str]:
    """What the import made of retried calls and of calls that never left the client."""
    out = []
    retried = sum(retried_calls(s) for s in samples)
    if retried:
        out.append(
            f"Inspect retried {plural(retried, 'model call')}: each try is an attempt, with its HTTP "
            "status where the event's request_ids record it (else server_error: not recorded why)"
        )
    local = [e for s in samples for e in client_side_errors(s)]
    if local:
        out.append(
            f"{plural(len(local), 'model call')} failed in the client before any request was sent "
            f"({local[0].splitlines()[0][:80]}): client-side failures, not provider errors; no HTTP "
            "attempt is counted for them"
        )
    return out


def _ungraded(sample: Any, row: Row) -> bool:
    """Whether the sample holds a score that `_grade` could not read as a grade."""
    scored = isinstance(sample, dict) and isinstance(sample.get("scores"), dict) and sample["scores"]
    return bool(scored) and row.fields.get("status") != "error" and row.fields.get("score") is None


def _tokens(model_usage: Any, place: str, source: Source) -> dict[str, int]:
    """Tokens summed over the models a sample used; nothing when it recorded none."""
    model_usage = source.optional_obj(model_usage, place)
    if not model_usage:
        return {}
    totals = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    theirs = {
        "prompt_tokens": "input_tokens",
        "completion_tokens": "output_tokens",
        "total_tokens": "total_tokens",
    }
    for model, raw in model_usage.items():
        usage = source.obj(raw, f"{place}.{model}")
        for ours, key in theirs.items():
            totals[ours] += source.count(usage.get(key), f"{place}.{model}.{key}")
    return totals


def _stop_reason(output: dict[str, Any]) -> str | None:
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        reason = choices[0].get("stop_reason")
        return reason if isinstance(reason, str) else None
    return None


def _error(error: dict[str, Any]) -> dict[str, Any]:
    """Inspect writes `RuntimeError('...')`: the class name before the bracket is the type."""
    message = str(error.get("message") or "error").strip()
    kind = message.split("(", 1)[0] if "(" in message and message.split("(", 1)[0].isidentifier() else "error"
    return {"type": kind, "message": message.splitlines()[0][:300]}


def _route(log: dict[str, Any], spec: dict[str, Any], source: Source) -> Route:
    config: dict[str, Any] = {}
    origin: dict[str, str] = {}
    plan = source.optional_obj(log.get("plan"), "plan")
    for where, part in (
        (
            "eval.model_generate_config",
            source.optional_obj(spec.get("model_generate_config"), "eval.model_generate_config"),
        ),
        ("plan.config", source.optional_obj(plan.get("config"), "plan.config")),
    ):
        if part:
            config.update({k: v for k, v in part.items() if v is not None})
            origin.update({k: f"{where}.{k}" for k, v in part.items() if v is not None})
    fields = {ours: config.get(theirs) for theirs, ours in _ROUTE_CONFIG.items()}
    places = {ours: origin.get(theirs, theirs) for theirs, ours in _ROUTE_CONFIG.items()}
    fields.update(model=spec.get("model"), base_url=spec.get("model_base_url"))
    places.update(model="eval.model", base_url="eval.model_base_url")
    return make_route(fields, source, places)


def _warnings(log: dict[str, Any], rows: list[Row]) -> list[str]:
    out = []
    status = log.get("status")
    halted = stopped(log, member_list(log, "samples"))
    if halted is not None:
        out.append(stopped_warning(halted))
    elif status not in (None, "success"):
        out.append(f"the eval's status is {status!r}: the log may hold only part of the samples")
    spec = member_obj(log, "eval")
    config = member_obj(spec, "config")
    reducers = config.get("epochs_reducer")
    several = isinstance(config.get("epochs"), int) and config["epochs"] > 1
    if several and isinstance(reducers, list) and reducers and reducers != ["mean"]:
        out.append(
            f"Inspect reduced epochs with {', '.join(map(str, reducers))}, not mean: its per-sample "
            "figures are not success rates; RerunLens shows every epoch and computes its own"
        )
    errored = sum(r.fields.get("status") == "error" for r in rows)
    epochs = config.get("epochs")
    if errored and isinstance(epochs, int) and epochs > 1:
        out.append(
            f"{plural(errored, 'epoch')} errored: counted as errors here; Inspect's epoch reducers "
            "skip errored epochs silently, so its per-sample scores average over fewer epochs"
        )
    partial = sum(
        r.fields.get("score") == LETTER_VALUES["P"] and r.fields.get("success") is None for r in rows
    )
    if partial:
        out.append(
            f"{plural(partial, 'result')} scored P (partial): score 0.5, "
            "success decided by the score threshold"
        )
    return out
