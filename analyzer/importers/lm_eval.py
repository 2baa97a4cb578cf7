"""lm-evaluation-harness outputs: `samples_<task>_<time>.jsonl` (one line per document and filter,
written with `--log_samples`) beside `results_<time>.json` (config, versions, metrics with stderr).

Each document is a task; its `repeats` (one request answered `repeats` times, `resps[0]`) are the
rounds. lm-eval grades a document once, on its filtered answer: where the filter keeps the first
repeat (`take_first`, the default filter `none`) or there is one repeat, that grade is round 1's;
a filter over all repeats (a majority vote) grades no single round and is shown as lm-eval's own
figure only. The results file gives the route (model, base URL, generation settings) and lm-eval's
figures, each checked against the mean of the per-document values (`lm_eval_run`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from analyzer.importers import json_lines
from analyzer.importers.common import Provenance, Row, Source, plural
from analyzer.importers.lm_eval_prompt import answers, prompt_text
from analyzer.importers.lm_eval_run import figure_warnings, figures, run_route, samples_route
from analyzer.log.model import Route, TaskSpec

FORMAT = "lm-eval"
DEFAULT_FILTER = "none"
"""lm-eval's filter when a task names none: `take_first` (lm_eval/api/task.py)."""


@dataclass(frozen=True)
class TaskSamples:
    """One task's samples file, read."""

    name: str | None
    """The lm-eval task; None for a samples file opened without its results file."""
    file: str
    """The samples file's name, for `source_ref` (empty when it is the file imported)."""
    records: list[dict[str, Any]]
    """Its lines: one per document and filter."""


def is_sample(record: Any) -> bool:
    """A line of a samples file: a document's id, its responses and its filtered responses."""
    return isinstance(record, dict) and {"doc_id", "resps", "filtered_resps"} <= record.keys()


def is_results(parsed: Any) -> bool:
    """A `results_<time>.json`: per-task `results` and `configs`, and `versions`."""
    return (
        isinstance(parsed, dict)
        and isinstance(parsed.get("results"), dict)
        and isinstance(parsed.get("configs"), dict)
        and "versions" in parsed
    )


def looks_like(parsed: Any) -> bool:
    """A samples file (JSON Lines of documents) or a results file."""
    records = json_lines.records(parsed)
    if records is not None:
        return bool(records) and is_sample(records[0])
    return is_results(parsed)


def read(parsed: Any, source: Source) -> tuple[list[Row], Provenance]:
    """A samples file on its own (an upload); a results file alone has no answers to read."""
    records = json_lines.records(parsed)
    if records is None:
        source.fail(
            "samples",
            "an lm-evaluation-harness results file holds no answers: they are in "
            "samples_<task>_<time>.jsonl beside it (written with --log_samples); open the folder, "
            "or this file from disk",
        )
    return read_run(None, [TaskSamples(None, "", records)], source)


def read_run(
    results: dict[str, Any] | None, tasks: list[TaskSamples], source: Source
) -> tuple[list[Row], Provenance]:
    """Rows and provenance of one lm-eval run: its samples files, and its results file when known."""
    several = len(tasks) > 1
    rows: list[Row] = []
    specs: list[TaskSpec] = []
    warnings: list[str] = []
    for task in tasks:
        config = _config(results, task.name)
        route = run_route(results, config, source) if results is not None else samples_route(task.records)
        read_task = _task_rows(task, config, route, several, source)
        rows += read_task.rows
        specs += read_task.specs
        warnings += read_task.warnings
    found = figures(results, [(t.name, t.records) for t in tasks])
    names = sorted({t.name for t in tasks if t.name})
    model = _model(results)
    prov = Provenance(
        format=FORMAT,
        version=_version(results),
        importer=__name__,
        label=" ".join(x for x in ("lm-eval", model, ", ".join(names)) if x),
        created_at=_created(results),
        tasks=specs,
        warnings=[*warnings, *figure_warnings(found), *_unrecorded(results)],
        figures=found,
    )
    return rows, prov


@dataclass
class _Read:
    rows: list[Row]
    specs: list[TaskSpec]
    warnings: list[str]


def _task_rows(
    task: TaskSamples, config: dict[str, Any], route: Route | None, several: bool, source: Source
) -> _Read:
    by_doc: dict[Any, list[tuple[int, dict[str, Any]]]] = {}
    for n, record in enumerate(task.records, 1):
        if not is_sample(record):
            source.fail(_place(task, n), "not a document of a samples file (no doc_id, resps)")
        by_doc.setdefault(record["doc_id"], []).append((n, record))
    out = _Read([], [], [])
    grader = _grading_filter(task, config)
    repeats = 0
    for doc_id, lines in by_doc.items():
        n, first = lines[0]
        place = _place(task, n)
        task_id = (
            f"{task.name}/{doc_id}" if several and task.name else source.task_id(doc_id, f"{place}.doc_id")
        )
        said = answers(first, place, source)
        repeats = max(repeats, len(said))
        grade = _grade(dict((r.get("filter"), r) for _, r in lines).get(grader), grader)
        for i, answer in enumerate(said):
            fields: dict[str, Any] = {"answer": answer, "expected": first.get("target")}
            if route is not None:
                fields["route"] = route.model_dump(exclude_none=True)
            if i == 0:
                fields.update(grade)
            out.rows.append(Row(task_id, i + 1, fields, place))
        out.specs.append(TaskSpec(task_id=task_id, prompt=prompt_text(first), expected=first.get("target")))
    out.warnings += _task_warnings(task, grader, repeats, len(by_doc))
    return out


