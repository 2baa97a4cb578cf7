"""Re-run a log's unstable tasks through one pinned route, and compare before with after."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.answers import AnswerKey
from analyzer.errors import RerunLensError
from analyzer.model import RunLog, TaskSpec
from analyzer.route_profile import RouteProfile
from analyzer.runner.executors import Executor
from analyzer.runner.run import ProgressCallback, RunOutcome, run_tasks
from analyzer.simulator import Scenario

INHERITED = ("model", "temperature", "top_p", "max_tokens")
"""Settings a re-run takes from its parent unless given: changing them would confound the comparison."""

Selection = str | Sequence[str]
"""`flagged`, `inconsistent`, or explicit task ids."""

VERDICT_TEXT = {
    "route": "became consistent once the route was pinned: the route was the likely cause",
    "model": "still inconsistent on a pinned route: the model is",
    "stable": "consistent before and after",
    "regressed": "consistent before, inconsistent on the pinned route: the model is",
    "unmeasured": "fewer than two answers after the re-run",
}


@dataclass
class RerunReport:
    """A re-run's new log and what changed per task."""

    outcome: RunOutcome
    """How the re-run ended (its log, path, progress)."""
    parent_run_id: str
    """The run that was re-run."""
    task_ids: list[str]
    """Tasks re-run."""
    before_after: pd.DataFrame = field(repr=False)
    """Per task: clusters, consistency, tokens and retries before and after, and a verdict."""
    route_line: str = ""
    """The route the re-run used, one line."""
    warnings: list[str] = field(default_factory=list)
    """Sampling settings that differ from the parent's (they confound before/after)."""

    @property
    def turned_consistent(self) -> list[str]:
        """Tasks inconsistent before and consistent on the pinned route (route to blame)."""
        return self._with("route")

    @property
    def still_inconsistent(self) -> list[str]:
        """Tasks inconsistent on the pinned route (model to blame)."""
        return self._with("model") + self._with("regressed")

    def _with(self, verdict: str) -> list[str]:
        if self.before_after.empty:
            return []
        return [str(t) for t in self.before_after.loc[self.before_after["verdict"] == verdict, "task_id"]]

    def lines(self) -> list[str]:
        """A before/after table and the verdict, for a terminal."""
        head = [self.route_line] if self.route_line else []
        head += [f"Warning: {w}" for w in self.warnings]
        if self.before_after.empty:
            return [*head, "No results to compare."]
        out = head + [
            f"{'task':<16} {'clusters':>9} {'consistent':>12} {'tokens/result':>15} {'retries':>9}  verdict"
        ]
        for row in self.before_after.itertuples(index=False):
            out.append(
                f"{str(row.task_id)[:16]:<16} {_pair(row.clusters_before, row.clusters_after):>9} "
                f"{_pair(_yn(row.consistent_before), _yn(row.consistent_after)):>12} "
                f"{_pair(_num(row.tokens_mean_before), _num(row.tokens_mean_after)):>15} "
                f"{_pair(row.retries_before, row.retries_after):>9}  {row.verdict}"
            )
        route, model = self.turned_consistent, self.still_inconsistent
        out.append("")
        out.append(
            f"Turned consistent once the route was pinned ({len(route)}): {', '.join(route) or 'none'}"
        )
        out.append(f"Still inconsistent on the pinned route ({len(model)}): {', '.join(model) or 'none'}")
        return out


def _pair(a: object, b: object) -> str:
    return f"{_show(a)} -> {_show(b)}"


def _show(v: object) -> str:
    return "-" if v is None or (isinstance(v, float) and pd.isna(v)) or v is pd.NA else str(v)


def _yn(v: object) -> str | None:
    if v is None or v is pd.NA or (isinstance(v, float) and pd.isna(v)):
        return None
    return "yes" if bool(v) else "no"


def _num(v: object) -> str | None:
    if v is None or v is pd.NA or (isinstance(v, float) and pd.isna(v)):
        return None
    return f"{float(v):.0f}"  # type: ignore[arg-type]


