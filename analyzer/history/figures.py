"""What the history keeps of one log: the run's figures and route, and each task's figures.

Read from the same `analyze` every other view uses, so the history's answer gap of a run is the one
`rerunlens analyze` prints for that log. The route is the value most results recorded (a log whose
route drifted inside the run keeps its majority here; `analyze` still shows the drift).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from analyzer.analysis import Analysis, analyze
from analyzer.log.model import RunLog
from analyzer.log.task_set import task_set
from analyzer.safety.url_secrets import redact_url

SIMULATOR = "the built-in simulator"
PARAMETERS = ("temperature", "top_p", "seed", "max_tokens", "max_retries")
"""The sampling and retry parameters a route change names."""


def _majority(values: pd.Series) -> Any:
    known = values.dropna()
    if known.empty:
        return None
    value = Counter(known.tolist()).most_common(1)[0][0]
    return value.item() if hasattr(value, "item") else value


def _answer_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def run_row(log: RunLog, analysis: Analysis) -> dict[str, Any]:
    """The `logs` columns that describe the run (file columns are the indexer's)."""
    results = analysis.results
    head = analysis.headline
    route = log.route
    base_url = _majority(results["base_url"]) or (route.base_url if route else None)
    if route is not None and route.simulator:  # its loopback port changes from run to run
        base_url = SIMULATOR
    parameters = {p: _majority(results[p]) for p in PARAMETERS if p in results}
    outcome = head.outcome
    return {
        "run_id": log.run_id,
        "label": log.label,
        "task_set_key": task_set(log).key,
        "created_at": _utc(log.created_at or _first_start(results)),
        "key_fingerprint": _majority(results["key_fingerprint"])
        or (route.key_fingerprint if route else None),
        "base_url": redact_url(str(base_url)) if base_url and base_url != SIMULATOR else base_url,
        "model": _majority(results["model"]) or (route.model if route else None),
        "parameters": json.dumps(parameters, sort_keys=True, default=str),
        "served_model": _majority(results["served_model"]),
        "system_fingerprint": _majority(results["system_fingerprint"]),
        "rounds": head.rounds,
        "tasks": head.tasks,
        "answer_gap_pp": head.answer_gap_pp,
        "outcome_gap_pp": outcome.outcome_gap_pp if outcome else None,
        "mean_score": head.score.mean if head.score else None,
        "pass_hat_k": outcome.pass_hat_k[outcome.n] if outcome else None,
        "tokens_per_task": head.tokens.per_task_mean if head.tokens.known_results else None,
        "errors": head.errors,
        **_ends("answer_gap_pp", head.answer_gap_ci),
        **_ends("outcome_gap_pp", outcome.outcome_gap_ci if outcome else None),
        **_ends("mean_score", head.score.mean_ci if head.score else None),
        **_ends("pass_hat_k", outcome.pass_hat_k_ci if outcome else None),
    }


def _ends(figure: str, interval: list[float] | None) -> dict[str, float | None]:
    """The interval `analyze` gives the figure, as its two columns (None where it gives none)."""
    low, high = interval if interval else (None, None)
    return {f"{figure}_low": low, f"{figure}_high": high}


def _utc(moment: datetime | None) -> datetime | None:
    """A naive UTC time (what SQLite and PostgreSQL both give back alike); a naive time is taken as UTC."""
    if moment is None or moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


def _first_start(results: pd.DataFrame) -> Any:
    started = results["started_at"].dropna()
    return started.min().to_pydatetime() if not started.empty else None


def task_rows(analysis: Analysis) -> list[dict[str, Any]]:
    """One `task_figures` row per task: counts, consistency, outcome, score, tokens, answers."""
    results = analysis.results
    answered = results[(results["status"] == "ok") & ~results["no_answer"].astype(bool)]
    answers: dict[str, Counter[str]] = {}
    for task_id, key in zip(answered["task_id"].astype(str), answered["answer_key"].astype(str), strict=True):
        answers.setdefault(task_id, Counter())[_answer_hash(key)] += 1
    rows = []
    for t in analysis.tasks.to_dict("records"):
        task_id = str(t["task_id"])
        measured = int(t["n_ok"]) - int(t["n_no_answer"]) >= 2
        rows.append(
            {
                "task_id": task_id,
                "results": int(t["n_results"]),
                "errors": int(t["n_errors"]),
                "clusters": int(t["n_clusters"]),
                "consistent": bool(t["consistent"]) if measured else None,
                "graded": int(t["graded"] or 0),
                "successes": int(t["successes"] or 0),
                "outcome_mean": _number(t["success_rate"]),
                "score": _number(t["score_mean"]),
                "tokens": int(t["tokens_total"])
                if t["tokens_known"] and t["tokens_total"] is not None
                else None,
                "answers": json.dumps(dict(answers.get(task_id, Counter())), sort_keys=True),
            }
        )
    return rows


def _number(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def log_figures(log: RunLog) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run's row and its tasks' rows, from one analysis under the exact answer key."""
    analysis = analyze(log, "exact")
    return run_row(log, analysis), task_rows(analysis)
