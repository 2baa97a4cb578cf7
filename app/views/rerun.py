"""Re-run: the flagged tasks of the focused log, one pinned route, one button, and the verdict.

If the tasks turn consistent once the route is pinned, the route was the likely cause; if they stay
inconsistent, the model is. The job runs in the background (analyzer.jobs), so a reload or a second
tab finds it again instead of starting another.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from analyzer.before_after import VERDICT_TEXT, Verdict
from analyzer.jobs import JobStatus
from analyzer.runner.pinned_rerun import RerunRequest, default_rerun_path, rerun_plan
from analyzer.runner.rerun_route import parent_settings
from analyzer.uploads import store_log_upload
from app import data, fmt
from app.widgets import job_panel, route_editor, task_files
from app.widgets.messages import one_line_error

PICK_COLUMNS = {
    "rerun": st.column_config.CheckboxColumn("re-run", help="Untick a task to leave it out."),
    "task_id": st.column_config.TextColumn("task"),
    "reasons": st.column_config.TextColumn("why flagged"),
    "n_clusters": st.column_config.NumberColumn("clusters"),
    "majority_share": st.column_config.ProgressColumn(
        "majority", min_value=0.0, max_value=1.0, format="percent"
    ),
    "n_errors": st.column_config.NumberColumn("errors"),
    "retries": st.column_config.NumberColumn("retries"),
    "drift": st.column_config.TextColumn("route drift", width="large"),
}
AFTER_COLUMNS = {
    "task_id": st.column_config.TextColumn("task"),
    "verdict_text": st.column_config.TextColumn("verdict", width="medium"),
    "clusters": st.column_config.TextColumn("clusters", help="Distinct answers, before → after."),
    "consistent": st.column_config.TextColumn("consistent", help="One answer every round, before → after."),
    "tokens": st.column_config.TextColumn("tokens per result", help="Mean tokens, before → after."),
    "retries": st.column_config.TextColumn("retries", help="HTTP retries, before → after."),
}
"""The before/after table: one `before → after` column per figure, so the whole row fits the page."""
COMPARE_VIEW = "views/compare.py"
VERDICT_SHORT: dict[Verdict, str] = {
    "route": "became consistent: the route",
    "model": "still inconsistent: the model",
    "regressed": "became inconsistent: the model",
    "unmeasured": "too few answers after",
    "stable": "consistent before and after",
}
"""Short verdicts for the table (the full sentences are in before_after.VERDICT_TEXT), in table order."""


def render(selection: data.Selection | None = None) -> None:
    """Tasks to re-run, the route, the button with its progress, and the before/after verdict."""
    sel = selection or data.current()
    st.title("Re-run")
    st.caption(
        "Re-run the unstable tasks of a log on one pinned route. Tasks that turn consistent were unstable "
        "because of the route (keys, base URLs, retries); tasks that stay inconsistent are the model's."
    )
    group = sel.focus
    if group is None:
        st.info("Pick a run log in the sidebar: its flagged tasks appear here, ready to re-run.")
        return
    fmt.group_caption(group, sel.key)
    parent = _parent_path(group)
    if parent is None:
        _offer_copy(group)
        return
    job = _find_job(parent)
    running = job is not None and job.active

    st.subheader("Tasks to re-run")
    tasks_file, defined = _task_definitions(group)
    ids = _pick_tasks(group, sel.key, defined, disabled=running)

    st.subheader("Route")
    inherited = parent_settings(group.loaded.log)
    route_editor.inherit(inherited, str(parent))
    choice = route_editor.route_editor()
    route_editor.differences_from(inherited, choice)
    route_editor.check_button(choice, "rerun")

    st.subheader("Run")
    # allow_simulator: the page's route editor decides the route; its visible switch for a provider's
    # log comes with the Re-run page's selection work (issue 14).
    request = RerunRequest(group.loaded.log, ids, str(parent), tasks_file, sel.key, allow_simulator=True)  # type: ignore[arg-type]
    job = _run_button(request, choice, job, sendable=defined is not None) or job
    if job is None:
        st.caption("No re-run of this log yet.")
        return
    job = job_panel.job_panel(job, noun="re-run", api_key=choice.api_key if choice else None)
    if job.state == "done":
        job_panel.open_when_finished(job)
        _before_after(job, sel.key)


def _run_button(
    request: RerunRequest,
    choice: route_editor.RouteChoice | None,
    job: JobStatus | None,
    *,
    sendable: bool,
) -> JobStatus | None:
    """Rounds and the one button; while a re-run runs, the button names it and is disabled.

    `sendable` is False while a format-1 log still lacks the task file with its prompts.
    """
    with st.columns([1, 3])[0]:
        rounds = route_editor.rounds_input("rerun.rounds", choice.profile.rounds if choice else 5)
    running = job is not None and job.active
    ids = list(request.selection)
    label = f"Re-run {len(ids)} tasks x {rounds} rounds on this route"
    if job is not None and running:
        label = f"Re-running {len(job.task_ids)} tasks x {job.rounds} rounds on this route…"
    ready = choice is not None and bool(ids) and sendable and not running
    if st.button(label, type="primary", disabled=not ready, key="rerun.start", icon=":material/replay:"):
        return _start(request, rounds, choice)
    return None


def _parent_path(group: data.Group) -> Path | None:
    """The log's file in the runs folder; None for an upload (a re-run must name its parent file)."""
    if group.source.endswith(" (upload)"):
        return None
    path = data.runs_dir() / group.source
    return path if path.is_file() else None


