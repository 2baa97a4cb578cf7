"""New run: a task file, a route and a number of rounds; start, watch, cancel, open the log it writes.

The run goes into the runs folder in the background (analyzer.jobs.manager); a reload or a second tab finds
the running job instead of starting another.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from analyzer.jobs.manager import JobStatus
from analyzer.log.model import TaskSpec
from analyzer.runner.plan import Provenance, new_plan
from app import data, fmt, log_folders
from app.widgets import job_panel, route_editor, task_files
from app.widgets.messages import escape, one_line_error

TASK_COLUMNS = {
    "task_id": st.column_config.TextColumn("task"),
    "prompt": st.column_config.TextColumn("prompt", width="large"),
    "expected": st.column_config.TextColumn("expected"),
    "max_tokens": st.column_config.NumberColumn("max tokens"),
}
JOB = "newrun.job"
"""The job this session started (a reload finds a running one through the job manager instead)."""
OVERVIEW_VIEW = "views/overview.py"


def render(selection: data.Selection | None = None) -> None:
    """Tasks, route, rounds and label; the start button; progress; the finished log."""
    del selection  # a new run does not depend on the open logs
    st.title("New run")
    st.caption(
        "Run every task of a task file through one route, several rounds each, and open the log it "
        "writes into the runs folder."
    )
    job = _find_job()
    running = job is not None and job.active

    st.subheader("Tasks")
    path, tasks = task_files.task_file_picker("newrun", label="Tasks", default_sample=True)
    if tasks:
        _preview(path, tasks)

    st.subheader("Route")
    route_editor.inherited_notice()
    choice = route_editor.route_editor()
    route_editor.check_button(choice, "newrun")

    st.subheader("Run")
    left, right = st.columns([1, 3])
    with left:
        rounds = route_editor.rounds_input(
            "newrun.rounds", choice.profile.rounds if choice else 5, job.rounds if job and running else None
        )
    label = right.text_input(
        "Label of the new log",
        key="newrun.label",
        max_chars=80,
        placeholder="e.g. E: gpt-4o-mini pinned, seed 42",
        help="How the log is named in the sidebar and in Compare.",
    )
    ready = choice is not None and bool(tasks) and not running
    button = f"Run {len(tasks)} tasks x {rounds} rounds on this route"
    if running:
        assert job is not None
        button = f"Running {len(job.task_ids)} tasks x {job.rounds} rounds on this route…"
    if st.button(
        button, type="primary", disabled=not ready, key="newrun.start", icon=":material/play_arrow:"
    ):
        job = _start(tasks, rounds, label, choice) or job
    if job is None:
        st.caption(f"No run started yet. Logs are written to {escape(log_folders.runs_dir())}.")
        return
    job = job_panel.job_panel(job, noun="run", api_key=choice.api_key if choice else None)
    if job.state == "done":
        _finished(job)


def _find_job() -> JobStatus | None:
    """A running run in this folder, else the one this session started, else the newest one."""
    mgr = job_panel.manager()
    active = mgr.active("run")
    if active:
        return active[0]
    mine = st.session_state.get(JOB)
    return (mgr.status(mine) if mine else None) or mgr.latest("run")


def _preview(path: Path | None, tasks: list[TaskSpec]) -> None:
    graded = sum(1 for t in tasks if t.expected is not None)
    name = task_files.task_file_name(str(path)) if path else "the upload"
    if path is not None and ".rerunlens" in path.parts:
        name = f"the upload ({path.name})"
    st.caption(f"{len(tasks)} tasks from {escape(name)} · {graded} with an expected answer (graded)")
    frame = pd.DataFrame(
        {
            "task_id": [str(t.task_id) for t in tasks],
            "prompt": [t.prompt for t in tasks],
            "expected": [None if t.expected is None else str(t.expected) for t in tasks],
            "max_tokens": [t.max_tokens for t in tasks],
        }
    )
    if frame["max_tokens"].isna().all():
        frame = frame.drop(columns="max_tokens")
    st.dataframe(
        frame,
        column_config=TASK_COLUMNS,
        hide_index=True,
        height=min(38 + 35 * len(frame), 250),
        placeholder=fmt.NONE,
        key="newrun.preview",
    )


def _start(
    tasks: list[TaskSpec], rounds: int, label: str, choice: route_editor.RouteChoice | None
) -> JobStatus | None:
    """Start the run (or find the same one already running); one-line error on failure."""
    assert choice is not None
    try:
        mgr = job_panel.manager()
        provenance = Provenance(label=label.strip() or None)
        plan = new_plan(
            tasks, choice.profile, mgr.new_out(), keys=choice.keys(), rounds=rounds, provenance=provenance
        )
        job = mgr.start_run(plan)
    except Exception as exc:  # noqa: BLE001 - one line on the page, never a traceback
        st.error(escape(f"Could not start the run: {one_line_error(exc)}"))
        return None
    st.session_state[JOB] = job.job_id
    job_panel.watch(job.job_id)
    return job


def _finished(job: JobStatus) -> None:
    """Where the log went, and a way into the dashboard's views of it."""
    name = job_panel.relative_to_runs(job.out) or Path(job.out).name
    st.success(
        escape(f"Saved {name} ({job.done:,} results, {job.tokens:,} tokens, {job.retries:,} retries)."),
        icon=":material/task_alt:",
    )
    job_panel.open_when_finished(job, focus=True)
    if job_panel.is_open(job.out):
        st.caption("It is open in the sidebar and shown by the single-log views.")
        fmt.page_link(OVERVIEW_VIEW, "See its overview →")


if __name__ == "__main__":
    render()
