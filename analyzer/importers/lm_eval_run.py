"""An lm-evaluation-harness results file: the route it records and lm-eval's own figures.

The route: the model (`model_name`, else `model_args`' `model`/`pretrained`), the API base URL and
retries of an API model (`model_args`), and the task's generation settings (its config's
`generation_kwargs`, overridden by `--gen_kwargs`). lm-eval's figures are `results[task]`'s
`metric,filter` values with `metric_stderr,filter` ("N/A" when lm-eval computed none); a figure
whose aggregation is the mean is recomputed from the per-document values of the samples file, as
lm-eval computes it (`sum / len`, lm_eval/api/metrics.py `mean`), and a difference is warned.
"""

from __future__ import annotations

import math
from typing import Any

from analyzer.importers.common import Source, make_route
from analyzer.importers.lm_eval_prompt import requests
from analyzer.log.model import Route

_API_SUFFIXES = ("/chat/completions", "/completions")
"""What lm-eval's API models put after the API root in `base_url`."""


def model_args(results: dict[str, Any]) -> dict[str, Any]:
    """`config.model_args`: an object, or lm-eval's `key=value,key=value` string."""
    config = results.get("config")
    value = config.get("model_args") if isinstance(config, dict) else None
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        pairs = (p.split("=", 1) for p in value.split(",") if "=" in p)
        return {k.strip(): v.strip() for k, v in pairs}
    return {}


def run_route(results: dict[str, Any], task_config: dict[str, Any], source: Source) -> Route | None:
    """The route one task of the run was sent with."""
    args = model_args(results)
    config = _obj(results.get("config"))
    settings = {**_obj(task_config.get("generation_kwargs")), **_obj(config.get("gen_kwargs"))}
    model = results.get("model_name") or args.get("model") or args.get("pretrained")
    base_url = args.get("base_url")
    if isinstance(base_url, str):
        for suffix in _API_SUFFIXES:
            base_url = base_url.removesuffix(suffix)
    fields = {
        "model": model if isinstance(model, str) else None,
        "base_url": base_url if isinstance(base_url, str) else None,
        "max_retries": _whole(args.get("max_retries")),
        **_sampling(settings),
    }
    places = {"model": "model_name", "base_url": "config.model_args.base_url"}
    return make_route(fields, source, places) if any(v is not None for v in fields.values()) else None


def samples_route(records: list[dict[str, Any]]) -> Route | None:
    """The generation settings a samples file records with its first request (no model)."""
    first = next(iter(records), {})
    reqs = requests(first)
    settings = reqs[0][1] if reqs and len(reqs[0]) > 1 and isinstance(reqs[0][1], dict) else {}
    fields = {k: v for k, v in _sampling(settings).items() if v is not None}
    return Route.model_validate(fields) if fields else None


def _sampling(settings: dict[str, Any]) -> dict[str, Any]:
    def number(key: str) -> float | None:
        value = settings.get(key)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    return {
        "temperature": number("temperature"),
        "top_p": number("top_p"),
        "max_tokens": _whole(settings.get("max_gen_toks", settings.get("max_tokens"))),
        "seed": _whole(settings.get("seed")),
    }


def _whole(value: Any) -> int | None:
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def figures(
    results: dict[str, Any] | None, tasks: list[tuple[str | None, list[dict[str, Any]]]]
) -> list[dict[str, Any]]:
    """lm-eval's figures per task, metric and filter, beside the mean of the per-document values.

    Each: `task`, `metric`, `filter`, `value` (the results file's; None without it), `stderr`,
    `docs` (documents with a value), `mean_of_docs` (None when the values are not numbers, e.g. a
    corpus-level metric's inputs) and `aggregation` (`mean`, or `other` when lm-eval aggregates
    otherwise and the mean is no check).
    """
    out = []
    for name, records in tasks:
        per_doc = _per_doc_values(records)
        reported = _reported(results, name)
        config = _obj(_obj((results or {}).get("configs")).get(name or ""))
        keys = list(reported) or list(per_doc)
        for metric, filter_key in keys:
            values = per_doc.get((metric, filter_key), [])
            numeric = all(isinstance(v, int | float) and math.isfinite(v) for v in values) and values
            value, stderr = reported.get((metric, filter_key), (None, None))
            out.append(
                {
                    "task": name,
                    "metric": metric,
                    "filter": filter_key,
                    "value": value,
                    "stderr": stderr,
                    "docs": len(values),
                    "mean_of_docs": sum(values) / len(values) if numeric else None,
                    "aggregation": _aggregation(config, metric),
                }
            )
    return out


def _per_doc_values(records: list[dict[str, Any]]) -> dict[tuple[str, str], list[Any]]:
    values: dict[tuple[str, str], list[Any]] = {}
    for record in records:
        for metric in record.get("metrics") or []:
            if isinstance(metric, str) and metric in record:
                value = record[metric]
                value = float(value) if isinstance(value, bool) else value
                values.setdefault((metric, str(record.get("filter"))), []).append(value)
    return values


def _reported(results: dict[str, Any] | None, task: str | None) -> dict[tuple[str, str], tuple[Any, Any]]:
    """`(metric, filter) -> (value, stderr)` of the results file's entry for the task."""
    entry = _obj(_obj((results or {}).get("results")).get(task or ""))
    out = {}
    for key, value in entry.items():
        metric, sep, filter_key = key.partition(",")
        if not sep or metric.endswith("_stderr"):
            continue
        stderr = entry.get(f"{metric}_stderr,{filter_key}")
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        out[(metric, filter_key)] = (number, stderr if isinstance(stderr, int | float) else None)
    return out


def _aggregation(config: dict[str, Any], metric: str) -> str:
    for entry in config.get("metric_list") or []:
        if isinstance(entry, dict) and entry.get("metric") == metric:
            return "mean" if entry.get("aggregation", "mean") == "mean" else "other"
    return "mean"


def figure_warnings(found: list[dict[str, Any]]) -> list[str]:
    """One line with lm-eval's figures, and one per figure the samples do not reproduce."""
    shown = []
    out = []
    for f in found:
        name = f"{f['task'] + ' ' if f['task'] else ''}{f['metric']} ({f['filter']})"
        if f["value"] is None:
            if f["mean_of_docs"] is not None:
                shown.append(f"{name} {f['mean_of_docs']:.4g} (the per-document mean; no results file)")
            continue
        stderr = f" ± {f['stderr']:.4g}" if f["stderr"] is not None else ""
        shown.append(f"{name} {f['value']:.4g}{stderr}")
        if f["aggregation"] != "mean" or f["mean_of_docs"] is None:
            out.append(
                f"{name}: lm-eval aggregates it over the whole corpus, not as a mean of documents: shown "
                "as lm-eval's figure, not recomputed"
            )
        elif abs(f["mean_of_docs"] - f["value"]) > 1e-9:
            out.append(
                f"{name}: the samples give {f['mean_of_docs']:.4g} over {f['docs']} documents, the results "
                f"file {f['value']:.4g}: the samples file may be from another run or cut short"
            )
    head = [f"lm-evaluation-harness's own figures: {'; '.join(shown)}"] if shown else []
    return head + out
