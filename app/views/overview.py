"""Overview: the headline figures of the focused log, its route verdict, warnings and downloads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import charts, data, fmt, trajectory_panel

TASKS_VIEW = "views/tasks.py"


def render(selection: data.Selection | None = None) -> None:
    """Headline numbers, verdict, warnings, the Pass^k curve, flagged-task link and downloads."""
    sel = selection or data.current()
    st.title("Overview")
    group = sel.focus
    if group is None:
        st.info("Pick a run log in the sidebar, or drop one or several logs on the upload box.")
        return
    h = group.analysis.headline
    fmt.group_caption(group, sel.key)

    cols = st.columns(5)
    cols[0].metric("Tasks", fmt.count(h.tasks))
    cols[1].metric("Rounds", fmt.count(h.rounds))
    cols[2].metric(
        "Answer gap",
        fmt.pp(h.answer_gap_pp),
        help="Share of tasks (with 2+ answers) whose answers differ between rounds, in percentage points.",
    )
    cols[3].metric("Answer consistency", fmt.pct(h.answer_consistency_rate))
    outcome = h.outcome
    cols[4].metric(
        "Outcome gap",
        fmt.pp(outcome.outcome_gap_pp) if outcome else "no grading",
        help="Mean@n minus Pass^n: how much success drops when every round must succeed.",
    )

    cols = st.columns(5)
    cols[0].metric("Tokens, total", fmt.count(h.tokens.total))
    cols[1].metric("Tokens per task", fmt.num(h.tokens.per_task_mean))
    cols[2].metric(
        "Retries", fmt.count(h.retries.extra_attempts), help="HTTP attempts beyond each result's first."
    )
    cols[3].metric("Errored results", fmt.count(h.errors))
    cols[4].metric("Flagged tasks", fmt.count(len(h.flagged)))

    st.subheader("Route")
    if h.route.pinned:
        st.success(data.escape(h.route.verdict), icon=":material/check_circle:")
    else:
        st.warning(data.escape(h.route.verdict), icon=":material/alt_route:")

    if h.flagged:
        fmt.page_link(TASKS_VIEW, f"See the {len(h.flagged)} flagged tasks →", {"flagged": "1"})

    mismatches = [f"Stored summary disagrees: {m.message}" for m in h.summary_mismatches]
    warnings = list(dict.fromkeys([*mismatches, *group.loaded.warnings, *h.warnings]))
    if warnings:
        st.subheader("Warnings")
        st.warning("\n".join(f"- {data.escape(w)}" for w in warnings), icon=":material/warning:")

    if outcome:
        st.subheader("Outcome consistency")
        ocols = st.columns(3)
        ocols[0].metric("Mean@n", fmt.pct(outcome.mean_at_n), help="Mean success rate over rounds.")
        ocols[1].metric(
            f"Pass^{outcome.n}", fmt.pct(outcome.pass_hat_k[outcome.n]), help="All rounds succeed."
        )
        ocols[2].metric(
            f"Pass@{outcome.n}", fmt.pct(outcome.pass_at_k[outcome.n]), help="Any round succeeds."
        )
        if outcome.uneven_n:
            st.caption(
                f"Tasks have between {outcome.n_min} and {outcome.n} graded runs; each task uses its own "
                "count for k = n."
            )
        curve = pd.DataFrame(
            {
                "k": list(outcome.pass_hat_k),
                "pass_hat_k": list(outcome.pass_hat_k.values()),
                "pass_at_k": [outcome.pass_at_k[k] for k in outcome.pass_hat_k],
            }
        )
        st.plotly_chart(charts.pass_k_curve(curve), key="overview.passk")

    trajectory_panel.overview_section(group)

    st.subheader("Downloads")
    fmt.downloads(group, "overview", report=True)


if __name__ == "__main__":
    render()
