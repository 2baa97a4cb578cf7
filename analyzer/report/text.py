"""Plain-text renderings of an analysis and a comparison, for the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

import analyzer.numbers as numbers
from analyzer.log.field_labels import field_label
from analyzer.metrics.answer_keys import key_described
from analyzer.metrics.cost import CostFigures, cost_phrase, usd
from analyzer.metrics.route_drift import drift_sentence
from analyzer.metrics.route_factors import side_counts
from analyzer.metrics.stats import FDR_Q
from analyzer.metrics.step_uncertainty import step_report
from analyzer.report.said_once import said_once
from analyzer.safety.scrub import one_line
from analyzer.safety.terminal_text import visible, visible_lines

if TYPE_CHECKING:
    from analyzer.analysis import Analysis, Headline
    from analyzer.metrics.attribution import Attribution
    from analyzer.metrics.outcome import OutcomeFigures
    from analyzer.metrics.retries import RetryFigures
    from analyzer.metrics.scores import ScoreFigures
    from analyzer.verdicts.compare import Comparison

_LIST_AT_MOST = 20


def pct(value: float | None) -> str:
    """A 0..1 share as a percentage (`66.7 %`), or an em dash when unknown."""
    return numbers.pct(value)


def pp(value: float | None) -> str:
    """Percentage points, or an em dash when unknown."""
    return numbers.pp(value)


def num(value: float | None, digits: int = 0) -> str:
    """A number with thousands separators, or `unknown`."""
    if value is None or pd.isna(value):
        return "unknown"
    return f"{value:,.{digits}f}"


def render_report(analysis: Analysis, source: str) -> str:
    """The report `rerunlens analyze` prints."""
    h = analysis.headline
    log = analysis.log
    lines = [*_identity_lines(analysis, source), ""]
    lines += answer_lines(h)
    lines.append("")
    lines += outcome_section(h)
    lines += ["", "Tokens", _token_line(h)]
    if h.cost is not None:
        lines += ["", "Cost", f"  {cost_phrase(h.cost)}", *_cost_rounds(h.cost)]
    lines += ["", "Retries", *retry_lines(h.retries)]
    lines += ["", "Route", f"  {h.route.verdict}", f"  {drift_sentence(analysis.tasks['drifted'])}"]
    if h.route.drifted_fields:
        lines.append(f"  drifted: {', '.join(field_label(f) for f in h.route.drifted_fields)}")
    lines += attribution_lines(h.attribution)
    if analysis.trajectories is not None:
        lines += trajectory_lines(analysis.trajectories.report())
    lines += step_lines(step_report(log))
    if h.summary_mismatches:
        lines += ["", "Stored summary disagrees", *[f"  - {m.message}" for m in h.summary_mismatches]]
    if h.warnings:
        lines += ["", "Warnings", *[f"  - {w}" for w in said_once(h.warnings)]]
    lines += ["", *_flagged_lines(h)]
    return visible_lines(lines)  # log text (ids, labels, warnings) never drives the terminal


def _identity_lines(analysis: Analysis, source: str) -> list[str]:
    """The report's head: the source, an agent log's lead, what the log is and how big."""
    h = analysis.headline
    log = analysis.log
    lines = [f"RerunLens report: {source}"]
    if h.lead is not None:  # an agent log leads with what varies: its answers or its tool calls
        lines.append(f"  {h.lead.sentence}")
    ident = [f"format {log.version}"]
    if log.label:
        ident.append(f"label {log.label!r}")
    if log.run_id:
        ident.append(f"run {log.run_id}")
    if log.parent_run_id:
        ident.append(f"re-run of {log.parent_run_id}")
    lines.append("  " + " · ".join(ident))
    lines.append(
        f"  {_n(h.tasks, 'task')} · {_n(h.rounds, 'round')} · {_n(h.results, 'result')}"
        f" · {numbers.count(h.errors)} errored"
    )
    return lines


def _token_line(h: Headline) -> str:
    t = h.tokens
    return (
        f"  total {num(t.total)} · per task (mean) {num(t.per_task_mean)}"
        f" · unknown on {_n(t.unknown_results, 'result')}"
        f" · {num(t.retry_tokens)} on results that needed a retry"
        f" · {_n(t.outliers, 'outlier')}"
    )


def _cost_rounds(cost: CostFigures) -> list[str]:
    """Cost per round and per route, where any is known."""
    if cost.total_usd is None:
        return []
    rounds = "  ".join(f"{n}: {usd(v)}" for n, v in cost.per_round.items())
    routes = "  ".join(f"{name}: {usd(v)}" for name, v in cost.per_route.items())
    return [f"  per round  {rounds}", f"  per route  {routes}"]


def _flagged_lines(h: Headline) -> list[str]:
    lines = [f"Flagged for a re-run: {_n(len(h.flagged), 'task')}, inconsistent ones first"]
    # Route drift alone flags every task of an unpinned run; the inconsistent ones are the news.
    ordered = sorted(h.flagged, key=lambda f: "inconsistent" not in f.reasons)
    for flag in ordered[:_LIST_AT_MOST]:
        lines.append(f"  {flag.task_id}: {', '.join(flag.reasons)}")
    if len(h.flagged) > _LIST_AT_MOST:
        lines.append(f"  ... and {len(h.flagged) - _LIST_AT_MOST} more (use --json for all)")
    return lines


def answer_lines(h: Headline) -> list[str]:
    """The Answers section: consistency and the gap, no answers, tasks reported apart."""
    lines = [f"Answers (key: {key_described(h.answer_key, h.semantic_threshold, h.judge_model)})"]
    lines.append(
        f"  consistent tasks   {h.consistent_tasks}/{h.tasks_measured} ({pct(h.answer_consistency_rate)})"
        f" · answer gap {pp(h.answer_gap_pp)}{interval(h.answer_gap_ci, 'pp')}"
    )
    if h.no_answer:
        lines.append(
            f"  no answer          {_n(h.no_answer, 'result')} in {_n(h.no_answer_tasks, 'task')} "
            "(left out of the clusters, never agreeing)"
        )
    if h.never_ran:
        lines.append(
            f"  never ran          {_n(len(h.never_ran), 'task')} (the run stopped part-way): "
            f"{', '.join(h.never_ran[:_LIST_AT_MOST])}{' ...' if len(h.never_ran) > _LIST_AT_MOST else ''}"
        )
    if h.tasks_single:
        lines.append(
            f"  fewer than 2 {'rounds that called a tool' if h.answer_key == 'actions' else 'answers'} "
            f"(reported apart): {', '.join(h.single_task_ids[:_LIST_AT_MOST])}"
        )
    return lines


def outcome_section(h: Headline) -> list[str]:
    """The outcome figures and the mean reward or score; says so when every result errored."""
    if h.outcome is None and h.results and h.errors == h.results:
        lines = [f"Outcome: every result errored ({h.errors} of {h.results}); nothing was graded"]
    elif h.outcome is None and h.score is not None and h.score.no_pass_fail:
        lines = [f"Outcome: no pass/fail in {h.score.no_pass_fail} (no pass mark); the mean grade only"]
    else:
        lines = outcome_lines(h.outcome)
    return lines + score_lines(h.score)


def retry_lines(r: RetryFigures) -> list[str]:
    """Attempts, retried results and outcomes; Retry-After when the provider sent it."""
    if not r.attempts_total:
        return [
            "  no HTTP attempts recorded (a format-1 log, another tool's log, "
            "or an agent that did not log them)"
        ]
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(r.by_outcome.items(), key=lambda kv: -kv[1]))
    out = [
        f"  {_n(r.attempts_total, 'attempt')} · {_n(r.results_with_retry, 'result')} retried"
        f" · {_n(r.extra_attempts, 'extra attempt')} · {outcomes}"
    ]
    if r.retry_after_seen:
        out.append(
            f"  Retry-After seen {_n(r.retry_after_seen, 'time')}, longest {num(r.retry_after_max_s, 1)} s"
        )
    return out


def outcome_lines(o: OutcomeFigures | None) -> list[str]:
    """Mean@n, Pass^n and the outcome gap with their intervals, then the Pass^k and Pass@k curves."""
    if o is None:
        return ["Outcome: no success or score recorded"]
    return [
        f"Outcome ({o.tasks} graded tasks, n = {o.n}{', uneven' if o.uneven_n else ''})",
        f"  mean@{o.n} {pct(o.mean_at_n)}{interval(o.mean_at_n_ci, '%')}"
        f" · pass^{o.n} {pct(o.pass_hat_k.get(o.n))}{interval(o.pass_hat_k_ci, '%')}"
        f" · outcome gap {numbers.recorded(pp(o.outcome_gap_pp))}{interval(o.outcome_gap_ci, 'pp')}",
        "  pass^k  " + "  ".join(f"k={k}: {pct(v)}" for k, v in sorted(o.pass_hat_k.items())),
        "  pass@k  " + "  ".join(f"k={k}: {pct(v)}" for k, v in sorted(o.pass_at_k.items())),
    ]


def score_lines(s: ScoreFigures | None) -> list[str]:
    """The mean reward or score over tasks with its interval, and how many scores were partial."""
    if s is None:
        return []
    scale = f", scale {s.scale[0]:g} to {s.scale[1]:g} as seen" if s.scale_seen else ""
    return [
        f"  mean {s.name} {s.mean:.3f} ({numbers.ci(s.mean_ci, digits=3)})"
        f" over {_n(s.tasks, 'task')}, {_n(s.results, s.name)}, {s.fractional} partial{scale}"
    ]


def interval(ci: list[float] | None, unit: str) -> str:
    """` (95 % CI 26.7–60.0)` after its value (a 0..1 share's ends in %), or nothing without one."""
    shown = numbers.ci(ci, share=unit == "%")
    return f" ({shown})" if shown else ""


def attribution_lines(items: list[Attribution]) -> list[str]:
    """The cause of each inconsistent task from the log alone: counts (`verdict_counts`), the rule,
    then each task with its factor, p and q."""
    if not items:
        return []
    counts = side_counts(items)
    shown = ", ".join(f"{n} {c}" for c, n in counts.items())
    out = [
        "",
        f"Route or model, from the log alone ({_n(len(items), 'inconsistent task')}): {shown}",
        f"  route/both only where a route factor passes a false discovery rate of {100 * FDR_Q:.0f} % "
        "(exact permutation test per factor, Bonferroni within the task, Benjamini-Hochberg across tasks)",
    ]
    for a in items[:_LIST_AT_MOST]:
        figures = [
            f"{a.factor}" if a.factor else "",
            numbers.p_value(a.p_value) if a.p_value is not None else "",
        ]
        figures.append(numbers.p_value(a.q_value, "q") if a.q_value is not None else "")
        told = ", ".join(f for f in figures if f)
        out.append(f"  {a.task_id}: {a.cause}{f' ({told})' if told else ''}: {a.evidence}")
    if len(items) > _LIST_AT_MOST:
        out.append(f"  ... and {len(items) - _LIST_AT_MOST} more (use --json for all)")
    return out


def trajectory_lines(traj: dict[str, Any]) -> list[str]:
    """Where the rounds' tool calls part ways (the `trajectories` entry of the JSON report): tasks
    with the same calls in every round, first-divergence steps, and the tasks that part, earliest
    first."""
    measured = traj["tasks_measured"]
    if not traj["tasks"]:
        return []
    out = ["", "Trajectories (tool calls)"]
    if not measured:
        return [*out, f"  {_n(traj['tasks'], 'task')} recorded tool calls; none in two rounds to compare"]
    share = traj["identical_share"]
    out.append(
        f"  same calls in every round: {traj['identical']}/{measured} tasks, {pct(share['value'])}"
        + interval([share["low"], share["high"]], "%")
    )
    steps = [
        f"{numbers.call_step(int(k))}: {v}" for k, v in traj["divergence_histogram"].items() if k != "none"
    ]
    if steps:
        out.append("  tasks by the tool call where rounds first part: " + " · ".join(steps))
    similarity = traj["similarity"]
    parted = sorted(
        ((step, str(task)) for task, step in traj["first_divergence"].items() if step is not None),
        key=lambda item: (item[0], similarity[item[1]]["edit_min"]),
    )
    for step, task in parted[:_LIST_AT_MOST]:
        sim = similarity[task]
        top = max(traj["step_entropy"].get(task) or [0.0])
        out.append(
            f"  {task}: parts at {numbers.call_step(step)} · call-sequence similarity {sim['edit_mean']:.2f} "
            f"(lowest pair {sim['edit_min']:.2f}) · highest step entropy {top:.2f}"
        )
    if len(parted) > _LIST_AT_MOST:
        out.append(f"  ... and {len(parted) - _LIST_AT_MOST} more (use --json for all)")
    return out


def step_lines(steps: dict[str, Any] | None) -> list[str]:
    """One task's steps sampled again (a step resample, or an ALTK-Evolve score card): each step's
    uncertainty with its interval, ALTK-Evolve's own score beside it where the card brought one."""
    if steps is None:
        return []
    by = (
        "ALTK-Evolve (its score card)"
        if steps["source"] == "altk-evolve"
        else "RerunLens on one pinned route"
    )
    out = [
        "",
        f"Step uncertainty of task {steps['task_id']}, round {steps['round']}: "
        f"each step sampled again by {by}",
        "  uncertainty = 1 - mean similarity of a step's samples (0: all alike), with its 95 % interval",
    ]
    for s in steps["steps"]:
        u = s.get("uncertainty")
        if u is None:
            figure = "not scored here (no samples at hand)"
        else:
            figure = (
                f"uncertainty {u:.2f} [{s.get('uncertainty_low', u):.2f}, {s.get('uncertainty_high', u):.2f}]"
            )
            figure += f" over {s.get('samples')} samples"
        if s.get("altk_uncertainty") is not None:
            figure += f" · ALTK-Evolve {s['altk_uncertainty']:.2f} ({s.get('altk_metric')})"
        flag = " · flagged" if s["flagged"] else ""
        out.append(f"  step {s['step']}: {_short(s.get('recorded'))} · {figure}{flag}")
    if steps.get("altk_aggregate_uncertainty") is not None:
        agg = steps["altk_aggregate_uncertainty"]
        out.append(f"  ALTK-Evolve's aggregate uncertainty ({steps.get('altk_aggregation')}): {agg:.2f}")
    if steps["cancelled"]:
        out.append("  the resample was cancelled before every step was sampled")
    return out


def _n(count: int | None, noun: str) -> str:
    """`1 task`, `2 tasks`, `1,200 results`."""
    return numbers.counted(count, noun)


def _short(text: object, width: int = 60) -> str:
    """What a step did, on one line and at most `width` characters."""
    return one_line(str(text or "—"), width)


def render_comparison(comparison: Comparison) -> str:
    """The tables `rerunlens compare` prints."""
    table = comparison.table
    tags = [f"#{i}" for i in range(1, len(table) + 1)]
    shown = pd.DataFrame(
        {
            "group": tags,
            "tasks": table["tasks"],
            "rounds": table["rounds"],
            "answer gap": table["answer_gap_pp"].map(_pp_or_dash),
            "outcome gap": table["outcome_gap_pp"].map(_pp_or_dash),
            "mean@n": table["mean_at_n"].map(_pct_or_dash),
            "pass^n": table["pass_hat_n"].map(_pct_or_dash),
            "mean score": table["mean_score"].map(lambda v: "—" if pd.isna(v) else f"{v:.3f}"),
            "tokens": table["tokens_total"].map(lambda v: num(None if pd.isna(v) else int(v))),
            "cost": table["cost_usd"].map(lambda v: usd(None if pd.isna(v) else float(v))),
            "retried results": table["results_with_retry"].map(numbers.count),
            "extra attempts": table["extra_attempts"].map(numbers.count),
            "route pinned": table["route_pinned"].map(numbers.yes_no),
        }
    )
    lines = [f"{tag}  {visible(label)}" for tag, label in zip(tags, comparison.labels, strict=True)]
    lines += ["", shown.to_string(index=False), ""]
    if comparison.differences:
        lines.append("Differences against the first group (paired over shared tasks)")
        lines += [f"  {visible(d.sentence)}" for d in comparison.differences]  # sentences name labels
        lines.append("")
    flips = comparison.flips
    if flips.empty:
        lines.append("No task flips between consistent and inconsistent.")
    else:
        lines.append(f"Tasks that flip between consistent and inconsistent: {len(flips)}")
        cells = flips[["task_id", *comparison.labels]].rename(
            columns=dict(zip(comparison.labels, tags, strict=True))
        )
        cells["task_id"] = cells["task_id"].map(visible)  # an id cannot break the table's lines
        for tag in tags:
            cells[tag] = cells[tag].map(
                lambda v: "—" if pd.isna(v) else ("consistent" if v else "inconsistent")
            )
        lines.append(cells.to_string(index=False))
    return "\n".join(lines)


def _pp_or_dash(value: float | None) -> str:
    return "—" if value is None or pd.isna(value) else pp(float(value))


def _pct_or_dash(value: float | None) -> str:
    return "—" if value is None or pd.isna(value) else pct(float(value))
