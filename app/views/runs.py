"""Runs: every log of your runs folder and the samples as one table (label, date, tasks x rounds,
headline, parent), the way to pick which logs are open.

The table is read-only HTML and the picking is a multiselect of the same logs, by label, in a
popover: a selectable dataframe cost the view's warm reload about 0.1 s, a third of a bare page
(BENCHMARKS.md, "Session 16"), and cut the labels and headlines it was there to show.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analyzer.report.runs_table import runs_table
from app import data, fmt, log_folders
from app.widgets import static_table
from app.widgets.messages import escape

TABLE = "runs.table"
PICKED = "runs.picked"
PICK_BOX = "runs.pick_box"
COLUMNS = ["open", "log", "where", "date", "tasks x rounds", "headline", "parent"]
DATE_FORMAT = "%Y-%m-%d %H:%M"


def _where(name: str) -> str:
    return "sample" if log_folders.is_sample(name) else "runs folder"


def render(selection: data.Selection | None = None) -> None:
    """The table of logs; picking logs by label and one button opens them."""
    sel = selection or data.current()
    st.title("Runs")
    table = runs_table(data.listed_logs(sel.key))
    if table.empty:
        st.info(f"No log yet in {escape(data.runs_dir())} and no sample found.")
        return
    opened = set(st.session_state.get(data.LOGS) or [])
    opened |= {name for name in table["file"] if data.file_source(name) in opened}  # its groups too
    shown = table.assign(
        open=table["file"].isin(opened).map({True: "open", False: ""}),
        where=table["file"].map(_where),
        date=[fmt.NONE if pd.isna(d) else d.strftime(DATE_FORMAT) for d in table["date"]],
    )
    st.caption(
        f'{fmt.counted(len(table), "log")}, newest first (dates in UTC) · "open" marks the logs open now; '
        "pick others under Open logs (the sidebar's list changes to those)"
    )
    with st.popover("Open logs", icon=":material/open_in_new:", key=PICK_BOX):  # drawn once opened
        _picker(shown)
    static_table.render(shown[COLUMNS], key=TABLE, scroll=True)


def _picker(shown: pd.DataFrame) -> None:
    """The logs by label (and where they are: a copy of a sample has its label twice), and the button
    that opens exactly the picked ones."""
    names = dict(
        zip(shown["file"], shown["log"] + " · " + shown["where"] + " · " + shown["date"], strict=True)
    )
    picked = st.multiselect(
        "Logs to open",
        list(names),
        key=PICKED,
        format_func=names.__getitem__,
        placeholder="Type or pick labels",
        help="The logs open now are replaced by the ones picked here.",
    )
    if st.button(
        f"Open the {fmt.counted(len(picked), 'picked log')}" if picked else "Pick logs to open them",
        disabled=not picked,
        type="primary",
        key="runs.open",
    ):
        st.query_params["log"] = list(dict.fromkeys(data.file_source(p) for p in picked))  # a group: its file
        st.session_state.pop(data.LOGS, None)  # the sidebar reads the URL afresh
        st.rerun()


if __name__ == "__main__":
    render()
