"""Trajectory sections of the Tasks and Overview pages: where one task's rounds part ways, and where
the log's tasks do. Drawn from the analyzer's figures; log text only in dataframes and charts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from analyzer.errors import RerunLensError
from analyzer.importers import load_any
from analyzer.jobs.exposure import runs_refused
from analyzer.jobs.resample_jobs import ResampleJob, cancel_resample, resample_job, start_resample
from analyzer.log.model import RunLog
from analyzer.metrics.divergence import divergence_tree, rounds_at_step
from analyzer.metrics.step_uncertainty import resample_frame, resample_of
from analyzer.metrics.trajectories import divergence_counts
from analyzer.runner.resample import ResampleRequest, default_resample_path, pinned_profile
from analyzer.safety.keys import read_keys
from app import data, fmt, log_folders, trajectory_charts
from app.widgets import lazy, log_route
from app.widgets.messages import escape

TREE = "tasks.tree"
"""The URL parameter that keeps the divergence tree open."""

SIDE_COLUMNS = {  # widths in pixels: the table fits the view at 1,400 px; a cut cell shows whole on hover
    "round": st.column_config.NumberColumn("round", width=55),
    "call": st.column_config.TextColumn("call at this tool call", width=250),
    "previous_call": st.column_config.TextColumn("call before", width=220),
    "previous_result": st.column_config.TextColumn("tool result it had just seen", width=260),
    "answer": st.column_config.TextColumn("final answer", width=110),
}


def has_task_section(group: data.Group, task_id: str) -> bool:
    """Whether `task_section` draws anything for this task: its rounds' tool calls, or an imported
    score card of its steps."""
    return _in_tree(group, task_id) or _imported_scores(group.loaded.log, task_id) is not None


def _in_tree(group: data.Group, task_id: str) -> bool:
    traj = group.analysis.trajectories
    return traj is not None and task_id in set(traj.tasks["task_id"])


def task_section(group: data.Group, task_id: str) -> None:
    """The divergence tree of one task and its rounds side by side where they part."""
    traj = group.analysis.trajectories
    if traj is None or not _in_tree(group, task_id):
        imported = _imported_scores(group.loaded.log, task_id)  # one trajectory: no tree, its scores
        if imported is not None:
            st.markdown("**Where the agent was unsure**")
            _imported_strip(group.loaded.log, imported, int(imported["tool_step"].max()))
        return
    row = traj.tasks.set_index("task_id").loc[task_id]
    rounds = int(row["rounds"])
    fd = None if pd.isna(row["first_divergence"]) else int(row["first_divergence"])
    st.markdown("**Where the rounds part ways**")
    st.caption(
        f"{rounds} rounds recorded tool calls ({row['calls_min']}-{row['calls_max']} each) · "
        + ("every round made the same calls" if fd is None else f"first divergence at {fmt.call_step(fd)}")
        + f" · call-set Jaccard {row['jaccard_mean']:.2f} mean, {row['jaccard_min']:.2f} worst pair · "
        f"sequence similarity {row['edit_mean']:.2f} mean, {row['edit_min']:.2f} worst pair · "
        f"highest step entropy {row['entropy_max']:.2f} (0 = all rounds alike, 1 = all different)"
    )
    tree = divergence_tree(traj.calls, traj.sequences, task_id)
    # Lazy: the tree is the page's only Plotly chart, and drawing it made every visit load Plotly
    # (a first visit near 3x a bare page); the caption above and the table below say where they part.
    box = lazy.section(
        "Divergence tree: the rounds merged while they made the same calls",
        TREE,
        icon=":material/account_tree:",
    )
    if box is not None:
        with box:
            st.plotly_chart(trajectory_charts.divergence_tree(tree, fd, rounds), key="tasks.divergence_tree")
    _uncertainty(group, task_id, int(tree["step"].max()))
    if fd is not None:
        st.markdown(f"**The rounds at {fmt.call_step(fd)}**")
        st.dataframe(
            rounds_at_step(group.loaded.log, task_id, fd),
            column_config=SIDE_COLUMNS,
            hide_index=True,
            placeholder=fmt.NONE,
            key="tasks.divergence_sides",
        )


@st.cache_resource(show_spinner=False, max_entries=32)
def _read_resample(path: str, mtime_ns: int) -> RunLog | None:
    """A resample log beside the parent (keyed by modification time); None when it cannot be read."""
    del mtime_ns  # cache key only
    try:
        return load_any(path).log
    except RerunLensError:
        return None


def _uncertainty(group: data.Group, task_id: str, last_step: int) -> None:
    """The uncertainty strip of the task's resample log (`default_resample_path`), when there is one,
    and the button that makes one (with progress and cancel while it runs). An imported ALTK-Evolve
    score card carries its own per-step scores: those are shown instead."""
    imported = _imported_scores(group.loaded.log, task_id)
    if imported is not None:
        _imported_strip(group.loaded.log, imported, last_step)
        return
    shown, written = _resample_paths(group, task_id)
    job = resample_job(written)
    if job is not None and job.state == "running":
        _progress(str(written))
        return
    if job is not None and job.state == "failed":
        st.error(escape(job.message or "resample failed"), icon=":material/warning:")
    if shown.is_file():
        _strip(group, task_id, shown, last_step)
    else:
        st.caption(
            "No step resample for this task yet: it samples each step again on one pinned route "
            f"and saves `{written.name}` in the runs folder."
        )
    _start_button(group, task_id, written)


def _imported_scores(log: RunLog, task_id: str) -> pd.DataFrame | None:
    """The per-step scores an imported ALTK-Evolve score card brought for this task, if any."""
    if (log.imported_from or {}).get("format") != "altk-evolve" or resample_of(log)[1] != task_id:
        return None
    scores = resample_frame(log)
    return None if scores is None or scores.empty else scores


def _imported_strip(log: RunLog, scores: pd.DataFrame, last_step: int) -> None:
    """ALTK-Evolve's resampled steps: RerunLens's score of its samples (with intervals) where the
    samples came along, ALTK-Evolve's own score beside it."""
    title = "Step uncertainty: each step resampled by ALTK-Evolve (red: flagged)"
    st.plotly_chart(trajectory_charts.uncertainty_strip(scores, last_step, title), key="tasks.uncertainty")
    block = log.resample or {}
    own = ", ".join(
        f"{fmt.call_step(int(s.get('tool_step') or 0))}: "
        f"{float(s['altk_uncertainty']):.2f} ({s.get('altk_metric')})"
        for s in block.get("steps", [])
        if isinstance(s, dict) and isinstance(s.get("altk_uncertainty"), int | float)
    )
    aggregate = block.get("altk_aggregate_uncertainty")
    sampled = scores["samples"].notna()
    flagged = scores[scores["flagged"]]
    if sampled.all():
        how = (
            f"{int(scores['samples'].max())} samples per step, scored by RerunLens (1 − mean similarity: "
            "Jaccard of calls, edit similarity of text) with 95% bootstrap intervals · flagged (≥ 0.2, at "
            "most three): " + (", ".join(fmt.call_step(s) for s in flagged["tool_step"]) or "none")
        )
    else:
        how = (
            "the score card holds no samples (trajectory_ir_<id>_cns.json was not beside it): the bars "
            "are ALTK-Evolve's own scores, without an interval, and no step is flagged"
        )
    st.caption(
        f"{how} · ALTK-Evolve's own step uncertainty: {own or 'none'}"
        + (
            f" · its trajectory uncertainty ({block.get('aggregation')}): {float(aggregate):.2f}"
            if isinstance(aggregate, int | float) and aggregate >= 0
            else ""
        )
    )


