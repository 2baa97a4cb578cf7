"""The sidebar: which logs are open (runs folder and uploads), the answer key, the focused group; every
choice mirrored into the URL. Reads and analyses through `app.data`."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from analyzer.formats import format_list
from analyzer.log.loader import MAX_UPLOAD_BYTES
from analyzer.metrics.answer_keys import ANSWER_KEYS, answer_key
from analyzer.metrics.semantic import CROSS_LANGUAGE_GAP, DEFAULT_SEMANTIC_THRESHOLD
from analyzer.safety.scrub import one_line
from app import data, log_folders, url_state
from app.data import (
    FOCUS,
    FOCUS_SOURCE,
    KEY,
    LABEL,
    LOGS,
    SEEN_UPLOADS,
    SEMANTIC_T,
    UPLOADS,
    Selection,
    close_upload,
    current,
    file_source,
    folder_logs,
    folder_problems,
    keep_uploads,
    note_uploader,
    opened_uploads,
    unique_logs,
    upload_sources,
)
from app.log_folders import RUNS_DIR_ENV, runs_dir
from app.widgets.messages import escape, inline_code

KEY_HELP = (
    "What counts as the same answer: exact (surrounding white space ignored), normalized (case, "
    "white space and punctuation at either end ignored), fuzzy (normalized answers that are nearly "
    "equal), actions (the same tool calls with the same arguments, for agent logs with trajectories), "
    "semantic (the same meaning, in English, Chinese and other languages: sentence embeddings with "
    "guards on negation, numbers, dates and units; needs pip install 'rerunlens[semantic]'), "
    "judge (a chat model on your own route says whether two answers to the task's prompt say the same "
    "thing; asked only after you confirm)."
)

LOGS_BOX = "sidebar.logs_box"
KEY_BOX = "sidebar.key_box"
FOCUS_BOX = "sidebar.focus_box"
"""The popovers' keys: the label says what is chosen, the key keeps a popover open while it changes."""
FOCUS_LABEL = "Log shown in single-log views"
LOGS_LABEL = "Your runs and the samples"
SHORT = 34
"""Characters of a log's name on a popover's button (the whole name is in the popover and on hover)."""


def render() -> Selection:
    """Pick logs (runs folder and uploads), the answer key and the focused group; mirror to the URL.

    Each choice sits in a popover labelled with what is chosen: a widget's content is drawn only when
    its popover opens, and a radio, multiselect or selectbox drawn on every page load cost each view
    about a third of a bare Streamlit page (BENCHMARKS.md, "Session 10")."""
    folder = runs_dir()
    available = folder_logs(str(folder))
    with st.sidebar:
        st.subheader("Run logs")
        url_state.seed_kept(
            LOGS,
            "log",
            log_folders.default_pick(available),
            lambda raw: unique_logs([r for r in raw if r in available]) or available[:1],
        )
        url_state.set_kept(LOGS, unique_logs([r for r in st.session_state[LOGS] if r in available]))
        # the URL is rewritten to the logs found below, so a name not found shows its note once
        _not_found_note([r for r in st.query_params.get_all("log") if r not in available], available)
        with st.popover(
            _logs_label(st.session_state[LOGS]), icon=":material/folder_open:", width="stretch", key=LOGS_BOX
        ):
            _log_picker(folder, available)
        _unreadable_note(folder_problems(str(folder)))
        with st.popover(_uploads_label(), icon=":material/upload:", width="stretch"):
            _uploader()
        url_state.mirror_to_url("log", st.session_state[LOGS])

        url_state.seed_kept(KEY, "key", "exact", lambda raw: raw[-1] if raw[-1] in ANSWER_KEYS else "exact")
        with st.popover(_key_label(), icon=":material/rule:", width="stretch", key=KEY_BOX):
            st.radio(
                "Answer key",
                ANSWER_KEYS,
                index=ANSWER_KEYS.index(st.session_state[KEY]),
                key=url_state.widget_key(KEY),
                on_change=url_state.keep_widget_value,
                args=(KEY,),
                horizontal=True,
                help=KEY_HELP,
            )
            semantic_control()
            judge_control()
        url_state.mirror_to_url("key", st.session_state[KEY])

        fresh = _to_focus()
        selection = current()
        if selection.groups:
            with st.popover("Group labels", icon=":material/label:", width="stretch"):
                for g in selection.groups:
                    auto = g.loaded.log.display_label(Path(g.source).stem)
                    st.text_input(escape(g.source), key=LABEL + g.source, placeholder=auto, max_chars=80)
            selection = current()
        selection = _focus_picker(selection, fresh)
    show_problems(selection)
    return selection


