"""Retries: every HTTP attempt on a timeline, counts by outcome and by route, latency distributions."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analyzer.metrics.retries import attempts_by_route
from app import charts, data, fmt
from app.widgets import figures

ONLY_RETRIED = "retries.only_retried"
TIMELINE_RESULTS = 150


def render(selection: data.Selection | None = None) -> None:
    """Attempt timeline, outcome counts (overall and per route) and latency histograms."""
    sel = selection or data.current()
    st.title("Retries")
    group = sel.focus
    if group is None:
        st.info("Pick a run log in the sidebar to see its HTTP attempts.")
        return
    fmt.group_caption(group, sel.key)
    analysis = group.analysis
    r = analysis.headline.retries

    longest = fmt.num(r.retry_after_max_s, 1) + (" s" if r.retry_after_max_s else "")
    if r.retry_after_seen == 0:
        longest = "none sent"
    figures.row(
        [
            ("HTTP attempts", fmt.count(r.attempts_total)),
            ("Retries", fmt.count(r.extra_attempts), "Attempts beyond each result's first."),
            ("Results retried", fmt.count(r.results_with_retry)),
            ("Retry-After sent", fmt.count(r.retry_after_seen)),
            ("Longest Retry-After", longest),
        ]
    )
    attempts = analysis.attempts
    if attempts.empty:
        st.info("This log records no HTTP attempts (format 1 logs do not); there is nothing to show here.")
        return

    st.subheader("Counts")
    by_outcome = pd.DataFrame({"outcome": list(r.by_outcome), "attempts": list(r.by_outcome.values())})
    st.plotly_chart(charts.outcome_counts(by_outcome, "outcome"), key="retries.by_outcome")
    st.plotly_chart(charts.attempts_by_route(attempts_by_route(attempts)), key="retries.by_route")
    if r.retries_per_result:
        st.caption(
            "Results by retries needed: "
            + ", ".join(f"{k} retr{'y' if k == 1 else 'ies'}: {v:,}" for k, v in r.retries_per_result.items())
        )

    st.subheader("Timeline")
    st.toggle("Only results that needed a retry", value=True, key=ONLY_RETRIED)
    shown = attempts
    if st.session_state[ONLY_RETRIED]:
        retried = analysis.results.index[analysis.results["retried"]]
        shown = attempts[attempts["result_row"].isin(retried)]
    rows = pd.unique(shown["result_row"])[:TIMELINE_RESULTS]
    shown = shown[shown["result_row"].isin(rows)]
    if shown.empty:
        st.text("No attempt to show.")
    else:
        if len(rows) == TIMELINE_RESULTS:
            st.caption(f"First {TIMELINE_RESULTS} results in log order.")
        st.plotly_chart(charts.attempt_timeline(shown), key="retries.timeline")

    st.subheader("Latency")
    left, right = st.columns(2)
    left.plotly_chart(
        charts.latency_box(
            analysis.results,
            "latency_ms",
            "retried",
            "Result wall time (retries included)",
            "latency (ms, log scale)",
        ),
        key="retries.latency",
    )
    right.plotly_chart(
        charts.latency_box(
            attempts, "duration_ms", "outcome", "Attempt duration by outcome", "duration (ms, log scale)"
        ),
        key="retries.duration",
    )


if __name__ == "__main__":
    render()
