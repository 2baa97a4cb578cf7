"""Tasks: the per-task table, then two tabs: one task (its answer clusters, every round, trajectory
steps) and the task x round grid of answers.

The tabs are lazy (only the open one runs and is drawn) and bound to the URL (`tasks.tab`): the grid
is the page's heaviest drawing (a Plotly heatmap), so a first visit draws the table and one task
only, and the grid is one click away, as a tab the user sees.

Answers and prompts are log text: they are shown only in dataframes, `st.text` and `st.code`, never
as markdown (a task id in markdown is escaped).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analyzer.report.answer_grid import answer_grid
from analyzer.report.task_rounds import round_table
from app import charts, data, fmt, trajectory_panel, url_state
from app.widgets import semantic_clusters, task_extras, task_filters, trajectory_rounds
from app.widgets.messages import escape, text_box

TASK = "tasks.task"
TABLE = "tasks.table"
CLICKED = "tasks.clicked_rows"
SECTION = "tasks.tab"
ONE_TASK_TAB = "One task"
GRID_TAB = "Answers by round"
HEATMAP_ROWS = 60
DETAIL = "tasks.detail"
"""The open task's open tab (URL-bound)."""
CLUSTERS_TAB = "Answer clusters"
ROUNDS_TAB = "Every round"
TRAJECTORY_TAB = "Trajectory"

TASK_COLUMNS = {
    "task_id": st.column_config.TextColumn("task"),
    "cause": st.column_config.TextColumn(
        "cause", help="The cause the log points to, for an inconsistent task."
    ),
    "n_results": st.column_config.NumberColumn("results", help="Results recorded (errors included)."),
    "n_clusters": st.column_config.NumberColumn("clusters", help="Distinct answers under the answer key."),
    "consistent": st.column_config.CheckboxColumn("consistent"),
    "majority_share": st.column_config.ProgressColumn(
        "majority", help="Largest cluster / answers.", min_value=0.0, max_value=1.0, format="percent"
    ),
    "success_rate": st.column_config.NumberColumn("success", format="percent"),
    "tokens_total": st.column_config.NumberColumn("tokens", format="localized"),
    "retries": st.column_config.NumberColumn("retries"),
    "n_errors": st.column_config.NumberColumn("errors"),
    "n_no_answer": st.column_config.NumberColumn(
        "no answer", help="Results that did not error but gave no answer (empty or missing): never agreeing."
    ),
    "drifted": st.column_config.CheckboxColumn("drifted"),
}
CLUSTER_COLUMNS = {
    # widths in pixels that add up to less than the view at 1,400 px: a task's long list of rounds
    # ("1, 2, 3, 4, 5, 7, 8, 9, 10") pushed the last column out of sight; a cut cell shows on hover
    "cluster": st.column_config.NumberColumn("cluster", help="0 is the largest.", width=60),
    "size": st.column_config.NumberColumn("answers", width=70),
    "share": st.column_config.ProgressColumn(
        "share", min_value=0.0, max_value=1.0, format="percent", width=130
    ),
    "representative": st.column_config.TextColumn("representative answer", width=300),
    "rounds": st.column_config.TextColumn("rounds", width=170),
    "tokens_mean": st.column_config.NumberColumn("tokens/run", format="%.0f", width=80),
    "successes": st.column_config.NumberColumn("successes", width=80),
}
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
    """Filter the task table, see the task x round grid, open one task: clusters, rounds, trajectory."""
    sel = selection or data.current()
    st.title("Tasks")
    group = sel.focus
    if group is None:
        st.info("Pick a run log in the sidebar to see its tasks.")
        return
    fmt.group_caption(group, sel.key)
    shown = task_filters.filtered(group.analysis)
    task_ids = shown["task_id"].astype(str).tolist()
    _table(group, shown, task_ids)
    with st.popover("Download", icon=":material/download:", key=DOWNLOADS_BOX):  # drawn once opened
        fmt.downloads(group, "tasks", report=False)
    if not task_ids:
        st.info("No task matches the filter.")
        return
    one, grid = st.tabs([ONE_TASK_TAB, GRID_TAB], key=SECTION, bind="query-params")
    if grid.open:
        with grid:
            _grid(group, shown, task_ids)
    else:
        with one:
            _one_task(sel, group, shown, task_ids)


