"""A background job on the page: its progress (polled), Cancel, Resume, and opening the log it wrote.

Jobs run in analyzer.jobs.manager; this only shows them. A job this session watched opens its log in the
sidebar when it finishes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import streamlit as st

from analyzer.errors import RerunLensError
from analyzer.jobs.eta import pace, pace_text
from analyzer.jobs.manager import JobManager, JobStatus, get_manager
from app import data, fmt
from app.widgets import figures
from app.widgets.messages import escape, safe

WATCHING = "jobs.watching"
"""Job ids this session saw running: their logs open in the sidebar when they finish."""
OPENED = "jobs.opened"
POLL_S = 0.5


def manager() -> JobManager:
    """The process-wide job manager of the runs folder (shared by tabs and reloads)."""
    return get_manager(data.runs_dir())


def watch(job_id: str) -> None:
    """Remember that this session saw the job running (its log opens when it finishes)."""
    watching = list(st.session_state.get(WATCHING) or [])
    if job_id not in watching:
        st.session_state[WATCHING] = [*watching, job_id]


def job_panel(job: JobStatus, *, noun: str, api_key: str | None) -> JobStatus:
    """A running job's progress (polled twice a second), Cancel; Resume for a stopped one.

    Returns the job's latest status. When a job this session watched finishes, the whole page reruns
    so the result appears.
    """
    mgr = manager()
    if job.active:
        watch(job.job_id)

    @st.fragment(run_every=POLL_S if job.active else None)
    def progress() -> None:
        status = mgr.status(job.job_id) or job
        if status.state != job.state:
            st.rerun(scope="app")
        _progress_lines(status, noun)
        if status.active:
            st.button(
                "Cancel",
                key=f"jobs.cancel.{job.job_id}",
                icon=":material/stop_circle:",
                on_click=_cancel,
                args=(mgr, job.job_id),
                help="Stops after the results in flight; they stay in the journal so the run can resume.",
            )

    progress()
    status = mgr.status(job.job_id) or job
    if status.state in ("cancelled", "interrupted"):
        _resume(status, api_key)
    elif status.state == "failed":
        st.error(escape(f"The {noun} failed: {status.error or 'no reason recorded'}"))
    return status


def _progress_lines(status: JobStatus, noun: str) -> None:
    """One count (the Results figure), the state with the time elapsed and left on the bar."""
    done = f"{status.done:,} / {status.total:,}"
    end = status.finished_at if not status.active and status.finished_at else datetime.now(UTC)
    timing = pace_text(
        pace(status.done, status.total, status.started_at, end), finished=status.state == "done"
    )
    state = {
        "running": f"{noun.capitalize()} running",
        "done": f"{noun.capitalize()} finished",
        "cancelled": f"{noun.capitalize()} cancelled",
        "interrupted": f"{noun.capitalize()} interrupted (its server process stopped)",
        "failed": f"{noun.capitalize()} failed",
    }[status.state]
    st.progress(min(status.fraction, 1.0), text=" · ".join(p for p in (state, timing) if p))
    figures.row(
        [
            ("Results", done),
            ("Tokens", fmt.count(status.tokens)),
            ("Retries", fmt.count(status.retries)),
            ("Errored results", fmt.count(status.errors)),
        ]
    )
    where = "the built-in simulator" if status.simulator else (status.profile.get("base_url") or "")
    st.caption(
        f"Job {status.job_id} · {fmt.count(len(status.task_ids))} tasks x {fmt.count(status.rounds)} rounds"
        f" · {where} · "
        f"model {status.profile.get('model')} · key {status.key_fingerprint or '(none)'}"
    )
    if status.notice and status.active:
        st.caption(safe(status.notice))


def _resume(status: JobStatus, api_key: str | None) -> None:
    mgr = manager()
    if not status.resumable:
        st.warning(f"Job {status.job_id} stopped and its journal is gone; start it again.")
        return
    st.info(
        f"Stopped after {status.done:,} of {status.total:,} results. The finished results are kept in its "
        "journal; Resume finishes the rest without repeating them. No log is written until it finishes.",
        icon=":material/pause_circle:",
    )
    needs_key = status.key_source == "session" and api_key is None
    if needs_key:
        st.caption("It used a key typed for a session: enter the key again above to resume it.")
    if st.button("Resume", key=f"jobs.resume.{status.job_id}", disabled=needs_key, icon=":material/replay:"):
        try:
            resumed = mgr.resume(status.job_id, api_key=api_key if status.key_source == "session" else None)
        except RerunLensError as exc:
            st.error(escape(exc.message))
            return
        watch(resumed.job_id)
        st.rerun()


# --- opening logs --------------------------------------------------------------------------------


def relative_to_runs(path: str | Path) -> str | None:
    """A log's path relative to the runs folder (how the sidebar names it), or None when outside."""
    try:
        return Path(path).resolve().relative_to(data.runs_dir()).as_posix()
    except ValueError:
        return None


def is_open(path: str | Path) -> bool:
    """True when the log is among the open logs of the sidebar."""
    rel = relative_to_runs(path)
    return rel is not None and rel in (st.session_state.get(data.LOGS) or [])


def open_log(path: str | Path, *, focus: bool = False) -> None:
    """Add a finished log to the open logs (through the URL the sidebar reads) and rerun the page."""
    rel = relative_to_runs(path)
    if rel is None:
        return
    logs = [r for r in st.session_state.get(data.LOGS) or [] if r != rel]
    st.query_params["log"] = [*logs, rel]
    if focus:
        st.session_state[data.FOCUS_SOURCE] = rel  # by file: two open logs may share a label
    data.folder_logs.clear()
    st.rerun()


def open_when_finished(status: JobStatus, *, focus: bool = False) -> None:
    """Open a finished job's log once, if this session watched it run; otherwise offer a button."""
    if status.state != "done" or not Path(status.out).exists() or is_open(status.out):
        return
    opened = list(st.session_state.get(OPENED) or [])
    if status.job_id in (st.session_state.get(WATCHING) or []) and status.job_id not in opened:
        st.session_state[OPENED] = [*opened, status.job_id]
        open_log(status.out, focus=focus)
    if st.button("Open it in the dashboard", key=f"jobs.open.{status.job_id}", icon=":material/open_in_new:"):
        open_log(status.out, focus=focus)


def _cancel(mgr: JobManager, job_id: str) -> None:
    """The Cancel button's callback (a callback's return value is dropped)."""
    mgr.cancel(job_id)