def _place(task: TaskSamples, line: int) -> str:
    """Where a line is: `samples_<task>_<time>.jsonl line 3`, or `line 3` in the file imported."""
    return f"{task.file} line {line}" if task.file else f"line {line}"


def _grading_filter(task: TaskSamples, config: dict[str, Any]) -> str | None:
    """The filter whose per-document metric grades round 1: one that keeps the first repeat, or any
    filter when there is one repeat; None when every filter is over all repeats."""
    names = list(dict.fromkeys(r.get("filter") for r in task.records if is_sample(r)))
    one_repeat = all(len(_first_request(r)) <= 1 for r in task.records[:50] if is_sample(r))
    for name in names:
        if one_repeat or name == DEFAULT_FILTER or _takes_first(config, name):
            return name if isinstance(name, str) else None
    return None


def _first_request(record: dict[str, Any]) -> list[Any]:
    """The first request's responses (one per repeat)."""
    resps = record.get("resps")
    first = resps[0] if isinstance(resps, list) and resps else []
    return first if isinstance(first, list) else [first]


def _takes_first(config: dict[str, Any], name: Any) -> bool:
    for entry in config.get("filter_list") or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            steps = [s.get("function") for s in entry.get("filter") or [] if isinstance(s, dict)]
            return steps == ["take_first"]
    return False


def _grade(record: dict[str, Any] | None, grader: str | None) -> dict[str, Any]:
    """Round 1's `success`/`score` from the grading filter's first numeric metric."""
    if record is None or grader is None:
        return {}
    for metric in record.get("metrics") or []:
        value = record.get(metric) if isinstance(metric, str) else None
        if isinstance(value, bool):
            return {"success": value, "score": float(value)}
        if isinstance(value, int | float) and value == value:
            return {"score": float(value), **({"success": value == 1} if value in (0, 1) else {})}
    return {}


def _task_warnings(task: TaskSamples, grader: str | None, repeats: int, docs: int) -> list[str]:
    name = task.name or "the samples file"
    out = []
    filters = list(dict.fromkeys(str(r.get("filter")) for r in task.records if is_sample(r)))
    if repeats > 1 and grader is not None:
        out.append(
            f"{name}: {plural(docs, 'document')} answered {repeats} times (lm-eval's repeats are the "
            f"rounds); lm-eval grades each document once, on filter {grader!r} (the first repeat): rounds "
            f"2-{repeats} are ungraded"
        )
    elif repeats > 1:
        out.append(
            f"{name}: {plural(docs, 'document')} answered {repeats} times; every filter "
            f"({', '.join(filters)}) grades all repeats together, so no round is graded: see lm-eval's own "
            "figures"
        )
    others = [f for f in filters if f != grader]
    if grader is not None and others:
        out.append(f"{name}: filters {', '.join(others)} grade no single round: see lm-eval's own figures")
    return out


def _config(results: dict[str, Any] | None, task: str | None) -> dict[str, Any]:
    configs = (results or {}).get("configs")
    config = configs.get(task) if isinstance(configs, dict) and task else None
    return config if isinstance(config, dict) else {}


def _model(results: dict[str, Any] | None) -> str | None:
    name = (results or {}).get("model_name")
    return name if isinstance(name, str) and name else None


def _version(results: dict[str, Any] | None) -> str | None:
    if results is None:
        return None
    parts = [
        f"lm_eval {results['lm_eval_version']}" if isinstance(results.get("lm_eval_version"), str) else ""
    ]
    parts.append(f"git {results['git_hash']}" if isinstance(results.get("git_hash"), str) else "")
    return ", ".join(p for p in parts if p) or None


def _created(results: dict[str, Any] | None) -> datetime | None:
    stamp = (results or {}).get("date")
    if isinstance(stamp, int | float) and not isinstance(stamp, bool) and 0 < stamp < 1e11:
        return datetime.fromtimestamp(stamp, UTC)
    return None


def _unrecorded(results: dict[str, Any] | None) -> list[str]:
    out = ["lm-evaluation-harness records no times, retries or errors per document"]
    if results is None:
        out.append(
            "a samples file alone: the model, base URL and lm-eval's own figures are in "
            "results_<time>.json beside it (open that file or the folder from disk)"
        )
    return out
