"""A re-run's before and after: per task, clusters, consistency, tokens and retries, and a verdict.

The parent log is "before", the re-run on a pinned route is "after". The verdict compares the two
per task; it is typed (`Verdict`) so pages and the CLI can only show the verdicts defined here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pandas as pd

from analyzer.analysis import analyze
from analyzer.answer_keys import AnswerKey
from analyzer.model import RunLog

Verdict = Literal["route", "model", "stable", "regressed", "unmeasured"]
"""What a task's before/after says about the cause of its inconsistency."""

VERDICT_TEXT: dict[Verdict, str] = {
    "route": "became consistent once the route was pinned: the route was the likely cause",
    "model": "still inconsistent on a pinned route: the model is",
    "stable": "consistent before and after",
    "regressed": "consistent before, inconsistent on the pinned route: the model is",
    "unmeasured": "fewer than two answers after the re-run",
}
"""One sentence per verdict, for pages and reports."""

_COLUMNS = ["task_id", "n_clusters", "consistent", "tokens_mean", "tokens_total", "retries", "n_ok"]


def compare_before_after(
    parent: RunLog, new: RunLog, ids: Sequence[str], key: AnswerKey = "exact"
) -> pd.DataFrame:
    """Per task: clusters, consistency, mean tokens per result and retries, before and after; a verdict."""
    before = analyze(parent, key).tasks[_COLUMNS].assign(task_id=lambda f: f["task_id"].astype(str))
    after = analyze(new, key).tasks[_COLUMNS].assign(task_id=lambda f: f["task_id"].astype(str))
    frame = pd.DataFrame({"task_id": [str(t) for t in ids]})
    frame = frame.merge(before, on="task_id", how="left").merge(
        after, on="task_id", how="left", suffixes=("_before", "_after")
    )
    frame = frame.rename(
        columns={"n_clusters_before": "clusters_before", "n_clusters_after": "clusters_after"}
    )
    frame["verdict"] = [
        verdict(b, a) for b, a in zip(frame["consistent_before"], frame["consistent_after"], strict=True)
    ]
    return frame


def verdict(before: Any, after: Any) -> Verdict:
    """The verdict of one task from its consistency before and after (either may be unknown)."""
    if _missing(after):
        return "unmeasured"
    before_ok = None if _missing(before) else bool(before)
    if bool(after):
        return "route" if before_ok is False else "stable"
    return "regressed" if before_ok else "model"


def tasks_with(frame: pd.DataFrame, *verdicts: Verdict) -> list[str]:
    """The task ids whose verdict is one of `verdicts`, in the frame's order."""
    if frame.empty:
        return []
    return [str(t) for t in frame.loc[frame["verdict"].isin(verdicts), "task_id"]]


def before_after_lines(frame: pd.DataFrame) -> list[str]:
    """The before/after as a terminal table, then which tasks turned consistent and which did not."""
    if frame.empty:
        return ["No results to compare."]
    out = [f"{'task':<16} {'clusters':>9} {'consistent':>12} {'tokens/result':>15} {'retries':>9}  verdict"]
    for row in frame.itertuples(index=False):
        out.append(
            f"{str(row.task_id)[:16]:<16} {_pair(row.clusters_before, row.clusters_after):>9} "
            f"{_pair(_yn(row.consistent_before), _yn(row.consistent_after)):>12} "
            f"{_pair(_num(row.tokens_mean_before), _num(row.tokens_mean_after)):>15} "
            f"{_pair(row.retries_before, row.retries_after):>9}  {row.verdict}"
        )
    route, model = tasks_with(frame, "route"), tasks_with(frame, "model", "regressed")
    out.append("")
    out.append(f"Turned consistent once the route was pinned ({len(route)}): {', '.join(route) or 'none'}")
    out.append(f"Still inconsistent on the pinned route ({len(model)}): {', '.join(model) or 'none'}")
    return out


def _missing(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and pd.isna(v))


def _pair(a: object, b: object) -> str:
    return f"{_show(a)} -> {_show(b)}"


def _show(v: object) -> str:
    return "-" if _missing(v) else str(v)


def _yn(v: object) -> str | None:
    return None if _missing(v) else ("yes" if bool(v) else "no")


def _num(v: object) -> str | None:
    return None if _missing(v) else f"{float(v):.0f}"  # type: ignore[arg-type]
