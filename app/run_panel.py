"""What the Re-run and New run views share: the route editor, the preflight check, a job's live
progress, task files, and opening a finished log in the sidebar.

The key typed into the password field moves at once into session state (this session's memory
only) and the field is cleared, so the browser never holds it again; the page shows its fingerprint.
Nothing here computes a metric: the analyzer builds the profile, checks the route and runs the job.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from analyzer.atomic import write_text_atomic
from analyzer.errors import RerunLensError
from analyzer.jobs import JobManager, JobStatus, get_manager
from analyzer.loader import list_logs, load_path
from analyzer.model import TaskSpec
from analyzer.route_profile import RouteProfile, build_profile, key_fingerprint, key_problem, resolve_keys
from analyzer.taskfile import load_tasks, load_tasks_bytes
from analyzer.url_lint import lint_base_url, redact_url
from app import data

ROUTE = "route."
"""Session-state prefix of the route editor (shared by both views, so a route set once carries over)."""
SESSION_KEY = "route.session_key"
"""A key typed for this session only (memory, never disk, URL or page)."""
KEY_INPUT = "route.key_input"
INHERITED_FROM = "route.inherited_from"
"""The parent log whose model and sampling the editor last took."""
DIAGNOSIS = "route.diagnosis"
WATCHING = "jobs.watching"
"""Job ids this session saw running: their logs open in the sidebar when they finish."""
OPENED = "jobs.opened"
SAMPLE_TASKS = data.ROOT / "sample_runs" / "tasks.json"
TASK_FILE_MAX_BYTES = 2**20
POLL_S = 0.5

NUMBER_FIELDS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "temperature": ("Temperature", "Sampling temperature; 0 is the reproducible choice.", {"step": 0.1}),
    "top_p": ("top_p", "Nucleus sampling; 1 keeps every token.", {"step": 0.05}),
    "seed": ("Seed", "Sent with every request, so a backend that honours it repeats itself.", {"step": 1}),
    "max_tokens": ("Max tokens", "Completion cap (a task's own max_tokens wins).", {"step": 16}),
    "timeout_s": ("Timeout (s)", "Client timeout per HTTP attempt.", {"step": 10.0}),
    "max_retries": ("Max retries", "SDK retries after the first attempt.", {"step": 1}),
    "concurrency": ("Concurrency", "Tasks in flight at once; 1 keeps the order reproducible.", {"step": 1}),
}
"""Profile field -> label, help and widget options for the parameters row."""


@dataclass(frozen=True)
class RouteChoice:
    """The route the user set: the analyzer's profile, and the session key when one was typed."""

    profile: RouteProfile
    api_key: str | None

    @property
    def fingerprint(self) -> str | None:
        """Fingerprint of the key the job will use (never the key)."""
        if self.api_key is not None:
            return key_fingerprint(self.api_key)
        return key_fingerprint(resolve_keys(self.profile)[0])


URL = re.compile(r"https?://[^\s`]+")


def safe(text: str) -> str:
    """Text for markdown elements: escaped, with URLs as literal code spans (escapes would show in links)."""
    parts, last = [], 0
    for match in URL.finditer(text):
        url = match.group(0).rstrip(".,;:)")
        parts += [data.escape(text[last : match.start()]), f"`{url}`"]
        last = match.start() + len(url)
    return "".join([*parts, data.escape(text[last:])])


def manager() -> JobManager:
    """The process-wide job manager of the runs folder (shared by tabs and reloads)."""
    return get_manager(data.runs_dir())


# --- route editor --------------------------------------------------------------------------------


def _defaults() -> RouteProfile:
    """The environment's profile (OPENAI_BASE_URL, ALTK_*), or the reproducibility-first defaults."""
    try:
        return build_profile()
    except RerunLensError as exc:
        st.warning(data.escape(f"Ignoring the environment's route settings: {exc.message}"))
        return build_profile(use_env=False)


def _seed_widgets() -> RouteProfile:
    defaults = _defaults()
    values = defaults.model_dump()
    for field in ("base_url", "key_env", "model", *NUMBER_FIELDS):
        st.session_state.setdefault(ROUTE + field, values[field] if values[field] is not None else None)
    if st.session_state.get(ROUTE + "base_url") is None:
        st.session_state[ROUTE + "base_url"] = ""
    return defaults


def _take_key() -> None:
    """Move a typed key out of the widget into session memory, and clear the widget."""
    typed = st.session_state.get(KEY_INPUT) or ""
    if typed.strip():
        st.session_state[SESSION_KEY] = typed.strip()
    st.session_state[KEY_INPUT] = ""


