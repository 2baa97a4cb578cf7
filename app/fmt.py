"""Small display formatting shared by the views (numbers to text, captions, links). No metrics here."""

from __future__ import annotations

import json
import re

import streamlit as st
from streamlit.errors import StreamlitAPIException

import analyzer.numbers as numbers
from analyzer.metrics.answer_keys import AnswerKey, key_described
from analyzer.report.export import flagged_task_json, tasks_csv
from app import data, log_folders
from app.widgets.messages import escape

NONE = numbers.NONE
"""What a missing value reads, in a metric and in every table (`st.dataframe(placeholder=NONE)`),
number and text cells alike, instead of Streamlit's grey "None"."""

# One number style for every page and report: `analyzer/report/numbers.py`.
count = numbers.count
counted = numbers.counted
num = numbers.num
pp = numbers.pp
pct = numbers.pct
pp_ci = numbers.pp_ci
pct_ci = numbers.pct_ci
p_value = numbers.p_value
duration = numbers.duration
call_step = numbers.call_step


def file_stem(label: str) -> str:
    """A label made safe for a download file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-") or "rerunlens"


def group_caption(group: data.Group, key: AnswerKey) -> None:
    """Which log the view shows and under which answer key (log text escaped, never markup)."""
    if group.source.endswith(data.UPLOAD_SUFFIX):
        where = f"uploaded file {escape(group.source.removesuffix(data.UPLOAD_SUFFIX))}, not saved"
    else:
        where = f"{escape(group.source)} ({log_folders.where(group.source)})"
    h = group.analysis.headline
    shown = escape(key_described(key, h.semantic_threshold, h.judge_model))
    st.caption(f"Showing log **{escape(group.label)}** · {where} · answer key **{shown}**")


def page_link(page: str, label: str, query_params: dict[str, str | list[str]] | None = None) -> None:
    """A link to another view; a plain hint where the app runs without navigation (single-view tests)."""
    try:
        st.page_link(page, label=label, query_params=query_params)
    except StreamlitAPIException:
        st.caption(label)


def downloads(group: data.Group, prefix: str, *, report: bool) -> None:
    """The analyzer's exports: per-task CSV, flagged tasks as a task file, and the JSON report.

    The files are built only when a button is clicked. One under the other: both views draw them in
    a popover.
    """
    analysis = group.analysis
    stem = file_stem(group.label)
    st.download_button(
        "Per-task table (CSV)",
        lambda: tasks_csv(analysis),
        file_name=f"{stem}-tasks.csv",
        mime="text/csv",
        on_click="ignore",
        key=f"{prefix}.dl.csv",
    )
    st.download_button(
        "Flagged tasks (task file)",
        lambda: flagged_task_json(analysis),
        file_name=f"{stem}-flagged-tasks.json",
        mime="application/json",
        on_click="ignore",
        disabled=not analysis.headline.flagged,
        key=f"{prefix}.dl.flagged",
    )
    if report:
        st.download_button(
            "Report (JSON)",
            lambda: json.dumps(analysis.report(), indent=2, default=str),
            file_name=f"{stem}-report.json",
            mime="application/json",
            on_click="ignore",
            key=f"{prefix}.dl.report",
        )
