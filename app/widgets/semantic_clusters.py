"""The Tasks page's semantic clusters: each answer beside its cluster's representative and their
similarity, with the threshold, so a reader can see why answers were joined."""

from __future__ import annotations

import streamlit as st

from analyzer.analysis import Analysis
from app import data, fmt

COLUMNS = {
    "cluster": st.column_config.NumberColumn("cluster", help="0 is the largest."),
    "representative": st.column_config.TextColumn(
        "representative", help="The cluster's most frequent answer."
    ),
    "answer": st.column_config.TextColumn("answer", help="A distinct answer (normalized)."),
    "similarity": st.column_config.NumberColumn(
        "similarity",
        help="To the representative: 1 when every word of the shorter is in the longer.",
        format="%.2f",
    ),
    "results": st.column_config.NumberColumn("results", help="Rounds that gave this answer."),
    "kept_apart_by": st.column_config.TextColumn(
        "kept apart by", help="What kept a cluster's representative from the nearest other one."
    ),
}


JUDGED = {
    "cluster": st.column_config.NumberColumn("cluster", help="In the order the clusters were made."),
    "representative": st.column_config.TextColumn(
        "representative", help="The answer the others were put to."
    ),
    "answer": st.column_config.TextColumn("answer", help="A distinct answer (normalized)."),
    "results": st.column_config.NumberColumn("results", help="Rounds that gave this answer."),
    "verdict": st.column_config.TextColumn(
        "verdict", help="The judge's verdict joining it to the representative."
    ),
    "reason": st.column_config.TextColumn("reason", help="The judge's one-line reason."),
}


def render(analysis: Analysis, task_id: str) -> None:
    """The members table under the semantic or judge key; nothing under another key."""
    if analysis.key == "judge":
        _judged(analysis, task_id)
        return
    if analysis.key != "semantic" or analysis.semantic is None:
        return
    st.markdown(
        f"**Semantic clusters** · similarity threshold {analysis.semantic.threshold:.2f} "
        f"({analysis.semantic.across():.2f} across languages; change it in the sidebar)"
    )
    members = data.semantic_members_of(analysis, task_id)
    if isinstance(members, str):
        st.error(members)
        return
    st.dataframe(members, placeholder=fmt.NONE, column_config=COLUMNS, hide_index=True, key="tasks.semantic")


def _judged(analysis: Analysis, task_id: str) -> None:
    """Each answer joined to a representative with the judge's verdict and reason."""
    model = getattr(analysis.semantic, "model", "the judge")
    st.markdown(f"**Judge clusters** · judged by {model} (verdicts read back from the cache)")
    members = data.judged_members_of(analysis, task_id)
    if isinstance(members, str):
        st.error(members)
        return
    st.dataframe(members, placeholder=fmt.NONE, column_config=JUDGED, hide_index=True, key="tasks.judged")