def _offer_copy(group: data.Group) -> None:
    """An uploaded log has no file a re-run could name as its parent: offer to keep a copy in the folder."""
    st.info(
        "This log was uploaded, so a re-run has no file to name as its parent. Keep a copy in the runs "
        f"folder ({data.escape(data.runs_dir())}) to re-run its tasks; the copy opens in its place.",
        icon=":material/upload_file:",
    )
    name = group.source.removesuffix(" (upload)")
    upload = next((u for u in st.session_state.get(data.UPLOADS) or [] if u.name == name), None)
    if upload is None:
        return
    if st.button("Copy it into the runs folder", key="rerun.copy_upload", icon=":material/save:"):
        try:
            path = store_log_upload(data.runs_dir(), name, upload.getvalue())
        except Exception as exc:  # noqa: BLE001 - one line on the page, never a traceback
            st.error(data.escape(f"Could not copy {name}: {one_line_error(exc)}"))
            return
        job_panel.open_log(path, focus=True)


def _find_job(parent: Path) -> JobStatus | None:
    """The running re-run of this log, else its newest one: what a reload or a second tab shows."""
    mgr = job_panel.manager()
    active = mgr.active("rerun", parent=parent)
    return active[0] if active else mgr.latest("rerun", parent=parent)


def _task_definitions(group: data.Group) -> tuple[Path | None, set[str] | None]:
    """Where the prompts come from: the log itself (format 2), or a task file the user gives.

    Returns the task file (None when the log carries its tasks) and the ids that have a definition
    (None when none can be sent yet).
    """
    log = group.loaded.log
    if log.tasks:
        return None, {str(t.task_id) for t in log.tasks}
    st.info(
        "This log records answers but not the prompts that produced them (a format-1 log), so its tasks "
        "cannot be sent again on their own. Give the task file the run used: its prompts are matched to "
        "the log by task_id.",
        icon=":material/description:",
    )
    path, specs = task_files.task_file_picker("rerun", label="Prompts", default_sample=False)
    if path is None:
        return None, None
    return path, {str(t.task_id) for t in specs}


def _pick_tasks(group: data.Group, key: str, defined: set[str] | None, *, disabled: bool) -> list[str]:
    """The flagged tasks with a checkbox each (all ticked); returns the ticked ids."""
    tasks = group.analysis.tasks
    flagged = tasks[tasks["flagged"].astype(bool)]
    if flagged.empty:
        st.success(
            "No task is flagged under this answer key: every task gave one answer each round, on one "
            "route, without errors. Nothing to re-run.",
            icon=":material/check_circle:",
        )
        return []
    if defined is not None:
        missing = [t for t in flagged["task_id"].astype(str) if t not in defined]
        if missing:
            shown = ", ".join(missing[:8]) + (" …" if len(missing) > 8 else "")
            st.warning(
                data.escape(
                    f"{len(missing)} of {len(flagged)} flagged tasks have no prompt in the task file and are "
                    f"left out: {shown}"
                )
            )
        flagged = flagged[flagged["task_id"].astype(str).isin(defined)]
    counts = _reason_counts(group, flagged)
    st.caption(
        f"{len(flagged)} flagged tasks under the {key} answer key ({counts}). All are ticked; untick any "
        "to leave them out."
    )
    if flagged.empty:
        return []
    table = pd.DataFrame(
        {
            "rerun": True,
            "task_id": flagged["task_id"].astype(str),
            "reasons": flagged["flag_reasons"].astype(str),
            **{c: flagged[c] for c in ("n_clusters", "majority_share", "n_errors", "retries", "drift")},
        }
    )
    picked = st.data_editor(
        table,
        column_config=PICK_COLUMNS,
        disabled=True if disabled else [c for c in PICK_COLUMNS if c != "rerun"],
        hide_index=True,
        key=f"rerun.pick.{group.source}.{key}.{len(table)}",
        height=min(38 + 35 * len(table), 420),
    )
    return picked.loc[picked["rerun"].astype(bool), "task_id"].astype(str).tolist()


