"""Overview: the headline figures of the focused log, its route verdict, warnings and downloads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import analyzer.numbers as numbers
from analyzer.analysis import Headline
from analyzer.metrics.attribution import attribution_caption
from analyzer.metrics.cost import cost_phrase, usd
from analyzer.metrics.lead import Lead
from analyzer.metrics.outcome import OutcomeFigures
from analyzer.metrics.route_drift import drifted_figure
from analyzer.metrics.route_factors import side_counts
from analyzer.metrics.scores import ScoreFigures
from analyzer.report.finding import Finding
from analyzer.report.said_once import said_once
from analyzer.report.task_filter import STATE_MEANING, STATES, drift_defined, state_counts
from app import charts, data, fmt, overview_charts, trajectory_panel
from app.widgets import cause_table, figures, lazy
from app.widgets.messages import escape

TASKS_VIEW = "views/tasks.py"
RERUN_VIEW = "views/rerun.py"
COMPARE_VIEW = "views/compare.py"
RERUN_PARAM = "rerun"
"""The Re-run page's URL parameter naming the tasks a link asks it to tick (Re-run's `PICKED_PARAM`)."""
ACTIONS_HINT = (
    "The answers agree while the tool calls do not: the answer key **actions** (in the sidebar) "
    "clusters the rounds by the tool calls they made."
)
CAUSES = "overview.causes"
DOWNLOADS_BOX = "overview.downloads_box"
CURVE = "overview.curve"
PASS_K_CONFIG = {"displayModeBar": False}
"""A ten-point curve needs no zoom or pan buttons; hover still reads each point (and it draws lighter)."""


def render(selection: data.Selection | None = None) -> None:
    """The finding first (one sentence, one chart, the evidence one click away), then the figures,
    route verdict, warnings, outcome, trajectories and downloads."""
    sel = selection or data.current()
    st.title("Overview")
    group = sel.focus
    if group is None:
        st.info("Pick a run log in the sidebar, or drop one or several logs on the upload box.")
        return
    h = group.analysis.headline
    fmt.group_caption(group, sel.key)
    _file_groups(sel, group)
    found = data.finding(group.analysis)
    if found.outcome:  # a graded log leads with what its users look for: success over rounds
        st.markdown(f"#### {escape(found.outcome)}")
        _outcome(h.outcome)  # type: ignore[arg-type]
    _first_screen(found, h.lead, sel.key)
    _figures(h)
    _states(group)

    st.subheader("Route")
    if h.route.held:
        st.success(escape(h.route.verdict), icon=":material/check_circle:")
    else:
        st.warning(escape(h.route.verdict), icon=":material/alt_route:")

    _attribution(h)

    mismatches = [f"Stored summary disagrees: {m.message}" for m in h.summary_mismatches]
    loaded = [w for w in group.loaded.warnings if w not in h.warnings]  # the loader's, said by both
    warnings = said_once([*mismatches, *h.warnings, *loaded])
    if warnings:
        st.subheader("Warnings")
        st.warning("\n".join(f"- {escape(w)}" for w in warnings), icon=":material/warning:")

    if h.outcome and not found.outcome:  # a graded log of another tool shows it first, above
        _outcome(h.outcome)
    if h.score:
        _score(h.score)
    if h.cost is not None and h.cost.total_usd is not None:
        figures.row([("Cost", usd(h.cost.total_usd), cost_phrase(h.cost))])

    trajectory_panel.overview_section(group)

    # In a popover, as on Tasks: download buttons drawn on the page made every visit load their code
    # first (BENCHMARKS.md, "Session 18"); a popover's content is mounted once opened.
    with st.popover("Downloads", icon=":material/download:", key=DOWNLOADS_BOX):
        fmt.downloads(group, "overview", report=True)
        _html_reports(sel, group)


def _file_groups(sel: data.Selection, group: data.Group) -> None:
    """Say when the shown log is one of several experiment groups of one file (promptfoo's prompts or
    providers), each open as a log of its own, and where they stand side by side."""
    parts = data.file_groups(sel.groups, group)
    if len(parts) < 2:
        return
    names = ", ".join(g.label for g in parts)
    st.info(
        escape(
            f"{data.file_source(group.source).removesuffix(data.UPLOAD_SUFFIX)} holds "
            f"{fmt.counted(len(parts), 'experiment group')} ({names}): each is open as a log of its own "
            "(pick it under Shown in the sidebar), and Compare sets them side by side."
        ),
        icon=":material/splitscreen:",
    )
    fmt.page_link(COMPARE_VIEW, "Compare them side by side →")


def _first_screen(found: Finding, lead: Lead | None, key: str) -> None:
    """The finding in one sentence (the analyzer's words, no log text), an agent log's lead (what
    varies: answers or tool calls) under it when the analysis gives one, its chart, the evidence."""
    st.markdown(f"#### {escape(found.sentence)}")
    if lead is not None and lead.varies == "tool_calls" and key != "actions":
        st.caption(ACTIONS_HINT)
    elif lead is not None:
        st.caption(escape(lead.sentence[:1].upper() + lead.sentence[1:]))
    for chart in found.charts():
        st.html(overview_charts.finding_bar(chart))
    if found.inconsistent:
        fmt.page_link(
            TASKS_VIEW,
            f"The evidence for each of the {fmt.counted(found.inconsistent, 'inconsistent task')} →",
            {"show": "inconsistent"},
        )
    undecided = found.undecided_ids()
    if undecided:  # the log alone cannot tell: the re-run on one pinned route is what decides
        label = f"Re-run the {fmt.counted(len(undecided), 'inconclusive task')} on one pinned route"
        fmt.page_link(RERUN_VIEW, f"{label} to decide them →", {RERUN_PARAM: undecided})  # those ticked


def _figures(h: Headline) -> None:
    """The answer and outcome gaps with their intervals, then tokens and retries."""
    outcome = h.outcome
    gap_ci = outcome.outcome_gap_ci if outcome is not None else None
    figures.row(
        [
            (
                "Answer gap",
                fmt.pp(h.answer_gap_pp),
                "Share of tasks (with 2+ answers) whose answers differ between rounds, in percentage "
                f"points: {fmt.pp_ci(h.answer_gap_pp, h.answer_gap_ci)}.",
            ),
            (
                "Outcome gap",
                fmt.pp(outcome.outcome_gap_pp) if outcome else "no grading",
                "Mean@n minus Pass^n: how much success drops when every round must succeed.",
            ),
            ("Tokens, total", fmt.count(h.tokens.total)),
        ]
    )
    extra = [("No answer", fmt.count(h.no_answer), "Results that gave no answer (not errors): never agree.")]
    if h.lead is not None and h.lead.tool_call_gap_pp is not None:
        tip = "Share of tasks (2+ rounds with a trajectory) whose rounds made different tool calls."
        extra.insert(0, ("Tool-call gap", fmt.pp(h.lead.tool_call_gap_pp), tip))
    figures.row(extra, per_row=3)  # under the three above
    parts = [f"answer gap {fmt.pp_ci(h.answer_gap_pp, h.answer_gap_ci)}"]
    if outcome is not None:
        parts.append(f"outcome gap {fmt.pp_ci(outcome.outcome_gap_pp, gap_ci)}")
    st.caption("Over tasks: " + " · ".join(parts))


def _states(group: data.Group) -> None:
    """The inconsistent, drifted and errored tasks apart, each a link to them; the log's size under."""
    h = group.analysis.headline
    counts = state_counts(group.analysis.tasks)
    drifted = drifted_figure(group.analysis.tasks["drifted"])
    shown = {state: (fmt.count(counts[state]), STATE_HELP[state]) for state in STATES}
    shown["drifted"] = (drifted.figure, f"{STATE_HELP['drifted']} {drifted.note}".strip())
    figures.row([(label, *shown[state]) for state, label in STATES.items()])
    links = {**counts, "drifted": len(group.analysis.headline.route.drifted_tasks)}
    if any(links.values()):  # each link in the third its figure takes while the row is three wide
        for col, state in zip(st.columns(3), STATES, strict=True):
            if links[state]:
                with col:
                    fmt.page_link(TASKS_VIEW, "Show them →", {"show": state})
    st.caption(escape(drift_defined()))
    st.caption(
        f"{fmt.counted(h.tasks, 'task')} x {fmt.counted(h.rounds, 'round')} · "
        f"{fmt.counted(h.errors, 'errored result')} · "
        f"{fmt.counted(h.retries.extra_attempts, 'retry', 'retries')} "
        "(HTTP attempts beyond each result's first) · "
        f"{fmt.count(h.tokens.per_task_mean)} tokens per task"
    )


VERDICT_FIGURES = {
    "route": ("Your route", "Your key, base URL or parameters explain the answers (q <= 0.05)."),
    "backend": ("Provider's backend", "The served model or fingerprint explains the answers (q <= 0.05)."),
    "route or backend": ("Route or backend", "Your route and the backend changed together (q <= 0.05)."),
    "both": ("Both", "A route factor shifts the answers; they also vary within it."),
    "model": ("Model", "Answers vary within one route; no factor explains them."),
    "inconclusive": ("Inconclusive", "Too few rounds to tell (rounds that would decide given)."),
    "unmeasured": ("Unmeasured", "No key or base URL recorded."),
}
"""The log's route-or-model counts: label and help of each verdict, in the order shown."""
SIDES = ("backend", "route or backend")
"""Counts shown only when not zero (most logs never blame the provider's backend alone)."""

STATE_HELP = {state: f"A task counts when {meaning}." for state, meaning in STATE_MEANING.items()}


def _html_reports(sel: data.Selection, group: data.Group) -> None:
    """The shareable HTML report (`rerunlens report`) of this log, and of every open log side by side."""
    st.download_button(
        "Report to share (HTML)",
        lambda: data.html_report([group]),
        file_name=f"{fmt.file_stem(group.label)}-report.html",
        mime="text/html",
        on_click="ignore",
        key="overview.dl.html",
        help="One self-contained file (charts included) that opens offline in any browser.",
    )
    if len(sel.groups) > 1:
        st.download_button(
            f"All {len(sel.groups)} open logs (HTML)",
            lambda: data.html_report(sel.groups),
            file_name="rerunlens-report.html",
            mime="text/html",
            on_click="ignore",
            help="One self-contained report with every open log side by side.",
            key="overview.dl.html_all",
        )


def _score(score: ScoreFigures) -> None:
    """The mean reward or score over tasks, with its interval."""
    tip = f"Mean over tasks of each task's mean {score.name}; {score.fractional} partial."
    figures.row([(f"Mean {score.name}", f"{score.mean:.3f}", tip)])
    st.caption(f"Over {numbers.counted(score.tasks, 'task')}: {numbers.ci(score.mean_ci, digits=3)}")


def _outcome(outcome: OutcomeFigures) -> None:
    """Mean@n, Pass^n and Pass@n with their intervals, and the Pass^k curve."""
    st.subheader("Outcome consistency")
    figures.row(
        [
            ("Mean@n", fmt.pct(outcome.mean_at_n), "Mean success rate over rounds."),
            (f"Pass^{outcome.n}", fmt.pct(outcome.pass_hat_k[outcome.n]), "All rounds succeed."),
            (f"Pass@{outcome.n}", fmt.pct(outcome.pass_at_k[outcome.n]), "Any round succeeds."),
        ]
    )
    cis = [
        f"Mean@n {fmt.pct_ci(outcome.mean_at_n, outcome.mean_at_n_ci)}",
        f"Pass^{outcome.n} {fmt.pct_ci(outcome.pass_hat_k[outcome.n], outcome.pass_hat_k_ci)}",
    ]
    st.caption("Over tasks: " + " · ".join(cis))
    if outcome.uneven_n:
        st.caption(
            f"Tasks have between {outcome.n_min} and {outcome.n} graded runs; each task uses its own "
            "count for k = n."
        )
    # Lazy: Plotly is the heaviest drawing of the page; the curve is drawn once opened (the URL
    # keeps it open: `overview.curve`), the figures it ends on are the metrics above.
    box = lazy.section(
        f"Pass^k and Pass@k for k = 1 to {outcome.n}: how success falls as rounds are added",
        CURVE,
        icon=":material/show_chart:",
    )
    if box is not None:
        curve = pd.DataFrame(
            {
                "k": list(outcome.pass_hat_k),
                "pass_hat_k": list(outcome.pass_hat_k.values()),
                "pass_at_k": [outcome.pass_at_k[k] for k in outcome.pass_hat_k],
            }
        )
        with box:
            st.plotly_chart(charts.pass_k_curve(curve), key="overview.passk", config=PASS_K_CONFIG)


def _attribution(h: Headline) -> None:
    """How many inconsistent tasks the log itself puts down to the route, both, the model, or neither:
    `attribution.verdict_counts` (route and both only where they pass the false discovery rate)."""
    if not h.attribution:
        return
    st.subheader("Route or model, from the log")
    counts = side_counts(h.attribution)
    causes = [a.cause for a in h.attribution]
    shown = [(label, fmt.count(counts[v]), tip) for v, (label, tip) in VERDICT_FIGURES.items()]
    figures.row([f for f, v in zip(shown, VERDICT_FIGURES, strict=True) if counts[v] or v not in SIDES])
    st.caption(escape(attribution_caption(h.attribution)))
    box = lazy.section(
        f"The cause of each of the {len(causes):,} inconsistent tasks, with its evidence", CAUSES
    )
    if box is not None:
        with box:
            cause_table.render(h.attribution, key="overview.attribution")


if __name__ == "__main__":
    render()
