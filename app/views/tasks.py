"""Tasks: the per-task table, then two tabs: one task (its answer clusters, every round, trajectory
steps) and the task x round grid of answers.

The tabs are lazy (only the open one runs and is drawn) and bound to the URL (`tasks.tab`): the grid
is the page's heaviest drawing (a Plotly heatmap), so a first visit draws the table and one task
only, and the grid is one click away, as a tab the user sees.

The task table is read-only HTML (`app/widgets/static_table`); the open task is stepped to with
Previous and Next, or picked by id. Answers and prompts are log text: they are shown only escaped
(HTML tables, dataframes, `st.text`), never as markdown (a task id in markdown is escaped).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analyzer.report.answer_grid import answer_grid
from analyzer.report.task_filter import sort_tasks
from analyzer.report.task_rounds import round_table
from analyzer.report.task_table import (
    TASK_LEGEND,
    cluster_table,
    first_to_open,
    pick_labels,
    table_window,
    task_table,
)
from app import charts, data, fmt, trajectory_panel, url_state
from app.widgets import semantic_clusters, static_table, task_extras, task_filters, trajectory_rounds
from app.widgets.messages import escape, text_box

TASK = "tasks.task"
PICK = "tasks.pick"
PICK_BOX = "tasks.pick_box"
PREVIOUS = "tasks.previous"
NEXT = "tasks.next"
TABLE_ROWS = 100
"""Rows of the task table drawn; a longer table is filtered or sorted to reach the others."""
TABLE_HEIGHT_PX = 420
SECTION = "tasks.tab"
ONE_TASK_TAB = "One task"
GRID_TAB = "Answers by round"
HEATMAP_ROWS = 60
DETAIL = "tasks.detail"
"""The open task's open tab (URL-bound)."""
CLUSTERS_TAB = "Answer clusters"
ROUNDS_TAB = "Every round"
TRAJECTORY_TAB = "Trajectory"

DOWNLOADS_BOX = "tasks.downloads_box"
ROUND_CONFIG = {
    # widths in pixels, so that the widest case (every route field varying, latency recorded) fits the
    # view at 1,400 px without sideways scrolling; a cut cell shows whole on hover
    "round": st.column_config.NumberColumn("round", width=55),
    "cluster": st.column_config.NumberColumn("cluster", width=55),
    "status": st.column_config.TextColumn("status", width=55),
    "answer": st.column_config.TextColumn("answer", width=125),
    "key_fingerprint": st.column_config.TextColumn("key", width=140),
    "base_url": st.column_config.TextColumn("base URL", width=140),
    "served_model": st.column_config.TextColumn("served model", width=145),
    "system_fingerprint": st.column_config.TextColumn("backend", width=95),
    "n_attempts": st.column_config.NumberColumn("attempts", help="HTTP attempts of this round.", width=70),
    "total_tokens": st.column_config.NumberColumn("tokens", width=60),
    "success": st.column_config.CheckboxColumn("success", width=60),
    "latency_ms": st.column_config.NumberColumn("latency (ms)", format="%.0f", width=65),
    "error_message": st.column_config.TextColumn("error", width=140),
}


def render(selection: data.Selection | None = None) -> None:
    """Filter and sort the task table, see the task x round grid, open one task: clusters, rounds,
    trajectory."""
    sel = selection or data.current()
    st.title("Tasks")
    group = sel.focus
    if group is None:
        st.info("Pick a run log in the sidebar to see its tasks.")
        return
    fmt.group_caption(group, sel.key)
    with st.container(horizontal=True):
        shown = task_filters.filtered(group.analysis)
        with st.popover("Download", icon=":material/download:", key=DOWNLOADS_BOX):  # drawn once opened
            fmt.downloads(group, "tasks", report=False)
    task_ids = shown["task_id"].astype(str).tolist()
    opened = _open_task(shown, task_ids)
    _table(group, shown, None if opened is None else task_ids.index(opened))
    if opened is None:
        st.info("No task matches the filter.")
        return
    one, grid = st.tabs([ONE_TASK_TAB, GRID_TAB], key=SECTION, bind="query-params")
    if grid.open:
        with grid:
            _grid(group, shown, task_ids)
    else:
        with one:
            _one_task(sel, group, shown, task_ids, opened)


