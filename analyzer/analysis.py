"""The one entry point: `analyze(log)` turns a `RunLog` into frames and headline figures.

The CLI, the dashboard and the runner all call this; every figure they show comes from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
from pydantic import BaseModel

import analyzer.numbers as numbers
from analyzer.importers.experiments import experiments_of, groups_share_route
from analyzer.log.frames import attempts_frame, results_frame
from analyzer.log.model import RunLog
from analyzer.log.structural import structural_warnings
from analyzer.log.table import gc_paused, round_count
from analyzer.metrics.answers import DEFAULT_FUZZY_THRESHOLD, AnswerKey, answer_keys, no_answer
from analyzer.metrics.attribution import Attribution, attribution_summary, task_attribution
from analyzer.metrics.consistency import (
    answer_gap_pp,
    assign_clusters,
    cluster_table,
    consistency_rate,
    task_consistency,
)
from analyzer.metrics.cost import CostFigures, cost_figures
from analyzer.metrics.flags import FlaggedTask, flag_tasks, flagged_list
from analyzer.metrics.intervals import Interval, answer_intervals, outcome_intervals
from analyzer.metrics.judge import JudgeOptions, task_prompts
from analyzer.metrics.lead import Lead, agent_lead
from analyzer.metrics.outcome import OutcomeFigures, outcome_figures, passed, task_outcomes
from analyzer.metrics.prices import PriceTable
from analyzer.metrics.retries import RetryFigures, result_retries, retry_figures, task_retries
from analyzer.metrics.route_drift import (
    RouteFigures,
    route_figures,
    route_table,
    route_usage,
    task_drift,
    verdict_sentence,
)
from analyzer.metrics.route_factors import side_counts
from analyzer.metrics.scores import ScoreFigures, score_figures, task_scores
from analyzer.metrics.semantic import SemanticOptions
from analyzer.metrics.step_uncertainty import step_report
from analyzer.metrics.summary_check import SummaryMismatch, check_summary
from analyzer.metrics.tokens import TokenFigures, round_tokens, task_tokens, token_figures, token_outliers
from analyzer.metrics.trajectories import Trajectories, measure_trajectories

__all__ = ["Analysis", "AnswerKey", "Headline", "analyze"]


class Headline(BaseModel):
    """The figures a person reads first; `Analysis.report()` is this as JSON."""

    tasks: int
    """Distinct tasks (ids compared as strings)."""
    rounds: int
    """Rounds in the log."""
    results: int
    """Results in the log."""
    errors: int
    """Results that errored (left out of answer clusters)."""
    no_answer: int = 0
    """Results that did not error but gave no answer (missing, null, empty or white space only):
    left out of the answer clusters, never counted as agreeing."""
    no_answer_tasks: int = 0
    """Tasks with at least one such result."""
    cost: CostFigures | None = None
    """Cost: reported by the source or computed from tokens and a price table (`metrics.cost`)."""
    never_ran: list[str] | None = None
    """Tasks the source planned but never ran (an eval that stopped part-way); None where the
    source does not say what it planned."""
    answer_key: AnswerKey
    """How answers were compared."""
    semantic_threshold: float | None = None
    """The `semantic` key's similarity threshold (None under another key)."""
    judge_model: str | None = None
    """The `judge` key's model (None under another key): its clusters depend on it."""
    tasks_measured: int
    """Tasks with at least two answers: the ones consistency is measured on."""
    tasks_single: int
    """Tasks with fewer than two answers, reported apart."""
    single_task_ids: list[str]
    """Those tasks' ids."""
    consistent_tasks: int
    """Measured tasks whose answers all fell into one cluster."""
    answer_consistency_rate: float | None
    """Consistent tasks / measured tasks (0..1); None when no task was measured."""
    answer_gap_pp: float | None
    """(1 - rate) x 100, in points."""
    answer_gap_ci: Interval | None = None
    """95 % Wilson interval over tasks of the answer gap, [low, high] in points."""
    answer_consistency_rate_ci: Interval | None = None
    """95 % Wilson interval of the consistency rate, [low, high] (0..1)."""
    outcome: OutcomeFigures | None
    """Outcome figures with their intervals where results are graded; None otherwise."""
    score: ScoreFigures | None = None
    """Mean reward or score per task, over tasks, with its interval; None when no result has a score."""
    tokens: TokenFigures
    """Token use."""
    retries: RetryFigures
    """Attempts and retries."""
    route: RouteFigures
    """Route verdict and drift."""
    summary_mismatches: list[SummaryMismatch]
    """Stored summary figures the log does not bear out."""
    warnings: list[str]
    """Structural and measurement warnings, one line each."""
    flagged: list[FlaggedTask]
    """Tasks worth re-running, with reasons."""
    attribution: list[Attribution] = []
    """Per inconsistent task: `model`, `route` or `unclear`, with p-value and evidence from the log."""
    lead: Lead | None = None
    """For a log with tool calls: the answer gap and the tool-call gap, and which of them varies."""


