"""A re-run's before and after: per task, clusters, consistency, tokens and retries, and a verdict.

The parent log is "before", the re-run on a pinned route is "after". The verdict compares the two
per task (`analyzer.verdicts.rerun_verdict`: the parent's own evidence first, then agreement beyond chance);
it is typed (`Verdict`) so pages and the CLI can only show the verdicts defined here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.analysis import Analysis, analyze
from analyzer.importers import load_any
from analyzer.log.model import RunLog
from analyzer.metrics.answer_keys import AnswerKey
from analyzer.metrics.attribution import Round, answered_rounds, portable_routes
from analyzer.metrics.semantic import SemanticOptions
from analyzer.metrics.stats import ROUNDS_CAP, benjamini_hochberg
from analyzer.verdicts.planner import RerunPlan, plan_rerun
from analyzer.verdicts.rerun_verdict import TaskVerdict, Verdict, rerun_evidence, settle

__all__ = [
    "RULE",
    "VERDICT_TEXT",
    "Verdict",
    "before_after_table",
    "chance_headline",
    "compare_before_after",
    "compare_files",
    "decisive_rounds",
    "rerun_plan_of",
    "rounds_to_decide",
    "tasks_with",
    "verdict_phrase",
]

VERDICT_TEXT: dict[Verdict, str] = {
    "route": "consistent on the pinned route, and the answers follow a route factor beyond chance "
    "(false discovery rate 2 %): the route was the likely cause",
    "both": "the answers follow a route factor beyond chance and still vary on the pinned route: both are",
    "model": "still inconsistent on the pinned route, and no route factor explains it: the model is",
    "inconclusive": "consistent on the pinned route, but not beyond chance: more rounds would decide",
    "stable": "consistent before and after",
    "regressed": "consistent before, inconsistent on the pinned route: the model is",
    "unmeasured": "fewer than two answers after the re-run",
}
"""One sentence per verdict, for pages and reports."""

_COLUMNS = ["task_id", "n_clusters", "consistent", "tokens_mean", "tokens_total", "retries", "n_ok"]


RULE = (
    "Each task is tested over the parent's rounds and the re-run's together: does the answer follow a "
    "route factor (key, base URL, parameters, backend, retry state) or the re-run itself, by an exact "
    "permutation test, Bonferroni within the task, divided by the chance the parent was picked for "
    "disagreeing, and Benjamini-Hochberg across the re-run's tasks at a 2 % false discovery rate. "
    "route: the test passes and the pinned route agrees; both: it passes and the pinned route still "
    "disagrees; model: the pinned route disagrees and no factor passes; inconclusive: the pinned route "
    "agrees, not yet beyond chance."
)
"""The verdict rule in one paragraph, for captions and reports."""


def verdict_phrase(verdict: str, factor: object = None) -> str:
    """One phrase per verdict row that says what changed and why, naming the factor where there is one."""
    named = factor if isinstance(factor, str) and factor else "a route factor"
    phrases = {
        "route": f"agrees on the pinned route; answers follow the {named}: the route",
        "both": f"answers shift with the {named} and still vary on the pinned route: both",
        "model": "still inconsistent on the pinned route, no route factor explains it: the model",
        "inconclusive": "agrees on the pinned route, not yet beyond chance: more rounds would decide",
        "regressed": "consistent before, inconsistent on the pinned route: the model",
        "stable": "consistent before and after",
        "unmeasured": "fewer than two answers after the re-run",
    }
    return phrases.get(verdict, verdict)


def compare_before_after(
    parent: RunLog,
    new: RunLog,
    ids: Sequence[str],
    key: AnswerKey = "exact",
    semantic: SemanticOptions | None = None,
    parent_analysis: Analysis | None = None,
    beside: RunLog | None = None,
) -> pd.DataFrame:
    """Per task: clusters, consistency, mean tokens per result and retries, before and after; a verdict
    with `chance_p` (the chance that the re-run's agreeing rounds agree if nothing changed),
    `p_value`, `rounds_needed` and `reason` (`analyzer.verdicts.rerun_verdict`). `beside` is the log
    of the rounds run on the parent's own route beside the pinned ones (`rerun --with-parent-route`):
    they count in each task's test, not in its before/after columns."""
    parent_analysis = parent_analysis or analyze(parent, key, semantic=semantic)
    new_analysis = analyze(new, key, semantic=semantic)
    before = parent_analysis.tasks[_COLUMNS].assign(task_id=lambda f: f["task_id"].astype(str))
    after = new_analysis.tasks[_COLUMNS].assign(task_id=lambda f: f["task_id"].astype(str))
    frame = pd.DataFrame({"task_id": [str(t) for t in ids]})
    frame = frame.merge(before, on="task_id", how="left").merge(
        after, on="task_id", how="left", suffixes=("_before", "_after")
    )
    frame = frame.rename(
        columns={"n_clusters_before": "clusters_before", "n_clusters_after": "clusters_after"}
    )
    more = analyze(beside, key, semantic=semantic) if beside is not None else None
    verdicts = task_verdicts(parent_analysis, new_analysis, frame["task_id"].tolist(), more)
    frame["verdict"] = [v.verdict for v in verdicts]
    frame["chance_p"] = pd.array([v.chance_p for v in verdicts], dtype="Float64")
    frame["p_value"] = pd.array([v.p_value for v in verdicts], dtype="Float64")
    frame["rounds_needed"] = pd.array([v.rounds_needed for v in verdicts], dtype="Int64")
    frame["reason"] = [v.reason for v in verdicts]
    frame["factor"] = pd.array([v.factor for v in verdicts], dtype="string")
    frame["q_value"] = pd.array([v.q_value for v in verdicts], dtype="Float64")
    return frame


def task_verdicts(
    parent: Analysis, new: Analysis, ids: Sequence[str], beside: Analysis | None = None
) -> list[TaskVerdict]:
    """The verdict of every task id, from the analyses' answered rounds (with their factors), the
    tested tasks' p-values held to a false discovery rate of 2 % (`stats.RERUN_FDR_Q`, Benjamini-Hochberg);
    `beside`: the rounds on the parent's own route run beside the pinned ones, if any."""
    wanted = {str(t) for t in ids}
    before, after = _rounds(parent, wanted), _rounds(new, wanted)
    more = _rounds(beside, wanted) if beside is not None else {}
    evidence = [
        rerun_evidence(before.get(str(t), []), after.get(str(t), []), more.get(str(t), [])) for t in ids
    ]
    tested = [i for i, e in enumerate(evidence) if e.test is not None]
    q = dict(zip(tested, benjamini_hochberg([evidence[i].test.p_value for i in tested]), strict=True))  # type: ignore[union-attr]
    unsure = [str(ids[i]) for i in tested if evidence[i].agreed]
    plans = {p.task_id: p for p in _plan(before, [str(ids[i]) for i in tested]).tasks} if unsure else {}
    return [settle(e, q.get(i), plans.get(str(ids[i]))) for i, e in enumerate(evidence)]


def _rounds(analysis: Analysis, wanted: set[str]) -> dict[str, list[Round]]:
    return portable_routes(*answered_rounds(analysis.results, analysis.attempts, wanted))


def _plan(before: dict[str, list[Round]], ids: Sequence[str], cap: int = ROUNDS_CAP) -> RerunPlan:
    return plan_rerun({t: before.get(t, []) for t in ids}, ids, cap)


def rerun_plan_of(parent: Analysis, ids: Sequence[str], cap: int = ROUNDS_CAP) -> RerunPlan:
    """The plan of a re-run of `ids` (`planner.plan_rerun` over the parent's answered rounds): per
    task the fewest agreeing pinned rounds that decide under the re-run's false discovery rate, with
    the other tasks of the re-run counted, and the rounds the re-run runs."""
    wanted = {str(t) for t in ids}
    before = portable_routes(*answered_rounds(parent.results, parent.attempts, wanted))
    return _plan(before, [str(t) for t in ids], cap)


def rounds_to_decide(parent: Analysis, ids: Sequence[str], cap: int = ROUNDS_CAP) -> dict[str, int | None]:
    """Per task: the fewest agreeing pinned rounds that make its verdict `route` in a re-run of all of
    `ids` (`rerun_plan_of`); None when the task was consistent or no number up to `cap` decides it."""
    planned = rerun_plan_of(parent, ids, cap).by_task()
    return {str(t): planned.get(str(t)) for t in ids}


def decisive_rounds(
    log: RunLog, ids: Sequence[str], key: AnswerKey = "exact", analysis: Analysis | None = None
) -> int:
    """The most rounds any task of a default re-run of `ids` runs: `rerun_plan_of(...).rounds` over the
    parent's analysis (`analysis` when given). Each task's own rounds, as the CLI and the Re-run page
    run them, are `default_rerun.default_rerun(...).rounds()`."""
    return rerun_plan_of(analysis or analyze(log, key), ids).rounds


def chance_headline(frame: pd.DataFrame) -> str:
    """How many inconsistent tasks turned consistent, and how many would have by chance alone.

    The chance count is the sum of `chance_p` over every task that was inconsistent before (whatever
    the re-run showed): the number expected to turn consistent if pinning changed nothing.
    """
    if frame.empty:
        return "No results to compare."
    was = frame["consistent_before"].eq(False).fillna(False).astype(bool)
    turned = was & frame["consistent_after"].eq(True).fillna(False).astype(bool)
    expected = float(frame.loc[was, "chance_p"].fillna(0.0).sum())
    counts = frame["verdict"].value_counts()
    return (
        f"{int(turned.sum())} of {int(was.sum())} inconsistent tasks turned consistent on the pinned route; "
        f"by chance alone about {expected:.1f} would have. Verdicts: {int(counts.get('route', 0))} route "
        f"and {int(counts.get('both', 0))} both (a route factor beyond chance, false discovery rate 2 %), "
        f"{int(counts.get('model', 0))} model, {int(counts.get('inconclusive', 0))} inconclusive."
    )


def compare_files(
    parent: str | Path,
    new: str | Path,
    ids: Sequence[str],
    key: AnswerKey = "exact",
    semantic: SemanticOptions | None = None,
    beside: str | Path | None = None,
) -> pd.DataFrame:
    """`compare_before_after` of two logs on disk (a finished re-run job's parent and new log, and the
    log of its rounds on the parent's own route when it ran them)."""
    more = load_any(beside).log if beside is not None else None
    return compare_before_after(load_any(parent).log, load_any(new).log, ids, key, semantic, beside=more)


def tasks_with(frame: pd.DataFrame, *verdicts: Verdict) -> list[str]:
    """The task ids whose verdict is one of `verdicts`, in the frame's order."""
    if frame.empty:
        return []
    return [str(t) for t in frame.loc[frame["verdict"].isin(verdicts), "task_id"]]


def before_after_table(frame: pd.DataFrame) -> list[str]:
    """The before/after as a terminal table, one row per task with its verdict (the sentences beside
    it: `rerun_sentences.verdict_sentences`)."""
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
