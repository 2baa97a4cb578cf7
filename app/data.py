"""Where the dashboard's data comes from: the runs folder, uploads, and the cached analyzer calls.

The sidebar that picks them is `app.sidebar`, the URL mirroring `app.url_state`, markdown-safe text
`app.widgets.messages`.

Everything cached lives here; the analyzer never knows about caching. Logs and analyses are cached
with `st.cache_resource`, not `st.cache_data`: they are large and read-only (the analyzer's frames
are for reading; views and charts copy before changing anything), and `cache_data` would pickle and
unpickle a 1,000 x 10 log and its analysis on every rerun (about 2 s), twice the 1 s
target for a cached render.

Session state holds only ids, selections and the uploads kept open (file names, the answer key, the
focused label, typed labels), namespaced `src.*`; the first three are mirrored into the URL query
(`log`, `key`, `focus`) so a view can be shared and reloaded.
"""

from __future__ import annotations

import contextlib
import json
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from analyzer.analysis import Analysis, analyze
from analyzer.errors import RerunLensError
from analyzer.history import HistoryRequest, HistoryResult, load_history
from analyzer.importers import load_any, load_any_bytes
from analyzer.importers.experiments import experiment_groups
from analyzer.importers.stamp import source_stamp
from analyzer.log.frames import results_frame
from analyzer.log.loader import LoadedLog
from analyzer.log.model import RunLog
from analyzer.log.redaction import shown_text
from analyzer.log.table import has_trajectories
from analyzer.metrics.answer_keys import AnswerKey, answer_key
from analyzer.metrics.answers import answer_keys
from analyzer.metrics.judge import JudgeOptions, distinct_by_task, judge_plan, judged_members, task_prompts
from analyzer.metrics.semantic import DEFAULT_SEMANTIC_THRESHOLD, SemanticOptions, semantic_members
from analyzer.report.finding import Finding
from analyzer.report.finding import finding as finding_of
from analyzer.report.html import ReportEntry, render_report_html
from analyzer.report.runs_table import ListedLog
from analyzer.runner.parent_route import parent_route_path
from analyzer.verdicts.before_after import compare_files
from app import log_folders
from app.log_folders import runs_dir

if TYPE_CHECKING:
    from analyzer.runner.judge import RouteJudge

ROOT = log_folders.ROOT

# Session-state keys (ids and selections only).
LOGS = "src.logs"
UPLOADS = "src.uploads"  # the uploader widget's value (the frontend may drop it on a page change)
OPENED_UPLOADS = "src.opened_uploads"  # the uploads kept open: only the user closes one
UPLOADER_LAST = "src.uploader_last"  # upload ids the uploader held at the end of the last run
KEY = "src.answer_key"
SEMANTIC_T = "src.semantic_threshold"
JUDGE_OK = "src.judge_confirmed"
"""Set by the sidebar's confirm button: the judge may be asked (for this session)."""
FOCUS = "src.focus"
LABEL = "src.label."  # + source: a label the user typed for that group
SEEN_UPLOADS = "src.seen_uploads"  # upload file ids already opened once
FOCUS_SOURCE = "src.focus_source"  # a log to focus on the next run, by source (labels may repeat)
UPLOAD_SUFFIX = " (upload)"  # an uploaded log's source: "<file name> (upload)"


@dataclass(frozen=True)
class Group:
    """One open log: an experiment group with its label, its source and the analyzer's results."""

    label: str
    source: str
    loaded: LoadedLog
    analysis: Analysis


@dataclass(frozen=True)
class Problem:
    """A log that could not be opened: which file, and the analyzer's one-line message."""

    source: str
    message: str


@dataclass(frozen=True)
class Selection:
    """What the sidebar picked: open groups, files that failed, the answer key, the focused group."""

    groups: list[Group] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    key: AnswerKey = "exact"
    focus: Group | None = None


@st.cache_data(show_spinner=False, max_entries=64, ttl=5)
def folder_logs(folder: str) -> list[str]:
    """Logs in the runs folder (relative paths), then the samples (re-listed every few seconds)."""
    return log_folders.log_names(Path(folder))