@dataclass(frozen=True, eq=False)
class Analysis:
    """Everything measured about one log. Frames are for reading: copy before changing them.

    Compared and hashed by identity (`eq=False`): comparing DataFrames field by field is ambiguous.
    """

    log: RunLog
    """The log analysed."""
    key: AnswerKey
    """Answer key used for clusters."""
    fuzzy_threshold: float
    """rapidfuzz ratio used by the `fuzzy` key."""
    score_threshold: float
    """Score at or above which a result without `success` counts as a success."""
    results: pd.DataFrame
    """One row per result (file order) with answer_key, cluster, passed, retries."""
    attempts: pd.DataFrame
    """One row per HTTP attempt."""
    tasks: pd.DataFrame
    """One row per task in first-appearance order."""
    clusters: pd.DataFrame
    """One row per (task, answer cluster)."""
    routes: pd.DataFrame
    """One row per distinct route tuple with result and attempt counts."""
    token_outliers: pd.DataFrame
    """Results whose tokens are outliers against their task's own runs."""
    per_round: pd.DataFrame
    """One row per round: results, errors, tokens."""
    headline: Headline
    """The headline figures."""
    trajectories: Trajectories | None = None
    """Tool-call sequences across rounds: first divergence, similarity, step entropy."""
    semantic: SemanticOptions | None = None
    """How the `semantic` key ran (threshold, embedder), when it was the key."""

    def report(self) -> dict[str, Any]:
        """The headline as a JSON-ready dict (what `rerunlens analyze --json` prints).

        `pass_hat_k` and `pass_at_k` are maps from k (as a string key, as JSON requires) to 0..1.
        """
        out = self.headline.model_dump(mode="json")
        out["run_id"] = self.log.run_id
        out["label"] = self.log.label
        out["attribution_counts"] = attribution_summary(self.headline.attribution)
        if self.trajectories is not None:
            out["trajectories"] = self.trajectories.report()
        steps = step_report(self.log)
        if steps is not None:
            out["step_uncertainty"] = steps
        return out


@gc_paused()  # the analysis makes no cycles; collections would walk every object the log holds
def analyze(
    log: RunLog,
    key: AnswerKey = "exact",
    *,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    score_threshold: float = 0.5,
    semantic: SemanticOptions | None = None,
    prices: PriceTable | None = None,
) -> Analysis:
    """Measure one log: answer consistency, outcomes, tokens, retries, route drift, summary check.

    Args:
        log: The parsed run log.
        key: Answer key for clusters: `exact`, `normalized` or `fuzzy`.
        fuzzy_threshold: rapidfuzz ratio (0..100) at or above which `fuzzy` joins two answers.
        score_threshold: Score at or above which a result without `success` counts as a success.
        semantic: Threshold and embedder of the `semantic` key (default: the bundled model).
        prices: The user's price table, to compute a cost where the log records only tokens.
    """
    semantic = (semantic or SemanticOptions()) if key in ("semantic", "judge") else None
    base = results_frame(log)
    attempts = attempts_frame(log)
    prompts = task_prompts(log) if key == "judge" else None
    keyed = answer_keys(base, key, fuzzy_threshold=fuzzy_threshold, semantic=semantic, prompts=prompts)
    results = assign_clusters(
        base.assign(
            answer_key=keyed,
            no_answer=no_answer(base),
            passed=passed(base, score_threshold if score_scale(log) is None else None),
        )
    )
    results = results.assign(retries=result_retries(results))
    usage = route_usage(results, attempts)
    tasks = flag_tasks(
        _side_by_side(
            task_consistency(results),
            task_outcomes(results),
            task_scores(results),
            task_tokens(results),
            task_retries(results),
            task_drift(results, usage),
        )
    )
    routes = route_table(usage)
    outliers = token_outliers(results)
    exact_gap = _exact_gap(base) if key != "exact" and _stored_gap(log) else None
    frames = _Frames(results, attempts, tasks, usage, routes, outliers)
    headline = _headline(log, key, frames, exact_gap)
    if keyed.attrs.get("notes"):  # what the key could not do as asked (a task too large, a judge failing)
        headline = headline.model_copy(update={"warnings": [*headline.warnings, *keyed.attrs["notes"]]})
    headline = headline.model_copy(update={"cost": cost_figures(log, prices)})
    if semantic is not None and key == "semantic":  # the judge key's clusters depend on no threshold
        headline = headline.model_copy(update={"semantic_threshold": semantic.threshold})
    if isinstance(semantic, JudgeOptions) and key == "judge":  # its name is "model@endpoint hash"
        headline = headline.model_copy(update={"judge_model": semantic.model.rsplit("@", 1)[0]})
    headline = _with_uncertainty(headline, log, results, attempts, tasks)
    trajectories = measure_trajectories(log)
    headline = headline.model_copy(update={"lead": agent_lead(headline.answer_gap_pp, key, trajectories)})
    return Analysis(
        log=log,
        key=key,
        fuzzy_threshold=fuzzy_threshold,
        score_threshold=score_threshold,
        results=results,
        attempts=attempts,
        tasks=tasks,
        clusters=cluster_table(results),
        routes=routes,
        token_outliers=outliers,
        per_round=round_tokens(results),
        headline=headline,
        trajectories=trajectories,
        semantic=semantic,
    )