def _forget_key() -> None:
    st.session_state.pop(SESSION_KEY, None)


@st.fragment
def _base_url_editor() -> None:
    """The base URL, linted live as the user types (only this part reruns while typing)."""
    st.text_input(
        "Base URL",
        key=ROUTE + "base_url",
        live="400ms",
        placeholder="empty: the built-in simulator serves (offline)",
        help="The API root, e.g. https://api.openai.com/v1. The SDK appends /chat/completions to it.",
        persist_state="session",
    )
    url = st.session_state.get(ROUTE + "base_url") or ""
    if not url.strip():
        st.info(
            "No base URL configured: the built-in simulator serves this route, offline on this machine. "
            "Enter a base URL to use a real OpenAI-compatible endpoint.",
            icon=":material/dns:",
        )
        return
    report = lint_base_url(url)
    st.text(f"Calls {redact_url(report.call_url)}")
    for finding in report.findings:
        text = safe(f"{finding.message} Fix: {finding.fix}")
        (st.error if finding.severity == "error" else st.warning)(text)
    if report.suggested:
        st.text(f"Suggested base URL: {redact_url(report.suggested)}")
    if report.ok:
        st.caption("Base URL looks right.")


def _key_editor(profile: RouteProfile | None) -> None:
    left, right = st.columns(2)
    left.text_input(
        "Key variable",
        key=ROUTE + "key_env",
        help="The environment variable that holds the API key; the key is read when the calls are made.",
        persist_state="session",
    )
    session_key = st.session_state.get(SESSION_KEY)
    if session_key:
        right.text_input(
            "Key for this session",
            value="",
            disabled=True,
            placeholder="a key is set for this session",
            key=ROUTE + "key_set",
        )
        right.button("Forget the session key", on_click=_forget_key, key=ROUTE + "forget")
    else:
        right.text_input(
            "Or a key for this session only",
            type="password",
            key=KEY_INPUT,
            on_change=_take_key,
            help="Kept in this browser session's memory only: never written to disk, the URL or a log.",
        )
    if session_key:
        st.caption(f"Key: typed for this session · fingerprint {key_fingerprint(session_key)}")
        return
    env = profile.key_env if profile else (st.session_state.get(ROUTE + "key_env") or "").strip()
    key = resolve_keys(profile)[0] if profile else ""
    if profile is not None and profile.uses_simulator and not key:
        st.caption(f"Key: {env or '(none)'} is not set · the simulator needs no key")
    elif not key:
        st.caption(f"Key: {env or '(none)'} is not set in the server's environment")
    else:
        problem = key_problem(key)
        note = f" · looks like a {problem} key" if problem and problem != "empty" else ""
        st.caption(f"Key: from {env} · fingerprint {key_fingerprint(key)}{note}")


def _number(field: str, where: Any) -> None:
    label, help_text, options = NUMBER_FIELDS[field]
    is_int = field in ("seed", "max_tokens", "max_retries", "concurrency")
    value = st.session_state.get(ROUTE + field)
    if value is not None:
        st.session_state[ROUTE + field] = int(value) if is_int else float(value)
    step = options["step"]
    where.number_input(
        label,
        key=ROUTE + field,
        step=int(step) if is_int else float(step),
        min_value=0 if is_int else 0.0,
        help=help_text,
        persist_state="session",
    )


def inherit(settings: dict[str, Any], source: str) -> None:
    """Set the editor's model and sampling settings to a parent log's, once per parent.

    Call before `route_editor`. A re-run should change the route only: a different model or
    temperature would be mixed into the before/after.
    """
    if st.session_state.get(INHERITED_FROM) == source:
        return
    _seed_widgets()
    _use(settings)
    st.session_state[INHERITED_FROM] = source


def _use(settings: dict[str, Any]) -> None:
    for field, value in settings.items():
        st.session_state[ROUTE + field] = value


def differences_from(settings: dict[str, Any], choice: RouteChoice | None) -> None:
    """Warn where the route's model or sampling differs from the parent's, with a way back to them."""
    from analyzer.runner.pinned_rerun import route_differences

    if choice is None:
        return
    differs = route_differences(settings, choice.profile)
    if not differs:
        st.caption("Model and sampling as in the parent log: only the route is pinned.")
        return
    st.warning(
        data.escape(
            f"Differs from the parent log ({'; '.join(differs)}): the before/after would mix that change "
            "with pinning the route."
        ),
        icon=":material/tune:",
    )
    st.button("Use the parent's settings", key=ROUTE + "use_parent", on_click=_use, args=(settings,))