def _table(group: data.Group, shown: pd.DataFrame, task_ids: list[str]) -> None:
    """The sortable task table; clicking a row opens that task below."""
    total = len(group.analysis.tasks)
    st.caption(f"{len(shown):,} of {total:,} tasks · click a row to open it · click a header to sort")
    columns = [c for c in TASK_COLUMNS if c in shown.columns]
    event = st.dataframe(
        shown[columns],
        placeholder=fmt.NONE,
        column_config=TASK_COLUMNS,
        hide_index=True,
        on_select="rerun",
        selection_mode="single-row",
        key=TABLE,
        height=min(420, 38 + 35 * max(len(shown), 1)),
    )
    rows = list(event.selection.rows)
    if rows != st.session_state.get(CLICKED):  # a row was clicked: open that task below
        st.session_state[CLICKED] = rows
        if rows and rows[0] < len(task_ids):
            st.session_state[TASK] = task_ids[rows[0]]
            url_state.mirror_to_url("task", task_ids[rows[0]])  # so a task named in the URL does not win
            st.session_state[SECTION] = ONE_TASK_TAB  # the clicked task opens, whichever tab was open


def _grid(group: data.Group, shown: pd.DataFrame, task_ids: list[str]) -> None:
    """Task x round heatmap coloured by the analyzer's answer clusters."""
    if len(task_ids) > HEATMAP_ROWS:
        # too many rows to read: show the least consistent first (lowest majority share)
        order = shown.sort_values("majority_share", kind="stable", na_position="last")
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


def _one_task(sel: data.Selection, group: data.Group, shown: pd.DataFrame, task_ids: list[str]) -> None:
    """The open task (a row clicked in the table, or the URL's `task`): why flagged, prompt,
    clusters, every round, trajectory.

    The table is the task picker: a drop-down of every task beside it cost a 1,000-task page about
    0.1 s of its first render and offered nothing the table (sorted, filtered by id) does not.
    """
    analysis = group.analysis
    unstable = shown.loc[shown["consistent"].eq(False).fillna(False).astype(bool), "task_id"].astype(str)
    first = unstable.iloc[0] if len(unstable) else task_ids[0]  # open on the first inconsistent task
    url_state.seed_from_url(TASK, "task", first, lambda raw: raw[-1])
    if st.session_state[TASK] not in task_ids:
        st.session_state[TASK] = first
    task_id = st.session_state[TASK]
    url_state.mirror_to_url("task", task_id)
    st.markdown(f"**Task {escape(task_id)}** · click another row in the table to open it")
    row = shown[shown["task_id"].astype(str) == task_id].iloc[0]
    if row.get("flag_reasons"):
        st.text(f"Flagged: {row['flag_reasons']}")
    if row.get("drifted"):
        st.text(f"Route drift: {row['drift']}")
    cause = next((a for a in analysis.headline.attribution if a.task_id == task_id), None)
    if cause is not None:  # the evidence names the p- and q-value wherever a factor was tested
        routes = [f"  • {r}" for r in cause.by_route]  # each route's rounds on a line of its own
        st.text("\n".join([f"Cause from the log: {cause.cause}: {cause.reason()}", *routes]))

    prompt = data.task_prompt(group.loaded.log, task_id)
    if prompt is not None:
        st.markdown("**Prompt**")
        text_box(prompt)

    _details(group, task_id)
    task_extras.history(sel, task_id)
    task_extras.raw_json(group, task_id)


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
    st.dataframe(
        clusters.drop(columns=["task_id"]),
        placeholder=fmt.NONE,
        column_config=CLUSTER_COLUMNS,
        hide_index=True,
        key="tasks.clusters",
    )
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
