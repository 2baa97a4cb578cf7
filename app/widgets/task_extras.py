"""Below one task on the Tasks page: the task across every open log, and one result's raw JSON.

Both are lazy (drawn only while open, kept open by the URL): the raw JSON reads the log's result
objects, which a large fast-loaded log builds only on demand.
"""

from __future__ import annotations

import streamlit as st

from analyzer.report.task_history import task_history
from app import data, fmt
from app.widgets import lazy

HISTORY = "tasks.history"
RAW = "tasks.raw"
HISTORY_COLUMNS = {
    "label": st.column_config.TextColumn("label", width="medium"),
    "consistent": st.column_config.CheckboxColumn("consistent"),
    "its share": st.column_config.ProgressColumn("its share", min_value=0.0, max_value=1.0, format="percent"),
}


def history(sel: data.Selection, task_id: str) -> None:
    """The task in each open log that holds it (with two or more logs open)."""
    if len(sel.groups) < 2:
        return
    box = lazy.section(f"This task across the {fmt.counted(len(sel.groups), 'open log')}", HISTORY)
    if box is not None:
        with box:
            table = task_history([(g.label, g.analysis) for g in sel.groups], task_id)
            st.caption(
                f"{fmt.counted(len(table), 'log')} of the open ones hold this task, in the sidebar's order."
            )
            st.dataframe(
                table,
                column_config=HISTORY_COLUMNS,
                hide_index=True,
                placeholder=fmt.NONE,
                key="tasks.history_table",
            )


def raw_json(group: data.Group, task_id: str) -> None:
    """One result of the task exactly as the log records it (secret-shaped values masked)."""
    box = lazy.section("Raw JSON of a result", RAW, icon=":material/data_object:")
    if box is None:
        return
    with box:
        by_round = data.result_json(group.loaded.log, task_id)
        if not by_round:
            st.text("The log holds no result of this task.")
            return
        rnd = st.selectbox(
            "Round", list(by_round), key=f"tasks.raw_round.{task_id}", format_func=lambda r: f"round {r}"
        )
        st.text(by_round[rnd])
