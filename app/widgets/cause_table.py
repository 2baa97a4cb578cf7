"""The cause table (Overview, Routes): each inconsistent task's verdict from the log, its tested
factor, p and q, and a link to that task's evidence on the Tasks view."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from analyzer.metrics.attribution import Attribution, attribution_frame
from app import fmt, url_state

TASKS_PATH = "tasks"
LINK = "evidence_link"

COLUMNS = {
    LINK: st.column_config.LinkColumn(
        "open", display_text="evidence", help="This task on the Tasks view: its clusters, rounds and routes."
    ),
    "task_id": st.column_config.TextColumn("task"),
    "cause": st.column_config.TextColumn("cause"),
    "factor": st.column_config.TextColumn("factor", help="The route factor tested best."),
    "p_value": st.column_config.NumberColumn(
        "p",
        help="Chance of answers following that factor this well by chance (Bonferroni within the task).",
        format="%.3g",
    ),
    "q_value": st.column_config.NumberColumn(
        "q", help="Benjamini-Hochberg over the log's tasks.", format="%.3g"
    ),
    "passes": st.column_config.CheckboxColumn("passes", help="q <= 0.05"),
    "evidence": st.column_config.TextColumn("evidence", width="medium"),
}
"""The cause table (Overview, Routes)."""


def render(items: Sequence[Attribution], key: str) -> None:
    """The table of `items`, a link to each task's evidence first (opening in a new tab, with the
    open logs and answer key kept)."""
    frame = attribution_frame(items)
    frame.insert(0, LINK, [url_state.view_link(TASKS_PATH, task=a.task_id) for a in items])
    st.dataframe(frame, placeholder=fmt.NONE, column_config=COLUMNS, hide_index=True, key=key)