@st.cache_data(show_spinner=False, max_entries=64, ttl=5)
def folder_problems(folder: str) -> list[str]:
    """Files in the runs folder named like logs that cannot be read, with the reason (re-checked
    every few seconds, as the list is)."""
    return log_folders.unreadable_logs(Path(folder), folder_logs(folder))


@st.cache_resource(show_spinner="Reading log…", max_entries=16)
def _read_path(path: str, stamp: str) -> LoadedLog | Problem:
    """A log read by the analyzer; keyed by the stamp of every file it reads, so an edit is re-read."""
    del stamp  # cache key only
    try:
        return load_any(path)
    except RerunLensError as exc:
        return Problem(Path(path).name, exc.message)
    except Exception as exc:  # noqa: BLE001 - one bad log must not take the other logs down
        return Problem(Path(path).name, f"{Path(path).name}: could not be read ({type(exc).__name__})")


@st.cache_resource(show_spinner="Reading upload…", max_entries=16)
def _read_upload(file_id: str, name: str, _data: bytes) -> LoadedLog | Problem:
    """An uploaded log read by the analyzer; keyed by the upload's id, not its bytes."""
    del file_id  # cache key only
    try:
        return load_any_bytes(_data, name)
    except RerunLensError as exc:
        return Problem(name, exc.message)
    except Exception as exc:  # noqa: BLE001 - one bad log must not take the other logs down
        return Problem(name, f"{name}: could not be read ({type(exc).__name__})")


@st.cache_resource(show_spinner="Analysing…", max_entries=32)
def _analyze(token: str, key: AnswerKey, threshold: float, _loaded: LoadedLog) -> Analysis | Problem:
    """The analyzer's results for one opened log under one answer key (and semantic threshold)."""
    try:
        semantic = SemanticOptions(threshold=threshold) if key == "semantic" else None
        if key == "judge":
            semantic = judge_options()
        return analyze(_loaded.log, key=key, semantic=semantic)
    except RerunLensError as exc:
        return Problem(_loaded.source, exc.message)
    except Exception as exc:  # noqa: BLE001 - one bad log must not take the other logs down
        return Problem(_loaded.source, f"{_loaded.source}: could not be analysed ({type(exc).__name__})")


def _open(token: str, source: str, loaded: LoadedLog | Problem, key: AnswerKey) -> list[Group | Problem]:
    """The log as one group, or as its experiment groups when the file compares several (a
    promptfoo eval of two providers opens in Compare, not as one run whose route changed)."""
    if isinstance(loaded, Problem):
        return [loaded]
    parts = _experiments(token, loaded)
    if parts:
        return [_open_one(f"{token}#{i}", _part_source(source, part), g, key) for i, (part, g) in parts]
    return [_open_one(token, source, loaded, key)]


PART = " · "
"""Between a file's source and one of its experiment groups: `results.json · gpt-4o`."""


def file_source(source: str) -> str:
    """The file a group's source names: `results.json` for `results.json · gpt-4o` (an upload keeps
    its ending), the source itself for a file of one group."""
    if PART not in source:
        return source
    head = source.split(PART, 1)[0]
    return head + UPLOAD_SUFFIX if source.endswith(UPLOAD_SUFFIX) else head


def file_groups(groups: list[Group], group: Group) -> list[Group]:
    """The open groups that come from `group`'s file (itself included), in file order."""
    return [g for g in groups if file_source(g.source) == file_source(group.source)]


def _part_source(source: str, part: str) -> str:
    """One experiment group's source: `file · group` (an upload keeps its ending)."""
    if source.endswith(UPLOAD_SUFFIX):
        return f"{source.removesuffix(UPLOAD_SUFFIX)}{PART}{part}{UPLOAD_SUFFIX}"
    return f"{source}{PART}{part}"


@st.cache_resource(show_spinner=False, max_entries=16)
def _experiments(token: str, _loaded: LoadedLog) -> list[tuple[int, tuple[str, LoadedLog]]]:
    """A log's experiment groups (cached per log); empty when it is one experiment."""
    del token  # cache key only
    return list(enumerate(experiment_groups(_loaded)))