def route_editor() -> RouteChoice | None:
    """Base URL (linted live), key variable and fingerprint or a session key, model and parameters.

    Returns the route the analyzer built from them, or None after showing its one-line error.
    """
    _seed_widgets()
    _base_url_editor()
    st.text_input("Model", key=ROUTE + "model", persist_state="session")
    cols = [*st.columns(4), *st.columns(4)]
    for col, field in zip(cols, NUMBER_FIELDS, strict=False):
        _number(field, col)
    profile: RouteProfile | None = None
    try:
        profile = build_profile(use_env=False, overrides=_overrides())
    except RerunLensError as exc:
        st.error(data.escape(_as_labels(exc.message)), icon=":material/error:")
    _key_editor(profile)
    if profile is None:
        return None
    return RouteChoice(profile, st.session_state.get(SESSION_KEY))


def _as_labels(message: str) -> str:
    """The analyzer names a bad setting as its command-line flag (`--top-p='0.0': ...`); name the field."""
    labels = {"base-url": "Base URL", "key-env": "Key variable", "model": "Model"}
    labels |= {f.replace("_", "-"): spec[0] for f, spec in NUMBER_FIELDS.items()}
    match = re.match(r"--([a-z-]+)=(.*?): (.*)$", message)
    if not match or match.group(1) not in labels:
        return message
    return f"{labels[match.group(1)]} {match.group(2)}: {match.group(3)}"


def _overrides() -> dict[str, Any]:
    values: dict[str, Any] = {
        field: st.session_state.get(ROUTE + field) for field in ("key_env", "model", *NUMBER_FIELDS)
    }
    values["base_url"] = (st.session_state.get(ROUTE + "base_url") or "").strip()
    values["key_env"] = (values["key_env"] or "").strip() or None
    values["model"] = (values["model"] or "").strip() or None
    return values


def rounds_input(key: str, default: int) -> int:
    """How many times each task runs."""
    st.session_state.setdefault(key, int(default))
    return int(
        st.number_input(
            "Rounds",
            min_value=1,
            max_value=100,
            step=1,
            key=key,
            help="How many times each task runs; 2 is the least that can show a difference.",
        )
    )


# --- preflight ----------------------------------------------------------------------------------


def _route_token(choice: RouteChoice) -> str:
    payload = json.dumps([choice.profile.model_dump(mode="json"), choice.fingerprint], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def check_button(choice: RouteChoice | None, where: str) -> None:
    """'Check route': one minimal completion through the route, and the analyzer's diagnosis."""
    if st.button(
        "Check route",
        key=f"{where}.check",
        disabled=choice is None,
        icon=":material/network_check:",
        help="Sends one tiny chat completion through this route and says what came back.",
    ):
        from analyzer.runner import check_route

        assert choice is not None
        with st.spinner("Checking the route…"):
            try:
                diagnosis = check_route(choice.profile, api_key=choice.api_key)
                shown = {
                    "ok": diagnosis.ok,
                    "headline": diagnosis.headline,
                    "fix": diagnosis.fix,
                    "lines": diagnosis.lines(),
                }
            except RerunLensError as exc:
                shown = {"ok": False, "headline": exc.message, "fix": None, "lines": []}
            except Exception as exc:  # noqa: BLE001 - a page shows one line, never a traceback
                shown = {"ok": False, "headline": f"check failed ({type(exc).__name__})", "fix": None}
        st.session_state[DIAGNOSIS] = {"route": _route_token(choice), **shown}
    shown = st.session_state.get(DIAGNOSIS)
    if not shown or choice is None or shown.get("route") != _route_token(choice):
        return
    if shown["ok"]:
        st.success(safe(f"Route works: {shown['headline']}"), icon=":material/check_circle:")
    else:
        fix = f" Fix: {shown['fix']}" if shown.get("fix") else ""
        st.error(safe(f"Route check failed: {shown['headline']}.{fix}"), icon=":material/error:")
    if shown.get("lines"):
        st.code("\n".join(shown["lines"]), language=None)


# --- jobs ---------------------------------------------------------------------------------------


@st.cache_data(show_spinner="Comparing before and after…", max_entries=32)
def before_after(runs: str, job_id: str, key: str, stamp: str) -> pd.DataFrame:
    """The analyzer's before/after of a finished re-run (cached per job, key and file versions)."""
    del stamp  # cache key only
    return get_manager(runs).before_after(job_id, key)


def job_files_stamp(status: JobStatus) -> str:
    """Modification times of a job's parent and output: a changed file recomputes the before/after."""
    stamps = []
    for path in (status.parent, status.out):
        try:
            stamps.append(str(Path(path).stat().st_mtime_ns) if path else "-")
        except OSError:
            stamps.append("missing")
    return ":".join(stamps)


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
                on_click=mgr.cancel,
                args=(job.job_id,),
                help="Stops after the results in flight; they stay in the journal so the run can resume.",
            )

    progress()
    status = mgr.status(job.job_id) or job
    if status.state in ("cancelled", "interrupted"):
        _resume(status, api_key)
    elif status.state == "failed":
        st.error(data.escape(f"The {noun} failed: {status.error or 'no reason recorded'}"))
    return status