def _not_found_note(missing: list[str], available: list[str]) -> None:
    """One line for the logs a link names that are neither in the runs folder nor samples, so a link
    to a missing log never shows another one without a word."""
    if not missing:
        return
    names = ", ".join(one_line(name, SHORT * 2) for name in missing[:3])
    names += " and more" if missing[3:] else ""
    samples = [log_folders.SAMPLE_PREFIX + m for m in missing if log_folders.SAMPLE_PREFIX + m in available]
    hint = f" (the sample is {samples[0]})" if samples else ""
    st.warning(
        escape(f"The link names {names}, not in your runs folder or the samples{hint}."),
        icon=":material/link_off:",
    )


def _logs_label(picked: list[str]) -> str:
    """The log picker's button: the one open log's file name, or how many are open."""
    if not picked:
        return "Pick logs"
    if len(picked) == 1:
        return f"Log: {escape(one_line(Path(picked[0]).name, SHORT))}"
    return f"{len(picked)} logs open"


def _log_picker(folder: Path, available: list[str]) -> None:
    """The multiselect of the runs folder's logs and the samples, and where new logs are saved."""
    st.multiselect(
        LOGS_LABEL,
        available,
        default=st.session_state[LOGS],
        key=url_state.widget_key(LOGS),
        on_change=url_state.keep_widget_value,
        args=(LOGS,),
        placeholder="No log picked" if available else "No logs yet",
        help=f"Your runs folder: {escape(folder)} (set with `-- --runs-dir DIR` or ${RUNS_DIR_ENV}); "
        "the shipped examples are listed as sample_runs/… and are never written. The Runs page lists "
        "them all with their date and headline.",
    )
    st.caption(
        f"Your runs: `{inline_code(str(folder))}`"
        + ("" if folder.is_dir() else " (created on the first save)")
        + " · re-runs, new runs and copied uploads are saved there; `sample_runs/` are read-only."
    )


def _key_label() -> str:
    """The answer key's button: the key in use (and the semantic key's threshold)."""
    key = answer_key(st.session_state.get(KEY))
    if key == "judge":
        return f"Answer key: judge, {data.the_judge().model}"
    if key == "semantic":
        return f"Answer key: semantic, {st.session_state.get(SEMANTIC_T, DEFAULT_SEMANTIC_THRESHOLD):.2f}"
    return f"Answer key: {key}"


def _focus_picker(selection: Selection, fresh: list[str]) -> Selection:
    """With several logs open, which one the single-log views show (a new upload or a log just opened
    takes it); mirrored to the URL."""
    labels = [g.label for g in selection.groups]
    if len(labels) < 2:
        url_state.mirror_to_url("focus", None)
        return selection
    url_state.seed_kept(FOCUS, "focus", labels[0], lambda raw: raw[-1] if raw[-1] in labels else labels[0])
    if st.session_state[FOCUS] not in labels:
        url_state.set_kept(FOCUS, labels[0])
    new = [g.label for g in selection.groups if file_source(g.source) in fresh]
    fresh_label = new[0] if new else None  # a file of several groups opens on its first
    if fresh_label:  # a new upload opens at once
        url_state.set_kept(FOCUS, fresh_label)
    with st.popover(
        f"Shown: {escape(one_line(st.session_state[FOCUS], SHORT))}",
        help=escape(st.session_state[FOCUS]),
        icon=":material/visibility:",
        width="stretch",
        key=FOCUS_BOX,
    ):
        st.selectbox(
            FOCUS_LABEL,
            labels,
            index=labels.index(st.session_state[FOCUS]),
            key=url_state.widget_key(FOCUS),
            on_change=url_state.keep_widget_value,
            args=(FOCUS,),
        )
    url_state.mirror_to_url("focus", st.session_state[FOCUS])
    return current()