def _open_one(token: str, source: str, loaded: LoadedLog, key: AnswerKey) -> Group | Problem:
    if key == "judge" and not st.session_state.get(JUDGE_OK):
        return Problem(source, f"{source}: {judge_plan_of(loaded)}; confirm it under the answer key to ask")
    threshold = semantic_threshold() if key == "semantic" else 0.0
    if key == "semantic":
        _embed_first(token, loaded, threshold)
    result = _analyze(token, key, threshold, loaded)
    if isinstance(result, Problem):
        return Problem(source, result.message)
    label = loaded.log.display_label(Path(source).stem)
    label += " (uploaded)" if source.endswith(UPLOAD_SUFFIX) else ""  # never mistaken for a saved log
    return Group(label=label, source=source, loaded=loaded, analysis=result)


def semantic_threshold() -> float:
    """The semantic key's threshold picked in the sidebar (the default until one is)."""
    value = st.session_state.get(SEMANTIC_T)
    return float(value) if isinstance(value, int | float) else DEFAULT_SEMANTIC_THRESHOLD


def _embed_first(token: str, loaded: LoadedLog, threshold: float) -> None:
    """A log's first semantic pass with a progress bar (its vectors are cached after it); once per
    log version and session, so later pages only read the cache."""
    done = st.session_state.setdefault("_semantic_embedded", set())
    if token in done:
        return
    bar = st.empty()

    def progress(embedded: int, total: int) -> None:
        bar.progress(
            embedded / total, text=f"Embedding answers for the semantic key: {embedded:,} of {total:,}"
        )

    with contextlib.suppress(RerunLensError):  # the analysis reports it as the log's problem, in one line
        answer_keys(
            results_frame(loaded.log), "semantic", semantic=SemanticOptions(threshold, progress=progress)
        )
    bar.empty()
    done.add(token)


@st.cache_resource(max_entries=1)
def the_judge() -> RouteJudge:
    """The judge of the `judge` key: your own route's model (the environment's; the simulator's
    judge when no base URL is set), never a log's."""
    from analyzer.runner.judge import JudgeRoute, RouteJudge, judge_profile  # the SDK only when judging

    return RouteJudge(judge_profile(JudgeRoute()))


def judge_options() -> JudgeOptions:
    """The judge key's options: the sidebar's judge (asked only once the sidebar confirmed)."""
    return JudgeOptions(decide=the_judge().decide, model=the_judge().name)


def judge_plan_of(loaded: LoadedLog) -> str:
    """The most judge calls and tokens one log can cost, as the sentence the CLI prints."""
    base = results_frame(loaded.log)
    groups = distinct_by_task(base["task_id"], answer_keys(base, "normalized"))
    return judge_plan(groups, task_prompts(loaded.log)).sentence(the_judge().model)


def judged_members_of(analysis: Analysis, task_id: str) -> pd.DataFrame | str:
    """One task's judge clusters (representative, answer, verdict, reason), or the one-line problem."""
    if not isinstance(analysis.semantic, JudgeOptions):
        return "not analysed with the judge key"
    try:
        return judged_members(
            analysis.results, task_id, analysis.semantic, task_prompts(analysis.log).get(str(task_id))
        )
    except RerunLensError as exc:
        return exc.message


def semantic_members_of(analysis: Analysis, task_id: str) -> pd.DataFrame | str:
    """One task's semantic clusters (representative, members, similarity), or the one-line problem."""
    if analysis.semantic is None:
        return "not analysed with the semantic key"
    try:
        return semantic_members(analysis.results, task_id, analysis.semantic)
    except RerunLensError as exc:
        return exc.message


def _unique(label: str, taken: set[str]) -> str:
    out, n = label, 2
    while out in taken:
        out, n = f"{label} ({n})", n + 1
    return out


def _with_label(group: Group, label: str) -> Group:
    return Group(label=label, source=group.source, loaded=group.loaded, analysis=group.analysis)


def unique_logs(picked: list[str]) -> list[str]:
    """The picked folder logs, each once (a shared URL may name a file twice: `?log=X&log=X`)."""
    return list(dict.fromkeys(picked))


def upload_sources(names: list[str]) -> list[str]:
    """A source per upload: `name (upload)`, and `name #2 (upload)`... when several share a name.

    Two uploads both called `altk_runs.json` (the common case) are two sources, told apart by their
    place among the uploads of that name; every source keeps the `UPLOAD_SUFFIX` ending.
    """
    total = {name: names.count(name) for name in names}
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        place = f" #{seen[name]}" if total[name] > 1 and seen[name] > 1 else ""
        out.append(f"{name}{place}{UPLOAD_SUFFIX}")
    return out