def _reason_counts(group: data.Group, shown: pd.DataFrame) -> str:
    """How many of the shown tasks carry each flag reason (the analyzer's list per task)."""
    ids = set(shown["task_id"].astype(str))
    reasons = [r for f in group.analysis.headline.flagged if str(f.task_id) in ids for r in f.reasons]
    counts = pd.Series(reasons, dtype="string").value_counts()
    return ", ".join(f"{n} {reason}" for reason, n in counts.items()) or "no reasons recorded"


def _start(request: RerunRequest, rounds: int, choice: route_editor.RouteChoice | None) -> JobStatus | None:
    """Start the re-run (or find the same one already running); one-line error on failure."""
    assert choice is not None
    mgr = job_panel.manager()
    try:
        out = mgr.new_out(default_rerun_path(request.source or "log").name.removesuffix(".altk_runs.json"))
        plan = rerun_plan(request, choice.profile, out, rounds=rounds, keys=choice.keys())
        job = mgr.start_rerun(request, plan)
    except Exception as exc:  # noqa: BLE001 - one line on the page, never a traceback
        st.error(data.escape(f"Could not start the re-run: {one_line_error(exc)}"))
        return None
    job_panel.watch(job.job_id)
    return job


def _before_after(job: JobStatus, key: str) -> None:
    """Per task before and after the pinned re-run, and the verdict in plain words."""
    try:
        stamp = data.files_stamp(job.parent, job.out)
        frame = data.rerun_before_after(job.parent or "", job.out, tuple(job.task_ids), key, stamp)
    except Exception as exc:  # noqa: BLE001 - one line on the page, never a traceback
        st.error(data.escape(f"Cannot compare before and after: {one_line_error(exc)}"))
        return
    st.subheader("Before and after")
    new_log = job_panel.relative_to_runs(job.out) or Path(job.out).name
    where = "is open beside it in the sidebar" if job_panel.is_open(job.out) else "can be opened above"
    st.caption(
        f"New log {data.escape(new_log)} names its parent ({data.escape(Path(job.parent or '').name)}) "
        f"and {where} · answer key **{key}**"
    )
    verdicts = frame["verdict"].value_counts()
    route = frame.loc[frame["verdict"] == "route", "task_id"].astype(str).tolist()
    model = frame.loc[frame["verdict"].isin(["model", "regressed"]), "task_id"].astype(str).tolist()
    cols = st.columns(4)
    cols[0].metric("Became consistent", f"{len(route)}", help=VERDICT_TEXT["route"])
    cols[1].metric("Still inconsistent", f"{len(model)}", help=VERDICT_TEXT["model"])
    cols[2].metric("Consistent before and after", f"{int(verdicts.get('stable', 0))}")
    cols[3].metric(
        "Too few answers", f"{int(verdicts.get('unmeasured', 0))}", help=VERDICT_TEXT["unmeasured"]
    )
    _verdict_lines(route, model)
    order = {v: i for i, v in enumerate(VERDICT_SHORT)}
    shown = pd.DataFrame(
        {
            "task_id": frame["task_id"].astype(str),
            "verdict_text": frame["verdict"].map(VERDICT_SHORT).fillna(frame["verdict"]),
            "clusters": _pairs(frame["clusters_before"], frame["clusters_after"], "{:.0f}"),
            "consistent": _pairs(frame["consistent_before"], frame["consistent_after"], "yes/no"),
            "tokens": _pairs(frame["tokens_mean_before"], frame["tokens_mean_after"], "{:,.0f}"),
            "retries": _pairs(frame["retries_before"], frame["retries_after"], "{:.0f}"),
            "_order": frame["verdict"].map(order),
        }
    ).sort_values("_order", kind="stable")
    st.dataframe(
        shown[list(AFTER_COLUMNS)],
        column_config=AFTER_COLUMNS,
        hide_index=True,
        height=min(38 + 35 * len(shown), 740),
        key=f"rerun.after.{job.job_id}",
    )
    fmt.page_link(COMPARE_VIEW, "Compare the two logs side by side →")


def _pairs(before: pd.Series, after: pd.Series, pattern: str) -> list[str]:
    """`before → after` per row; a missing figure shows as —."""
    return [f"{_one(b, pattern)} → {_one(a, pattern)}" for b, a in zip(before, after, strict=True)]


def _one(value: object, pattern: str) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return fmt.NONE
    if pattern == "yes/no":
        return "yes" if bool(value) else "no"
    return pattern.format(float(value))  # type: ignore[arg-type]


def _verdict_lines(route: list[str], model: list[str]) -> None:
    if route:
        st.success(
            data.escape(
                f"{len(route)} became consistent once the route was pinned, so the route was the likely "
                f"cause: {', '.join(route)}"
            ),
            icon=":material/alt_route:",
        )
    if model:
        st.warning(
            data.escape(
                f"{len(model)} still inconsistent on a pinned route, so the model is to blame: "
                f"{', '.join(model)}"
            ),
            icon=":material/psychology:",
        )
    if not route and not model:
        st.info("No task was inconsistent before and measured after: nothing to blame.")


if __name__ == "__main__":
    render()