def _uploader() -> None:
    """The drop zone for logs of any supported format, several at once."""
    st.file_uploader(
        "Log files",
        type=["json", "eval", "zip"],
        accept_multiple_files=True,
        key=UPLOADS,
        on_change=keep_uploads,
        max_upload_size=MAX_UPLOAD_BYTES // 2**20,
        help=f"Drop one or several altk_runs.json files (or logs of {format_list()}; AppWorld "
        "rounds are one experiment folder each); each opens as its own experiment group.",
    )
    note_uploader()
    in_widget = {u.file_id for u in st.session_state.get(UPLOADS) or []}
    for upload in opened_uploads():
        if upload.file_id not in in_widget:  # dropped on another page: still open until closed here
            st.button(
                f"Close {escape(one_line(upload.name, SHORT))}",
                key=f"sidebar.close_upload.{upload.file_id}",
                icon=":material/close:",
                on_click=close_upload,
                args=(upload.file_id,),
            )


def _uploads_label() -> str:
    """The upload popover's button: how many uploads are open (they stay open across pages)."""
    count = len(opened_uploads())
    return f"Uploads: {count} open" if count else "Upload logs"


def _to_focus() -> list[str]:
    """Sources asking for the focus: uploads not seen before, and a log just opened (the last wins)."""
    asked = st.session_state.pop(FOCUS_SOURCE, None)
    uploads = opened_uploads()
    seen = set(st.session_state.get(SEEN_UPLOADS) or [])
    sources = upload_sources([u.name for u in uploads])
    fresh = [source for u, source in zip(uploads, sources, strict=True) if u.file_id not in seen]
    st.session_state[SEEN_UPLOADS] = [u.file_id for u in uploads]
    return fresh + ([asked] if asked else [])


def show_problems(selection: Selection) -> None:
    """One line per log that could not be opened; the other logs keep working."""
    for problem in selection.problems:
        st.error(escape(problem.message), icon=":material/warning:")


def _unreadable_note(problems: list[str], shown: int = 3) -> None:
    """Say which files in the runs folder look like logs but cannot be read (nothing when none)."""
    if not problems:
        return
    lines = [f"- {escape(p)}" for p in problems[:shown]]
    if len(problems) > shown:
        lines.append(f"- and {len(problems) - shown} more")
    one = len(problems) == 1
    st.warning(
        f"{len(problems)} file{'' if one else 's'} in your runs folder {'is' if one else 'are'} named like "
        f"a log but cannot be read, so {'it is' if one else 'they are'} not listed:\n" + "\n".join(lines)
    )


def judge_control() -> None:
    """Under the judge key: which model judges, and the button that lets it be asked (each log
    shows the most calls and tokens it can cost until then)."""
    if answer_key(st.session_state.get(KEY)) != "judge":
        return
    st.caption(
        f"The judge: {data.the_judge().model} on your own route (the built-in simulator's judge when no "
        "base URL is set). Each open log shows the most questions and tokens it can cost; verdicts are "
        "cached, so a log judged again costs nothing."
    )
    if st.session_state.get(data.JUDGE_OK):
        st.caption("Confirmed for this session.")
    elif st.button("Ask the judge", key="sidebar.judge_confirm", icon=":material/gavel:"):
        st.session_state[data.JUDGE_OK] = True
        st.rerun()


def semantic_control() -> None:
    """The semantic key's threshold, shown and changeable (only under that key)."""
    if answer_key(st.session_state.get(KEY)) != "semantic":
        return
    st.session_state.setdefault(SEMANTIC_T, DEFAULT_SEMANTIC_THRESHOLD)
    st.slider(
        "Similarity threshold",
        min_value=0.30,
        max_value=0.95,
        step=0.05,
        key=SEMANTIC_T,
        help="Two answers that agree on negation, numbers, dates and units are one when their "
        f"similarity reaches this (default {DEFAULT_SEMANTIC_THRESHOLD:.2f}, chosen on labelled "
        f"answers; {CROSS_LANGUAGE_GAP:.2f} lower between Chinese and English; see docs/metrics.md).",
    )