def opened_uploads() -> list[Any]:
    """The uploads kept open, in the order they came.

    The uploader widget's own value is not this: a widget drawn only inside a closed popover loses its
    value when the user moves to another page, and the upload would silently be replaced by the sample.
    `keep_uploads` (the uploader's on_change) adds what the user drops and removes what the user
    removes; only that and `close_upload` change this list.
    """
    return list(st.session_state.get(OPENED_UPLOADS) or [])


def keep_uploads() -> None:
    """The uploader changed at the user's hand: keep its new files; drop those the user removed
    from it (present at the end of the last run, gone now). Files it lost on a page change stay."""
    now = list(st.session_state.get(UPLOADS) or [])
    removed = set(st.session_state.get(UPLOADER_LAST) or []) - {u.file_id for u in now}
    kept = [u for u in opened_uploads() if u.file_id not in removed]
    known = {u.file_id for u in kept}
    st.session_state[OPENED_UPLOADS] = kept + [u for u in now if u.file_id not in known]


def note_uploader() -> None:
    """After the uploader is drawn: the ids it holds now, so the next change tells a removal apart."""
    st.session_state[UPLOADER_LAST] = [u.file_id for u in st.session_state.get(UPLOADS) or []]


def close_upload(file_id: str) -> None:
    """Close one kept upload (its button's on_click)."""
    st.session_state[OPENED_UPLOADS] = [u for u in opened_uploads() if u.file_id != file_id]


def current() -> Selection:
    """Open every picked log (cached) and return the selection; reads session state only."""
    folder = runs_dir()
    key = answer_key(st.session_state.get(KEY))
    opened: list[Group | Problem] = []
    for rel in unique_logs(st.session_state.get(LOGS) or []):
        path = log_folders.log_path(folder, rel)
        try:
            stamp = source_stamp(path)  # a folder's or a layout's every file, not just the path's time
        except OSError:
            opened.append(Problem(rel, f"{path}: no such file"))
            continue
        token = f"{path}:{stamp}"
        opened.extend(_open(token, rel, _read_path(str(path), stamp), key))
    uploads = opened_uploads()
    for upload, source in zip(uploads, upload_sources([u.name for u in uploads]), strict=True):
        loaded = _read_upload(upload.file_id, upload.name, upload.getvalue())
        opened.extend(_open(f"upload:{upload.file_id}", source, loaded, key))

    groups: list[Group] = []
    taken: set[str] = set()
    for item in opened:
        if isinstance(item, Group):
            typed = (st.session_state.get(LABEL + item.source) or "").strip()
            label = _unique(typed or item.label, taken)
            taken.add(label)
            groups.append(item if label == item.label else _with_label(item, label))
    problems = [item for item in opened if isinstance(item, Problem)]
    wanted = st.session_state.get(FOCUS)
    focus = next((g for g in groups if g.label == wanted), groups[0] if groups else None)
    return Selection(groups=groups, problems=problems, key=key, focus=focus)


# --- reading the log for display (no metrics) -------------------------------------------------


def task_prompt(log: RunLog, task_id: str) -> str | None:
    """The task's prompt where the log carries its task definitions (format 2)."""
    for spec in log.tasks or []:
        if str(spec.task_id) == task_id:
            return shown_text(spec.prompt)
    return None


def task_expected(log: RunLog, task_id: str) -> str | None:
    """What the task expects (a target, an answer, a grader's assertion) where the log records it:
    its task definition's, else its first result's; JSON for anything but text."""
    found = next((spec.expected for spec in log.tasks or [] if str(spec.task_id) == task_id), None)
    if found is None:
        found = next((r.expected for _rnd, r in log.results() if str(r.task_id) == task_id), None)
    if found is None or found == "":
        return None
    text = found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)
    return shown_text(text)


def grade_reasons(log: RunLog, task_id: str) -> dict[int, str]:
    """Why the grader failed the task's results, by round, where the log records it (promptfoo's
    grading reason: an assertion's message, or the error its code threw)."""
    out: dict[int, str] = {}
    for rnd, result in log.results():
        if str(result.task_id) == task_id and result.grade_reason:
            out[rnd] = shown_text(result.grade_reason) or ""
    return out


