"""Trajectory sections of the Tasks and Overview pages: where one task's rounds part ways, and where
the log's tasks do. Drawn from the analyzer's figures; log text only in dataframes and charts."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analyzer.metrics.divergence import divergence_tree, rounds_at_step
from analyzer.metrics.trajectories import divergence_counts
from app import data, fmt, trajectory_charts

SIDE_COLUMNS = {
    "round": st.column_config.NumberColumn("round"),
    "call": st.column_config.TextColumn("call at this step", width="large"),
    "previous_call": st.column_config.TextColumn("call before"),
    "previous_result": st.column_config.TextColumn("tool result it had just seen", width="large"),
    "answer": st.column_config.TextColumn("final answer"),
}


def task_section(group: data.Group, task_id: str) -> None:
    """The divergence tree of one task and its rounds side by side where they part."""
    traj = group.analysis.trajectories
    if traj is None or task_id not in set(traj.tasks["task_id"]):
        return
    row = traj.tasks.set_index("task_id").loc[task_id]
    rounds = int(row["rounds"])
    fd = None if pd.isna(row["first_divergence"]) else int(row["first_divergence"])
    st.markdown("**Where the rounds part ways**")
    st.caption(
        f"{rounds} rounds recorded tool calls ({row['calls_min']}-{row['calls_max']} each) · "
        + ("every round made the same calls" if fd is None else f"first divergence at step {fd}")
        + f" · call-set Jaccard {row['jaccard_mean']:.2f} mean, {row['jaccard_min']:.2f} worst pair · "
        f"sequence similarity {row['edit_mean']:.2f} mean, {row['edit_min']:.2f} worst pair · "
        f"highest step entropy {row['entropy_max']:.2f} (0 = all rounds alike, 1 = all different)"
    )
    tree = divergence_tree(traj.calls, traj.sequences, task_id)
    st.plotly_chart(trajectory_charts.divergence_tree(tree, fd, rounds), key="tasks.divergence_tree")
    if fd is not None:
        st.markdown(f"**The rounds at step {fd}**")
        st.dataframe(
            rounds_at_step(group.loaded.log, task_id, fd),
            column_config=SIDE_COLUMNS,
            hide_index=True,
            key="tasks.divergence_sides",
        )


def overview_section(group: data.Group) -> None:
    """The histogram of first-divergence steps, with the share of tasks whose rounds never part."""
    traj = group.analysis.trajectories
    if traj is None or traj.tasks.empty:
        return
    share = traj.report()["identical_share"]
    st.subheader("Trajectories")
    st.caption(
        f"{len(traj.tasks):,} tasks with tool calls in 2+ rounds; rounds made the same calls in "
        f"{fmt.pct(share['value'])} of them "
        f"(95% interval {fmt.pct(share['low'])} to {fmt.pct(share['high'])})."
    )
    st.plotly_chart(
        trajectory_charts.divergence_histogram(divergence_counts(traj.tasks)), key="overview.divergence"
    )
