"""Runs: every log of your runs folder and the samples as one table (label, date, tasks x rounds,
headline, parent), the way to pick which logs are open."""

from __future__ import annotations

import streamlit as st

from analyzer.report.runs_table import runs_table
from app import data, fmt, log_folders
from app.widgets.messages import escape

TABLE = "runs.table"
COLUMNS = {
    "open": st.column_config.CheckboxColumn("open", help="Open in the sidebar now."),
    "log": st.column_config.TextColumn(
        "log", width="medium", help="Its label, or its file name when it has none."
    ),
    "where": st.column_config.TextColumn(
        "where",
        help="Your runs folder, or a shipped sample (read-only): a copy of a sample has its label twice.",
    ),
    "date": st.column_config.DatetimeColumn("date", format="YYYY-MM-DD HH:mm"),
    "tasks x rounds": st.column_config.TextColumn("tasks x rounds"),
    "headline": st.column_config.TextColumn(
        "headline", width="medium", help="Tasks whose answers differ; the answer gap."
    ),
    "parent": st.column_config.TextColumn("parent"),
}


def _where(name: str) -> str:
    return "sample" if log_folders.is_sample(name) else "runs folder"


def render(selection: data.Selection | None = None) -> None:
    """The table of logs; ticking rows and one button opens them."""
    sel = selection or data.current()
    st.title("Runs")
    table = runs_table(data.listed_logs(sel.key))
    if table.empty:
        st.info(f"No log yet in {escape(data.runs_dir())} and no sample found.")
        return
    opened = set(st.session_state.get(data.LOGS) or [])
    shown = table.assign(open=table["file"].isin(opened), where=table["file"].map(_where))
    st.caption(
        f"{fmt.counted(len(table), 'log')}, newest first · tick rows and press the button to open them "
        "(the sidebar's list changes to those)"
    )
    event = st.dataframe(
        shown,
        column_config=COLUMNS,
        column_order=list(COLUMNS),
        hide_index=True,
        placeholder=fmt.NONE,
        on_select="rerun",
        selection_mode="multi-row",
        key=TABLE,
        height=min(38 + 35 * len(shown), 600),
    )
    picked = [shown["file"].iloc[i] for i in event.selection.rows if i < len(shown)]
    if st.button(
        f"Open the {fmt.counted(len(picked), 'ticked log')}" if picked else "Tick rows to open logs",
        disabled=not picked,
        type="primary",
        key="runs.open",
        icon=":material/open_in_new:",
    ):
        st.query_params["log"] = picked
        st.session_state.pop(data.LOGS, None)  # the sidebar reads the URL afresh
        st.rerun()


if __name__ == "__main__":
    render()
