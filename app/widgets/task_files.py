"""Task files on the page: upload one or pick one from the runs folder (or the shipped sample)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from analyzer.errors import RerunLensError
from analyzer.jobs.uploads import store_task_upload
from analyzer.log.loader import list_logs
from analyzer.log.model import TaskSpec
from analyzer.log.taskfile import load_tasks
from app import data
from app.widgets.job_panel import relative_to_runs
from app.widgets.messages import escape

SAMPLE_TASKS = data.ROOT / "sample_runs" / "tasks.json"
TASK_FILE_MAX_BYTES = 2**20


@st.cache_data(show_spinner=False, ttl=5, max_entries=16)
def task_files(folder: str) -> list[str]:
    """Task files in the runs folder (small JSON lists of tasks), plus the shipped sample task file."""
    root = Path(folder)
    logs = set(list_logs(root))
    found: list[str] = []
    for path in sorted(root.glob("*.json")):
        if path in logs or path.stat().st_size > TASK_FILE_MAX_BYTES:
            continue
        try:
            load_tasks(path)
        except RerunLensError:
            continue
        found.append(str(path))
    if SAMPLE_TASKS.exists() and str(SAMPLE_TASKS) not in found:
        found.append(str(SAMPLE_TASKS))
    return found


@st.cache_data(show_spinner=False, max_entries=16)
def read_task_file(path: str, mtime_ns: int) -> list[TaskSpec]:
    """A task file read by the analyzer (keyed by its modification time)."""
    del mtime_ns
    return load_tasks(path)


def task_file_picker(
    where: str, *, label: str, default_sample: bool, preferred: Path | None = None
) -> tuple[Path | None, list[TaskSpec]]:
    """Upload a task file or pick one from the runs folder; returns its path and tasks (or None, []).

    `preferred` (e.g. the task file saved beside a log) is offered too and picked at first.
    """
    upload = st.file_uploader(
        f"{label}: upload a task file",
        type=["json"],
        key=f"{where}.tasks_upload",
        help='A JSON list of {"task_id", "prompt", "max_tokens"?, "expected"?}.',
        max_upload_size=16,
    )
    if upload is not None:
        try:
            path = store_task_upload(data.runs_dir(), upload.name, upload.getvalue())
            return path, read_task_file(str(path), path.stat().st_mtime_ns)
        except RerunLensError as exc:
            st.error(escape(exc.message), icon=":material/error:")
            return None, []
    files = task_files(str(data.runs_dir()))
    if preferred is not None and str(preferred) not in files:
        files = [str(preferred), *files]
    names = {f: task_file_name(f) for f in files}
    options = ["", *files]
    if st.session_state.get(f"{where}.tasks_pick") not in (None, *options):
        del st.session_state[f"{where}.tasks_pick"]  # picked for another log; no longer offered
    if preferred is not None:
        st.session_state.setdefault(f"{where}.tasks_pick", str(preferred))
    elif default_sample and str(SAMPLE_TASKS) in files:
        st.session_state.setdefault(f"{where}.tasks_pick", str(SAMPLE_TASKS))
    chosen = st.selectbox(
        f"{label}: or pick one",
        options,
        key=f"{where}.tasks_pick",
        format_func=lambda f: names.get(f, "(none)") if f else "(none)",
    )
    if not chosen:
        return None, []
    try:
        path = Path(chosen)
        return path, read_task_file(chosen, path.stat().st_mtime_ns)
    except (RerunLensError, OSError) as exc:
        st.error(escape(getattr(exc, "message", f"{chosen}: cannot read")), icon=":material/error:")
        return None, []


def task_file_name(path: str) -> str:
    """How a task file is named on the page: relative to the runs folder, or the shipped sample."""
    rel = relative_to_runs(path)
    if rel is not None:
        return rel
    if Path(path).parent == SAMPLE_TASKS.parent:
        return f"{Path(path).name} (shipped sample)"
    return Path(path).name