def _open_task(shown: pd.DataFrame, task_ids: list[str]) -> str | None:
    """The open task: the URL's `task` (or the one stepped to) while the table holds it, else the
    table's first inconsistent task, else its first (mirrored to the URL); None for an empty table."""
    first = first_to_open(shown)
    if first is None:
        return None
    url_state.seed_from_url(TASK, "task", first, lambda raw: raw[-1])
    if st.session_state[TASK] not in task_ids:
        st.session_state[TASK] = first
    url_state.mirror_to_url("task", st.session_state[TASK])
    return str(st.session_state[TASK])


def _table(group: data.Group, shown: pd.DataFrame, marked: int | None) -> None:
    """The task table, read-only (a grid cost this view about 0.1 s of every load: BENCHMARKS.md,
    "Session 17"), in the order the filters chose, in a box that scrolls: at most `TABLE_ROWS` rows,
    around the open task, whose row is highlighted."""
    total = len(group.analysis.tasks)
    if shown.empty:
        st.caption(f"0 of {total:,} tasks")
        return
    start, stop = table_window(len(shown), marked or 0, TABLE_ROWS)
    part = (
        f" · rows {start + 1:,}-{stop:,} shown (filter or sort to reach others)"
        if stop - start < len(shown)
        else ""
    )
    st.caption(
        f"{len(shown):,} of {total:,} tasks, {escape(task_filters.order())}{part} · highlighted: the open "
        f"task · {TASK_LEGEND}"
    )
    static_table.boxed(
        task_table(shown.iloc[start:stop]), TABLE_HEIGHT_PX, None if marked is None else marked - start
    )


def _grid(group: data.Group, shown: pd.DataFrame, task_ids: list[str]) -> None:
    """Task x round heatmap coloured by the analyzer's answer clusters."""
    if len(task_ids) > HEATMAP_ROWS:
        # too many rows to read: show the least consistent first (lowest majority share)
        order = sort_tasks(shown, "least consistent first")
        grid_ids = order["task_id"].astype(str).tolist()[:HEATMAP_ROWS]
        st.caption(
            f"The {HEATMAP_ROWS} least consistent of {len(task_ids):,} tasks (lowest majority share first); "
            "filter the table to see others."
        )
    else:
        grid_ids = task_ids
    grid = answer_grid(group.analysis, grid_ids)
    st.caption(
        "Each cell is one result, coloured by its answer cluster (legend below the grid) and marked with "
        "the route that served it; a blank cell is a result that errored. A row of one colour is a "
        "consistent task; colours that change with the marks are answers following the route."
    )
    st.plotly_chart(charts.cluster_heatmap(grid.clusters, grid.answers, grid.routes), key="tasks.heatmap")
    if grid.legend:
        st.text("Routes: " + " · ".join(f"{mark} = {what}" for mark, what in grid.legend))


def _one_task(
    sel: data.Selection, group: data.Group, shown: pd.DataFrame, task_ids: list[str], task_id: str
) -> None:
    """The open task `task_id` of `shown` (whose ids are `task_ids`): why flagged, prompt, clusters,
    every round, trajectory."""
    analysis = group.analysis
    _stepper(shown, task_ids, task_id)
    row = shown[shown["task_id"].astype(str) == task_id].iloc[0]
    if row.get("flag_reasons"):
        st.text(f"Flagged: {row['flag_reasons']}")
    if row.get("drifted") is True:
        st.text(f"Route drift: {row['drift']}")
    cause = next((a for a in analysis.headline.attribution if a.task_id == task_id), None)
    if cause is not None:  # the evidence names the p- and q-value wherever a factor was tested
        routes = [f"  • {r}" for r in cause.by_route]  # each route's rounds on a line of its own
        st.text("\n".join([f"Cause from the log: {cause.cause}: {cause.reason()}", *routes]))

    prompt = data.task_prompt(group.loaded.log, task_id)
    if prompt is not None:
        st.markdown("**Prompt**")
        text_box(prompt)
    expected = data.task_expected(group.loaded.log, task_id)
    if expected is not None:  # beside the answers below: what a right one would be
        st.markdown("**Expected**")
        text_box(expected)
    reasons = data.grade_reasons(group.loaded.log, task_id)
    if reasons:  # why the grader failed them: a reader sees the cause, not just 0 %
        st.markdown("**Why the grader failed it**")
        text_box("\n".join(f"round {rnd}: {why}" for rnd, why in sorted(reasons.items())))

    _details(group, task_id)
    task_extras.history(sel, task_id)
    task_extras.raw_json(group, task_id)