def _progress_lines(status: JobStatus, noun: str) -> None:
    done = f"{status.done:,} / {status.total:,}"
    state = {
        "running": f"{noun.capitalize()} running",
        "done": f"{noun.capitalize()} finished",
        "cancelled": f"{noun.capitalize()} cancelled",
        "interrupted": f"{noun.capitalize()} interrupted (its server process stopped)",
        "failed": f"{noun.capitalize()} failed",
    }[status.state]
    st.progress(min(status.fraction, 1.0), text=f"{state} · {done} results")
    cols = st.columns(4)
    cols[0].metric("Results", done)
    cols[1].metric("Tokens", f"{status.tokens:,}")
    cols[2].metric("Retries", f"{status.retries:,}")
    cols[3].metric("Errored results", f"{status.errors:,}")
    where = "the built-in simulator" if status.simulator else (status.profile.get("base_url") or "")
    st.caption(
        f"Job {status.job_id} · {len(status.task_ids)} tasks x {status.rounds} rounds · {where} · "
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
            st.error(data.escape(exc.message))
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
        st.query_params["focus"] = load_path(path).log.display_label(Path(rel).stem)
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


# --- task files -----------------------------------------------------------------------------------


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


def store_upload(name: str, content: bytes) -> Path:
    """Keep an uploaded task file in the runs folder's state folder, so a job can read (and resume) it.

    Task files hold prompts, never keys. The name carries a content hash: the same upload is kept once.
    """
    load_tasks_bytes(content, name)  # raises the one-line error before anything is written
    digest = hashlib.sha256(content).hexdigest()[:12]
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in Path(name).stem)[:60]
    target = data.runs_dir() / ".rerunlens" / "tasks" / f"{stem}-{digest}.json"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, content.decode("utf-8-sig"))
    return target


def store_log_upload(name: str, content: bytes) -> Path:
    """Keep an uploaded log in the runs folder under a free name (an existing file is never replaced)."""
    from analyzer.loader import load_bytes

    load_bytes(content, name)  # raises the one-line error before anything is written
    folder = data.runs_dir()
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in Path(name).name.removesuffix(".json"))
    target, n = folder / f"{stem}.json", 2
    while target.exists():
        target, n = folder / f"{stem}-upload-{n}.json", n + 1
    write_text_atomic(target, content.decode("utf-8-sig"))
    return target


def task_file_picker(where: str, *, label: str, default_sample: bool) -> tuple[Path | None, list[TaskSpec]]:
    """Upload a task file or pick one from the runs folder; returns its path and tasks (or None, [])."""
    upload = st.file_uploader(
        f"{label}: upload a task file",
        type=["json"],
        key=f"{where}.tasks_upload",
        help='A JSON list of {"task_id", "prompt", "max_tokens"?, "expected"?}.',
        max_upload_size=16,
    )
    if upload is not None:
        try:
            path = store_upload(upload.name, upload.getvalue())
            return path, read_task_file(str(path), path.stat().st_mtime_ns)
        except RerunLensError as exc:
            st.error(data.escape(exc.message), icon=":material/error:")
            return None, []
    files = task_files(str(data.runs_dir()))
    names = {f: task_file_name(f) for f in files}
    options = ["", *files]
    if default_sample and str(SAMPLE_TASKS) in files:
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
        st.error(data.escape(getattr(exc, "message", f"{chosen}: cannot read")), icon=":material/error:")
        return None, []


def task_file_name(path: str) -> str:
    """How a task file is named on the page: relative to the runs folder, or the shipped sample."""
    rel = relative_to_runs(path)
    if rel is not None:
        return rel
    return f"{Path(path).name} (shipped sample)" if Path(path) == SAMPLE_TASKS else Path(path).name


def one_line_error(exc: Exception) -> str:
    """The analyzer's one-line message, or the error's type for anything unexpected."""
    return exc.message if isinstance(exc, RerunLensError) else f"unexpected {type(exc).__name__}"
