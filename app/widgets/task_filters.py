"""The Tasks page's filters, mirrored in the URL so a link opens the same selection.

`show` (inconsistent, drifted, errored), `cause`, `clusters` (at least), `success`, `q` (task id)
and `answer` (a word in the answers). The selection itself is `analyzer.report.task_filter`'s.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analyzer.analysis import Analysis
from analyzer.report.task_filter import (
    LOG_ORDER,
    SORTS,
    STATES,
    SUCCESS,
    TaskFilter,
    cause_names,
    filter_tasks,
    order_phrase,
)
from app import url_state

SHOW = "tasks.show"
CAUSE = "tasks.cause"
CLUSTERS = "tasks.clusters_min"
SUCCESS_KEY = "tasks.success"
SEARCH = "tasks.search"
ANSWER = "tasks.answer"
SORT = "tasks.sort"
FILTERS_BOX = "tasks.filters_box"


def _states(raw: list[str]) -> list[str]:
    return [s for s in raw if s in STATES]


def _int(raw: list[str]) -> int:
    return int(raw[-1]) if raw[-1].isdigit() else 0


def filtered(analysis: Analysis) -> pd.DataFrame:
    """The filter widgets and the task-table rows they keep (with each task's `cause`)."""
    causes = cause_names(analysis)
    url_state.seed_from_url(SHOW, "show", [], _states)
    url_state.seed_from_url(CAUSE, "cause", [], lambda raw: [c for c in raw if c in causes])
    url_state.seed_from_url(CLUSTERS, "clusters", 0, _int)
    url_state.seed_from_url(
        SUCCESS_KEY, "success", SUCCESS[0], lambda raw: raw[-1] if raw[-1] in SUCCESS else SUCCESS[0]
    )
    url_state.seed_from_url(SEARCH, "q", "", lambda raw: raw[-1])
    url_state.seed_from_url(ANSWER, "answer", "", lambda raw: raw[-1])
    url_state.seed_from_url(SORT, "sort", LOG_ORDER, lambda raw: raw[-1] if raw[-1] in SORTS else LOG_ORDER)
    # The widgets' values are in the session already (seeded, or as the user left them).
    chosen = TaskFilter(
        states=tuple(st.session_state[SHOW]),
        causes=tuple(st.session_state[CAUSE]),
        min_clusters=int(st.session_state[CLUSTERS] or 0),
        success=st.session_state[SUCCESS_KEY],
        id_contains=st.session_state[SEARCH],
        answer_contains=st.session_state[ANSWER],
        sort=st.session_state[SORT],
    )
    on = chosen.active()
    # In a popover: seven widgets drawn on every load of the page cost more than the table they filter.
    said = ([f"{on} on"] if on else []) + ([chosen.sort] if chosen.sort != LOG_ORDER else [])
    with st.popover(
        f"Filter and sort ({', '.join(said)})" if said else "Filter and sort",
        icon=":material/filter_list:",
        key=FILTERS_BOX,
    ):
        _widgets(causes)
    url_state.mirror_to_url("show", list(chosen.states) or None)
    url_state.mirror_to_url("cause", list(chosen.causes) or None)
    url_state.mirror_to_url("clusters", str(chosen.min_clusters) if chosen.min_clusters else None)
    url_state.mirror_to_url("success", None if chosen.success == SUCCESS[0] else chosen.success)
    url_state.mirror_to_url("q", chosen.id_contains or None)
    url_state.mirror_to_url("answer", chosen.answer_contains or None)
    url_state.mirror_to_url("sort", None if chosen.sort == LOG_ORDER else chosen.sort)
    return filter_tasks(analysis, chosen)


def order() -> str:
    """The task table's order as a caption reads it: `in the log's order`, `most tokens first`."""
    return order_phrase(st.session_state.get(SORT, LOG_ORDER))


def _widgets(causes: list[str]) -> None:
    """The filter widgets, each bound to its session key (seeded from the URL)."""
    st.multiselect(
        "Show tasks that are",
        list(STATES),
        key=SHOW,
        format_func=lambda s: STATES[s].removesuffix(" tasks").lower(),
        placeholder="every task",
        help="Inconsistent: answers in more than one cluster. Drifted: results on more than one route. "
        "Errored: at least one result errored. Several: any of them.",
    )
    st.multiselect("Cause (from the log)", causes, key=CAUSE, placeholder="any cause", disabled=not causes)
    row = st.columns(2)
    row[0].number_input(
        "At least N answers", min_value=0, step=1, key=CLUSTERS, help="Distinct answers (clusters)."
    )
    row[1].selectbox("Success", SUCCESS, key=SUCCESS_KEY)
    left, right = st.columns(2)
    left.text_input("Task id contains", key=SEARCH, placeholder="e.g. refund")
    right.text_input("An answer contains", key=ANSWER, placeholder="e.g. 42.50")
    st.selectbox(
        "Sort by", list(SORTS), key=SORT, help="Ties keep the log's order; tasks without a value come last."
    )