@dataclass(frozen=True)
class _Frames:
    """The frames the headline is gathered from."""

    results: pd.DataFrame
    attempts: pd.DataFrame
    tasks: pd.DataFrame
    usage: pd.DataFrame
    routes: pd.DataFrame
    outliers: pd.DataFrame


def _headline(log: RunLog, key: AnswerKey, frames: _Frames, exact_gap: float | None) -> Headline:
    """Gather the headline figures; `exact_gap` is None when `key` is already `exact` or the log
    stores no gap to check it against."""
    results, attempts, tasks = frames.results, frames.attempts, frames.tasks
    outliers = frames.outliers
    outcome = outcome_figures(results)
    rate = consistency_rate(tasks)
    gap = answer_gap_pp(tasks)
    tokens = token_figures(results, outliers)
    measured = tasks["consistent"].notna()
    return Headline(
        tasks=len(tasks),
        rounds=round_count(log),
        results=len(results),
        errors=int((results["status"] == "error").sum()),
        no_answer=int(tasks["n_no_answer"].sum()),
        no_answer_tasks=int((tasks["n_no_answer"] > 0).sum()),
        never_ran=_never_ran(log),
        answer_key=key,
        tasks_measured=int(measured.sum()),
        tasks_single=int((~measured).sum()),
        single_task_ids=[str(t) for t in tasks.loc[~measured, "task_id"]],
        consistent_tasks=int(tasks["consistent"].fillna(False).astype(bool).sum()),
        answer_consistency_rate=rate,
        answer_gap_pp=gap,
        outcome=outcome,
        score=_with_scale(score_figures(results, tasks, _score_name(log)), log),
        tokens=tokens,
        retries=retry_figures(results, attempts),
        route=route_figures(results, frames.usage, frames.routes, tasks),
        summary_mismatches=check_summary(
            log.summary,
            gap_exact_pp=gap if key == "exact" else exact_gap,
            total_tokens=tokens.total,
            unknown_token_results=tokens.unknown_results,
            tasks=len(tasks),
            rounds=round_count(log),
            results=len(results),
        ),
        warnings=[*_import_warnings(log), *structural_warnings(log), *_metric_warnings(tasks, outcome, key)],
        flagged=flagged_list(tasks),
    )


def _with_uncertainty(
    headline: Headline, log: RunLog, results: pd.DataFrame, attempts: pd.DataFrame, tasks: pd.DataFrame
) -> Headline:
    """The headline with its intervals over tasks and the per-task attribution."""
    gap_ci, rate_ci = answer_intervals(tasks)
    attribution = task_attribution(results, attempts, tasks)
    causes = side_counts(attribution)
    verdict = verdict_sentence(headline.route, headline.tasks_measured, causes)
    groups = experiments_of(log)
    if groups:  # the route differs between the file's experiments by design: that is no drift
        verdict = (
            f"Experiment groups, not route drift: this file compares {len(groups)} groups "
            f"({', '.join(str(g.get('label')) for g in groups)}), "
            f"{'all on one route' if groups_share_route(log) else 'each on its own route'}; see them side "
            "by side in Compare (`rerunlens compare FILE`)"
        )
    return headline.model_copy(
        update={
            "answer_gap_ci": gap_ci,
            "answer_consistency_rate_ci": rate_ci,
            "outcome": outcome_intervals(results, headline.outcome),
            "attribution": attribution,
            "route": headline.route.model_copy(update={"verdict": verdict}),
        }
    )


def _side_by_side(first: pd.DataFrame, *others: pd.DataFrame) -> pd.DataFrame:
    """Join per-task frames that are all in first-appearance task order (cheaper than merges)."""
    parts = [first.reset_index(drop=True)]
    for other in others:
        if "task_id" in other:
            if not (other["task_id"].to_numpy() == first["task_id"].to_numpy()).all():
                raise AssertionError("per-task frames out of task order")
            other = other.drop(columns="task_id")
        parts.append(other.reset_index(drop=True))
    return pd.concat(parts, axis=1)