def _stepper(shown: pd.DataFrame, task_ids: list[str], task_id: str) -> None:
    """The open task's name and place in the table, the buttons that step to the task before or after
    it there, and a picker of any task of the table (in a popover, whose content the browser mounts
    only once opened: a drop-down mounted on every load cost more than the table)."""
    pos = task_ids.index(task_id)
    st.markdown(f"**Task {escape(task_id)}** · {pos + 1:,} of {len(task_ids):,} in the table")
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            "Previous",
            icon=":material/arrow_back:",
            key=PREVIOUS,
            on_click=_open,
            args=(task_ids[pos - 1],),
            disabled=pos == 0,
            help="The task above this one in the table (key K).",
            shortcut="K",
        )
        st.button(
            "Next",
            icon=":material/arrow_forward:",
            key=NEXT,
            on_click=_open,
            args=(task_ids[min(pos + 1, len(task_ids) - 1)],),
            disabled=pos == len(task_ids) - 1,
            help="The task below this one in the table (key J).",
            shortcut="J",
        )
        with st.popover("Open another task", icon=":material/list:", key=PICK_BOX):
            labels = dict(zip(task_ids, pick_labels(shown), strict=True))
            st.session_state[PICK] = task_id
            st.selectbox(
                "Task",
                task_ids,
                key=PICK,
                format_func=labels.__getitem__,
                on_change=_picked,
                help="Every task of the table, in its order: type to find one by id.",
            )


def _open(task_id: str) -> None:
    st.session_state[TASK] = task_id


def _picked() -> None:
    st.session_state[TASK] = st.session_state[PICK]


def _details(group: data.Group, task_id: str) -> None:
    """The open task's clusters, rounds and trajectory as tabs of which only the open one is built:
    each is a table or more, and drawn one under the other they put this view at about twice a bare
    page's render (BENCHMARKS.md, "Session 11")."""
    draw = {
        CLUSTERS_TAB: _clusters,
        ROUNDS_TAB: _rounds,
    }
    if trajectory_panel.has_task_section(group, task_id) or data.trajectories(group.loaded.log, task_id):
        draw[TRAJECTORY_TAB] = _trajectory
    tabs = st.tabs(list(draw), key=DETAIL, bind="query-params")
    for show, tab in zip(draw.values(), tabs, strict=True):
        if tab.open:
            with tab:
                show(group, task_id)


def _clusters(group: data.Group, task_id: str) -> None:
    analysis = group.analysis
    clusters = analysis.clusters[analysis.clusters["task_id"].astype(str) == task_id]
    static_table.render(cluster_table(clusters), key="tasks.clusters", scroll=True)
    semantic_clusters.render(analysis, task_id)


def _rounds(group: data.Group, task_id: str) -> None:
    rounds = round_table(group.analysis.results, task_id)
    if rounds.shared:
        st.text("Same in every round: " + " · ".join(f"{k} {v}" for k, v in rounds.shared.items()))
    st.dataframe(
        rounds.rows,
        placeholder=fmt.NONE,
        hide_index=True,
        column_config=ROUND_CONFIG,
        key="tasks.rounds",
    )


def _trajectory(group: data.Group, task_id: str) -> None:
    trajectory_panel.task_section(group, task_id)
    trajectory_rounds.render(group, task_id)


if __name__ == "__main__":
    render()
