"""History: one task set across the runs in your runs folder: the finding, the task x run heat-map with
the change points, each figure over time, and the tasks that moved."""

from __future__ import annotations

import streamlit as st

import analyzer.numbers as numbers
from analyzer.history.render import FIGURE_NAMES, RULE, finding, trend_phrase
from analyzer.history.series import change_marks, figure_series, heat_map, moved_tasks
from analyzer.history.timeline import History, run_name
from app import data, history_charts, log_folders, url_state
from app.widgets import job_panel, lazy, static_table
from app.widgets.messages import escape

TASK_SET = "history.task_set"
FIGURE = "history.figure"


def render(selection: data.Selection | None = None) -> None:
    """Finding first, then the heat-map; the figures and the task list below."""
    del selection  # the history is the runs folder's, not the open logs'
    st.title("History")
    folder = log_folders.runs_dir()
    result = data.history(str(folder), st.session_state.get(TASK_SET))
    if isinstance(result, data.Problem):
        st.info(escape(f"No history yet: {result.message}. Runs of one task set saved in {folder} make one."))
        return
    history = result.history
    st.markdown(f"**{escape(finding(history))}**")
    st.caption(
        escape(
            f"{numbers.counted(len(history.runs), 'run')} of task set {history.task_set_key} in {folder}, "
            f"oldest first; history database {result.shown_url}. Labels: {RULE}."
        )
    )
    if result.others:
        _task_set_picker(history.task_set_key, [o["task_set"] for o in result.others])
    st.plotly_chart(history_charts.heat_map(heat_map(history), change_marks(history)), key="history.heat")
    moved = moved_tasks(history)
    if not moved.empty:
        static_table.render(moved, "history.moved")
    box = lazy.section("Each figure over the runs", key="history_figures", icon=":material/show_chart:")
    if box is not None:
        with box:
            figures: list[str] = list(FIGURE_NAMES)
            name = (
                st.selectbox("Figure", figures, format_func=lambda f: FIGURE_NAMES[f], key=FIGURE)
                or figures[0]
            )
            series = figure_series(history, name)
            st.plotly_chart(history_charts.over_runs(series, FIGURE_NAMES[name]), key="history.figure_chart")
            t = history.trends[name]
            st.caption(escape(trend_phrase(t)))
    _open_cell(history)


def _task_set_picker(current: str, others: list[str]) -> None:
    with st.popover(f"Task set: {current}"):
        st.selectbox("Task set", [current, *others], key=TASK_SET)


def _open_cell(history: History) -> None:
    """A task in a run, opened on the Tasks page."""
    names = [run_name(r) for r in history.runs]
    with st.popover("Open a task in a run"):
        run = st.selectbox("Run", range(len(names)), format_func=names.__getitem__, key="history.run")
        task = st.selectbox("Task", sorted(history.cells), key="history.task")
        log = job_panel.relative_to_runs(history.runs[run]["path"]) if run is not None else None
        if log is None or task is None:
            st.caption("Only a log inside your runs folder opens on the Tasks page.")
            return
        link = url_state.view_link("tasks", log=log, task=task)
        st.markdown(f"[Open task {escape(task)} of {escape(names[run])}]({link})")


if __name__ == "__main__":
    render()