def parent_settings(log: RunLog) -> dict[str, Any]:
    """The parent's model, temperature, top_p and max_tokens (those it recorded and a profile accepts).

    Taken from the log's route, else from the routes its results recorded (the most common value).
    """
    found: dict[str, Any] = {}
    if log.route is not None:
        found = {f: getattr(log.route, f) for f in INHERITED if getattr(log.route, f) is not None}
    for f in INHERITED:
        if f in found:
            continue
        values = [getattr(r.route, f) for _rnd, r in log.results() if r.route is not None]
        values = [v for v in values if v is not None]
        if values:
            found[f] = Counter(values).most_common(1)[0][0]
    if "model" not in found and log.summary is not None and log.summary.model:
        found["model"] = log.summary.model
    accepted: dict[str, Any] = {}
    for f, v in found.items():
        try:
            RouteProfile(**{f: v})
        except ValueError:
            continue
        accepted[f] = v
    return accepted


def route_differences(parent: dict[str, Any], profile: RouteProfile) -> list[str]:
    """`temperature 0.7 -> 0.0`, one per inherited setting where the re-run differs from the parent."""
    return [
        f"{f} {parent[f]!r} -> {getattr(profile, f)!r}"
        for f in INHERITED
        if f in parent and parent[f] != getattr(profile, f)
    ]


def describe_route(profile: RouteProfile) -> str:
    """The re-run's route in one line."""
    from analyzer.url_lint import redact_url

    where = redact_url(profile.base_url) if profile.base_url else "the built-in simulator"
    return (
        f"Re-run route: {where}, key {profile.key_env}, model {profile.model}, "
        f"temperature {profile.temperature:g}, top_p {profile.top_p:g}, seed {profile.seed}, "
        f"max_tokens {profile.max_tokens}, max_retries {profile.max_retries}, "
        f"concurrency {profile.concurrency}"
    )


def parent_id(log: RunLog, source: str | Path | None = None) -> str:
    """The id a re-run names as its parent: the run id, else the file name (format-1 logs have none)."""
    if log.run_id:
        return log.run_id
    return Path(source).name if source else "unknown"


def select_tasks(log: RunLog, only: Selection, key: AnswerKey = "exact") -> list[str]:
    """Task ids to re-run: `flagged` (inconsistent, drifted or errored), `inconsistent`, or given ids."""
    if not (isinstance(only, str) and only in ("flagged", "inconsistent")):
        ids = list(dict.fromkeys([only] if isinstance(only, str) else [str(t) for t in only]))
        known = {str(r.task_id) for _rnd, r in log.results()}
        unknown = [t for t in ids if t not in known]
        if unknown:
            raise RerunLensError(f"task {unknown[0]!r} is not in the log")
        return ids
    from analyzer.analysis import analyze

    tasks = analyze(log, key).tasks
    if only == "flagged":
        mask = tasks["flagged"].astype(bool)
    else:
        mask = tasks["consistent"].eq(False).fillna(False).astype(bool)
    return [str(t) for t in tasks.loc[mask, "task_id"]]


def task_specs(log: RunLog, ids: Sequence[str], tasks_file: str | Path | None = None) -> list[TaskSpec]:
    """The definitions of the chosen tasks, from the log (format 2) or a task file."""
    if tasks_file is not None:
        from analyzer.taskfile import load_tasks

        specs = load_tasks(tasks_file)
    elif log.tasks:
        specs = list(log.tasks)
    else:
        raise RerunLensError("the log has no task definitions (format 1); pass the task file with --tasks")
    by_id = {str(t.task_id): t for t in specs}
    missing = [t for t in ids if t not in by_id]
    if missing:
        raise RerunLensError(f"task {missing[0]!r} has no definition in the task file")
    return [by_id[t] for t in ids]


def default_rerun_path(parent_path: str | Path, run_hint: str = "") -> Path:
    """`runs/A.altk_runs.json` -> `runs/A.rerun[-hint].altk_runs.json`."""
    p = Path(parent_path)
    stem = p.name.removesuffix(".json").removesuffix(".altk_runs")
    return p.with_name(f"{stem}.rerun{'-' + run_hint if run_hint else ''}.altk_runs.json")