def _resample_paths(group: data.Group, task_id: str) -> tuple[Path, Path]:
    """Where the task's resample is shown from (the runs folder's, else one shipped beside the
    parent) and where a new one is written (always the runs folder: shipped samples stay as shipped)."""
    runs = data.runs_dir()
    parent = log_folders.log_path(runs, group.source)
    shipped = parent.with_name(default_resample_path(parent, task_id).name)
    written = runs / shipped.name
    return (written if written.is_file() else shipped), written


def _strip(group: data.Group, task_id: str, path: Path, last_step: int) -> None:
    """The strip itself, when the file is this task's resample of this log."""
    log = _read_resample(str(path), path.stat().st_mtime_ns)
    parent = group.loaded.log.run_id or Path(group.source).name
    scores = resample_frame(log) if log is not None and resample_of(log) == (parent, task_id) else None
    if scores is None or scores.empty:
        return
    st.plotly_chart(trajectory_charts.uncertainty_strip(scores, last_step), key="tasks.uncertainty")
    flagged = scores[scores["flagged"]]
    st.caption(
        f"{int(scores['samples'].max())} samples per step · flagged (uncertainty ≥ 0.2, at most three): "
        + (", ".join(fmt.call_step(s) for s in flagged["tool_step"]) or "none")
        + " · bars carry 95% bootstrap intervals over the samples"
    )