REWARD_FORMATS = ("tau-bench", "tau2-bench")
"""Tools whose score is a reward (and whose first headline is the average reward)."""


def _score_name(log: RunLog) -> str:
    if score_scale(log) is not None:
        return "grade"
    return "reward" if (log.imported_from or {}).get("format") in REWARD_FORMATS else "score"


def _never_ran(log: RunLog) -> list[str] | None:
    stopped = (log.imported_from or {}).get("stopped")
    never = stopped.get("never_ran") if isinstance(stopped, dict) else None
    return [str(t) for t in never] if isinstance(never, list) else None


def score_scale(log: RunLog) -> dict[str, Any] | None:
    """The log's score scale where its scores say nothing of pass or fail (a 0-10 rubric), else None."""
    scale = (log.imported_from or {}).get("score_scale")
    return scale if isinstance(scale, dict) and scale.get("pass_fail") is False else None


def _with_scale(score: ScoreFigures | None, log: RunLog) -> ScoreFigures | None:
    scale = score_scale(log)
    if score is None or scale is None:
        return score
    return score.model_copy(update={"no_pass_fail": str(scale.get("phrase") or "a rubric")})


def _stored_gap(log: RunLog) -> bool:
    """Whether the log's summary states a gap: only then is the `exact` gap needed (to check it)."""
    return log.summary is not None and log.summary.consistency_gap_pp is not None


def _exact_gap(base: pd.DataFrame) -> float | None:
    """The answer gap under the `exact` key, which the stored summary is compared with."""
    exact = assign_clusters(base.assign(answer_key=answer_keys(base, "exact")))
    return answer_gap_pp(task_consistency(exact))


def _import_warnings(log: RunLog) -> list[str]:
    """What the importer of another tool's log said (where the figures differ from the tool's own,
    what the source does not record): kept in the log's provenance, so every report shows it."""
    said = (log.imported_from or {}).get("warnings")
    return [w for w in said if isinstance(w, str)] if isinstance(said, list) else []


def _shown_ids(ids: list[Any]) -> str:
    """The first five ids, and how many more."""
    return ", ".join(str(t) for t in ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def _no_answer_warning(tasks: pd.DataFrame) -> list[str]:
    """One line for results that gave no answer: they are left out, never agreeing."""
    blank = tasks.loc[tasks["n_no_answer"] > 0]
    if blank.empty:
        return []
    n = int(blank["n_no_answer"].sum())
    results = "result" if n == 1 else "results"
    word = "task" if len(blank) == 1 else "tasks"
    return [
        f"{n} {results} gave no answer (missing, null, empty or white space only) in {len(blank)} "
        f"{word} ({_shown_ids(blank['task_id'].tolist())}): left out of the answer clusters, never "
        "counted as agreeing"
    ]


def _metric_warnings(tasks: pd.DataFrame, outcome: OutcomeFigures | None, key: AnswerKey) -> list[str]:
    out: list[str] = _no_answer_warning(tasks)
    total, failed = int(tasks["n_results"].sum()), int(tasks["n_errors"].sum())
    if total and failed == total:
        out.append(
            f"every result errored ({failed} of {total}): there is no answer or grade to measure; "
            "the errors are in Tasks and in Retries"
        )
    single = tasks.loc[tasks["consistent"].isna(), "task_id"].tolist()
    if single:
        shown = _shown_ids(single)
        word = "task has" if len(single) == 1 else "tasks have"
        what = "rounds that called a tool" if key == "actions" else "answers"
        out.append(
            f"{len(single)} {word} fewer than 2 {what} and {'is' if len(single) == 1 else 'are'} "
            f"reported apart from the consistency rate ({shown})"
        )
    lost = tasks.loc[tasks["n_errors"].gt(0), ["n_results", "n_errors"]]
    if len(lost):
        fewest = int((lost["n_results"] - lost["n_errors"]).min())
        out.append(
            f"{numbers.counted(int(lost['n_errors'].sum()), 'errored result')} took rounds from "
            f"{numbers.counted(len(lost), 'task')} "
            f"(as few as {numbers.counted(int(fewest), 'answer')} left): "
            "their consistency is measured on fewer answers, and "
            "fewer answers agree more easily, so they look more consistent than a full run would"
        )
    if outcome is not None and outcome.uneven_n:
        out.append(
            f"tasks have different numbers of graded runs ({outcome.n_min} to {outcome.n}); "
            "Pass^k uses each task's own n where k exceeds it"
        )
    return out