def compare_before_after(
    parent: RunLog, new: RunLog, ids: Sequence[str], key: AnswerKey = "exact"
) -> pd.DataFrame:
    """Per task: clusters, consistency, mean tokens per result and retries, before and after; a verdict."""
    from analyzer.analysis import analyze

    cols = ["task_id", "n_clusters", "consistent", "tokens_mean", "tokens_total", "retries", "n_ok"]
    before = analyze(parent, key).tasks[cols].assign(task_id=lambda f: f["task_id"].astype(str))
    after = analyze(new, key).tasks[cols].assign(task_id=lambda f: f["task_id"].astype(str))
    frame = pd.DataFrame({"task_id": [str(t) for t in ids]})
    frame = frame.merge(before, on="task_id", how="left").merge(
        after, on="task_id", how="left", suffixes=("_before", "_after")
    )
    frame = frame.rename(
        columns={"n_clusters_before": "clusters_before", "n_clusters_after": "clusters_after"}
    )
    frame["verdict"] = [
        _verdict(b, a) for b, a in zip(frame["consistent_before"], frame["consistent_after"], strict=True)
    ]
    return frame


def _verdict(before: Any, after: Any) -> str:
    if after is None or after is pd.NA or (isinstance(after, float) and pd.isna(after)):
        return "unmeasured"
    before_ok = bool(before) if before is not None and before is not pd.NA and not pd.isna(before) else None
    if bool(after):
        return "route" if before_ok is False else "stable"
    return "regressed" if before_ok else "model"


def rerun(
    log: RunLog,
    only: Selection,
    *,
    profile: RouteProfile,
    out: str | Path,
    rounds: int | None = None,
    source: str | Path | None = None,
    tasks_file: str | Path | None = None,
    key: AnswerKey = "exact",
    label: str | None = None,
    executor: str | Executor | None = None,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    api_key: str | None = None,
    scenario: Scenario | None = None,
    echo: Callable[[str], None] | None = None,
    resume: bool = False,
    resume_command: str | None = None,
    run_id: str | None = None,
) -> RerunReport:
    """Re-run the chosen tasks of `log` through one pinned route and compare before with after.

    Args:
        log: The parent log.
        only: `flagged`, `inconsistent`, or task ids.
        profile: The pinned route (one key: a rotation in the profile is dropped). The caller decides
            its model, temperature, top_p and max_tokens (the CLI defaults them to the parent's,
            `parent_settings`); where they differ from the parent's, a warning is echoed, printed
            with the report and recorded in the log's `rerun_of`.
        out: Where the new log goes.
        rounds: Rounds per task; None uses the profile's.
        source: The parent's path (names a format-1 parent, which has no run id).
        tasks_file: Task definitions for a format-1 parent.
        key: Answer key for before/after clusters.
        label: Label of the new log; default "re-run of <parent>".
        executor, progress, cancel, api_key, scenario, echo, resume, resume_command, run_id: As for
            `run_tasks`.

    Raises:
        RerunLensError: nothing to re-run, unknown task ids, no task definitions.
    """
    ids = select_tasks(log, only, key)
    if not ids:
        raise RerunLensError(f"no {only} tasks in the log: nothing to re-run")
    specs = task_specs(log, ids, tasks_file)
    pid = parent_id(log, source)
    pinned = profile.model_copy(update={"key_rotation": []})
    name = log.label or pid
    parent = parent_settings(log)
    differs = route_differences(parent, pinned)
    warnings = (
        [
            "the re-run's sampling differs from the parent's ("
            + "; ".join(differs)
            + "): before/after mixes that change with pinning the route"
        ]
        if differs
        else []
    )
    say = echo or (lambda _m: None)
    for w in warnings:
        say(f"Warning: {w}")
    outcome = run_tasks(
        specs,
        pinned,
        out,
        rounds=rounds,
        executor=executor,
        resume=resume,
        label=label or f"re-run of {name} on a pinned route",
        parent_run_id=pid,
        progress=progress,
        cancel=cancel,
        api_key=api_key,
        scenario=scenario,
        echo=echo,
        extra={
            "rerun_of": {
                "run_id": pid,
                "label": log.label,
                "only": only if isinstance(only, str) else "ids",
                "parent_route": parent,
                **({"differs_from_parent": differs} if differs else {}),
            }
        },
        resume_command=resume_command,
        run_id=run_id,
    )
    line = describe_route(pinned)
    if outcome.log is None:
        return RerunReport(outcome, pid, ids, pd.DataFrame(), line, warnings)
    frame = compare_before_after(log, outcome.log, ids, key)
    return RerunReport(outcome, pid, ids, frame, line, warnings)