def _start_button(group: data.Group, task_id: str, path: Path) -> None:
    """Samples per step and the button that starts a resample of the task on the pinned route."""
    if group.source.endswith("(upload)"):
        return
    refused = runs_refused(st.get_option("server.address"))
    if refused is not None:
        st.caption(escape(f"Resampling is off: {refused}."))
        return
    try:
        profile = pinned_profile(group.loaded.log)
    except RerunLensError as exc:
        st.error(escape(exc.message), icon=":material/warning:")
        return
    if not log_route.confirmed(profile, "tasks.resample_confirm"):
        return
    again = path.is_file()
    label = "Resample every step again" if again else "Resample every step"
    help_text = (
        "Replays the recorded conversation up to each assistant step on one pinned route (the "
        "environment's, with this log's model and sampling settings) and samples the step again."
    )
    # In a popover: its two widgets are drawn once opened, not on every load of the task.
    with st.popover(label, icon=":material/replay:", help=help_text, key="tasks.resample_box"):
        samples = st.number_input("Samples per step", 2, 20, 5, key="tasks.resample_samples")
        started = st.button("Start", key="tasks.resample_start", type="primary", icon=":material/play_arrow:")
    if not started:
        return
    try:
        keys = read_keys(profile.key_envs())
    except RerunLensError as exc:
        st.error(escape(exc.message), icon=":material/warning:")
        return
    if again:
        path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    request = ResampleRequest(group.loaded.log, task_id, path, samples=int(samples), source=group.source)
    start_resample(request, profile, keys)
    st.rerun()


@st.fragment(run_every=1.0)
def _progress(out: str) -> None:
    """Progress of the running resample, with cancel; the page redraws once it has finished."""
    job: ResampleJob | None = resample_job(out)
    if job is None or job.state != "running":
        st.rerun()
        return
    st.progress(job.fraction, text=f"Resampling {job.task_id}: {job.done} of {job.planned or '?'} samples")
    if st.button("Cancel resample", key="tasks.resample_cancel"):
        cancel_resample(out)


def overview_section(group: data.Group) -> None:
    """The histogram of first-divergence steps, with the share of tasks whose rounds never part."""
    traj = group.analysis.trajectories
    if traj is None or traj.tasks.empty:
        return
    share = traj.report()["identical_share"]
    st.subheader("Trajectories")
    st.caption(
        f"{fmt.counted(len(traj.tasks), 'task')} with tool calls in 2+ rounds; rounds made the same "
        f"calls in {fmt.pct_ci(share['value'], [share['low'], share['high']])} of them."
    )
    st.plotly_chart(
        trajectory_charts.divergence_histogram(divergence_counts(traj.tasks)), key="overview.divergence"
    )
