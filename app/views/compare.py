"""Compare: two or more open logs side by side, the tasks that flip between them, and charts."""

from __future__ import annotations

import streamlit as st

from analyzer.verdicts.compare import compare
from app import charts, data, fmt

TABLE_COLUMNS = {
    "label": st.column_config.TextColumn("group", width="medium"),  # the figures stay in view
    "answer_key": st.column_config.TextColumn("answer key"),
    "answer_gap_pp": st.column_config.NumberColumn("answer gap (pp)", format="%.1f"),
    "answer_gap_low": st.column_config.NumberColumn("95 % low", format="%.1f", help="Bootstrap over tasks."),
    "answer_gap_high": st.column_config.NumberColumn("95 % high", format="%.1f"),
    "outcome_gap_pp": st.column_config.NumberColumn("outcome gap (pp)", format="%.1f"),
    "outcome_gap_low": st.column_config.NumberColumn(
        "95 % low ", format="%.1f", help="Bootstrap over tasks."
    ),
    "outcome_gap_high": st.column_config.NumberColumn("95 % high ", format="%.1f"),
    "mean_at_n": st.column_config.NumberColumn("Mean@n", format="percent"),
    "pass_hat_n": st.column_config.NumberColumn("Pass^n", format="percent"),
    "mean_score": st.column_config.NumberColumn(
        "mean reward/score", format="%.3f", help="Mean over tasks of each task's mean reward or score."
    ),
    "mean_score_low": st.column_config.NumberColumn("95 % low  ", format="%.3f"),
    "mean_score_high": st.column_config.NumberColumn("95 % high  ", format="%.3f"),
    "tokens_total": st.column_config.NumberColumn("tokens", format="localized"),
    "tokens_per_task_mean": st.column_config.NumberColumn("tokens/task", format="%.0f"),
    "attempts_total": st.column_config.NumberColumn("HTTP attempts"),
    "extra_attempts": st.column_config.NumberColumn("retries"),
    "results_with_retry": st.column_config.NumberColumn("results retried"),
    "route_pinned": st.column_config.CheckboxColumn("route pinned"),
    "flagged": st.column_config.NumberColumn("flagged tasks"),
}


def render(selection: data.Selection | None = None) -> None:
    """Side-by-side table, flips and bar charts for every open experiment group."""
    sel = selection or data.current()
    st.title("Compare")
    if len(sel.groups) < 2:
        st.info(
            "Open two or more logs (pick several in the sidebar or upload them) to compare experiment groups."
        )
        return
    st.caption(
        "Groups: " + " · ".join(data.escape(g.label) for g in sel.groups) + f" · answer key **{sel.key}**"
    )
    result = compare([(g.label, g.analysis) for g in sel.groups])

    st.subheader("Side by side")
    st.dataframe(
        result.table, column_config=TABLE_COLUMNS, hide_index=True, placeholder=fmt.NONE, key="compare.table"
    )

    st.subheader("Differences beyond noise?")
    st.caption(
        f"Each group against {data.escape(result.labels[0])}, paired over the tasks both measured: "
        "95 % paired interval (the wider of a bootstrap and Newcombe's score interval) and exact McNemar "
        "p-value over the tasks that flip."
    )
    for diff in result.differences:
        st.text(diff.sentence)

    st.subheader("Charts")
    left, right = st.columns(2)
    gap = charts.compare_bars(result.table, "answer_gap_pp", "Answer gap", "answer gap (pp)")
    left.plotly_chart(charts.with_intervals(gap, result.table, "answer_gap_pp"), key="compare.gap")
    if "outcome_gap_pp" in result.table and result.table["outcome_gap_pp"].notna().any():
        outcome = charts.compare_bars(result.table, "outcome_gap_pp", "Outcome gap", "outcome gap (pp)")
        right.plotly_chart(
            charts.with_intervals(outcome, result.table, "outcome_gap_pp"), key="compare.outcome"
        )
    left, right = st.columns(2)
    left.plotly_chart(
        charts.compare_bars(result.table, "tokens_total", "Tokens", "tokens (total)"), key="compare.tokens"
    )
    right.plotly_chart(
        charts.compare_bars(result.table, "extra_attempts", "Retries", "extra HTTP attempts"),
        key="compare.retries",
    )

    st.subheader("Tasks that flip")
    st.caption(
        "Tasks consistent in one group and inconsistent in another. Ticked: consistent; empty: "
        "inconsistent; None: the group has fewer than two answers for the task."
    )
    if result.flips.empty:
        st.text("No task flips between these groups.")
    else:
        st.dataframe(
            result.flips.drop(columns=["flipped"]),
            placeholder=fmt.NONE,
            column_config={"task_id": st.column_config.TextColumn("task")},
            hide_index=True,
            key="compare.flips",
        )


if __name__ == "__main__":
    render()