def trajectories(log: RunLog, task_id: str) -> dict[int, list[Any]]:
    """The task's recorded trajectory steps, by round (only rounds that recorded some).

    A log that recorded none answers from its columns: its result objects are not walked (for a
    fast-loaded log, not even built), which on a 1,000 x 10 log was most of a cached Tasks run.
    """
    if not has_trajectories(log):
        return {}
    out: dict[int, list[Any]] = {}
    for rnd, result in log.results():
        if str(result.task_id) == task_id and result.trajectory:
            out[rnd] = list(result.trajectory)
    return out


def files_stamp(*paths: str | None) -> str:
    """Modification times of files: a cache key that changes when one of them changes."""
    stamps = []
    for path in paths:
        try:
            stamps.append(str(Path(path).stat().st_mtime_ns) if path else "-")
        except OSError:
            stamps.append("missing")
    return ":".join(stamps)


@st.cache_data(show_spinner="Comparing before and after…", max_entries=32)
def rerun_before_after(
    parent: str, out: str, ids: tuple[str, ...], key: AnswerKey, stamp: str, threshold: float | None = None
) -> pd.DataFrame:
    """The analyzer's before/after of a finished re-run (cached per logs, tasks, key, semantic threshold
    and file versions)."""
    del stamp  # cache key only
    semantic = (
        SemanticOptions(threshold=threshold or DEFAULT_SEMANTIC_THRESHOLD) if key == "semantic" else None
    )
    if key == "judge":
        if not st.session_state.get(JUDGE_OK):
            raise RerunLensError("the judge key asks a model: confirm it under the answer key first")
        semantic = judge_options()
    beside = parent_route_path(out)  # the rounds on the parent's own route, when the re-run ran them
    return compare_files(parent, out, list(ids), key, semantic, beside if beside.is_file() else None)


def html_report(groups: list[Group]) -> str:
    """The analyzer's shareable HTML report of open logs (built when the download is clicked)."""
    return render_report_html([ReportEntry(g.label, g.source, g.analysis) for g in groups])


_FINDINGS: weakref.WeakKeyDictionary[Analysis, Finding] = weakref.WeakKeyDictionary()


def finding(analysis: Analysis) -> Finding:
    """The analyzer's one-sentence finding of a log (Overview's first screen), kept with its analysis."""
    found = _FINDINGS.get(analysis)
    if found is None:
        imported = analysis.log.imported_from is not None
        found = _FINDINGS[analysis] = finding_of(analysis.report(), graded_by_its_tool=imported)
    return found


def listed_logs(key: str) -> list[ListedLog]:
    """Every log the sidebar offers, read and analysed through the same caches as the open ones."""
    folder = runs_dir()
    out: list[ListedLog] = []
    for rel in folder_logs(str(folder)):
        path = log_folders.log_path(folder, rel)
        try:
            stamp = source_stamp(path)
        except OSError:
            out.append(ListedLog(rel, None, f"{path}: no such file"))
            continue
        for opened in _open(f"{path}:{stamp}", rel, _read_path(str(path), stamp), answer_key(key)):
            if isinstance(opened, Problem):
                out.append(ListedLog(rel, None, opened.message))
            else:  # a file of experiment groups: every group listed, as `file · group`
                out.append(ListedLog(opened.source, opened.analysis))
    return out


def result_json(log: RunLog, task_id: str) -> dict[int, str]:
    """The task's results as the log holds them, by round: indented JSON, secret-shaped values
    masked (read only when asked for: a fast-loaded log builds its result objects for this)."""
    return {
        rnd: shown_text(
            json.dumps(result.model_dump(mode="json", exclude_none=True), indent=2, ensure_ascii=False)
        )
        or ""
        for rnd, result in log.results()
        if str(result.task_id) == task_id
    }


@st.cache_resource(show_spinner="Reading the history…", max_entries=4, ttl=5)
def history(folder: str, task_set: str | None) -> HistoryResult | Problem:
    """The runs folder's history (new or changed logs indexed first), or why there is none."""
    try:
        return load_history(HistoryRequest([folder], task_set=task_set))
    except RerunLensError as exc:
        return Problem(folder, exc.message)
