"""Compare: two or more open logs side by side, the tasks that flip between them, and charts."""

from __future__ import annotations

import streamlit as st
from analyzer.compare import compare

from app import charts, data


@st.cache_data(show_spinner="Comparing…", max_entries=16)
def _compare(tokens: tuple[str, ...], _pairs: list[tuple[str, object]]):  # noqa: ANN202 - analyzer type
    """The analyzer's comparison, cached by the groups' labels, sources and the answer key."""
    del tokens  # cache key only
    return compare(_pairs)


def render(selection: data.Selection | None = None) -> None:
    """Side-by-side table, flips and bar charts for every open experiment group."""
    sel = selection or data.current()
    st.title("Compare")
    if len(sel.groups) < 2:
        st.info(
            "Open two or more logs (pick several in the sidebar or upload them) to compare experiment groups."
        )
        return
    st.caption(
        "Groups: " + " · ".join(data.escape(g.label) for g in sel.groups) + f" · answer key **{sel.key}**"
    )
    tokens = tuple(f"{g.label}|{g.source}|{id(g.loaded)}" for g in sel.groups) + (sel.key,)
    result = _compare(tokens, [(g.label, g.analysis) for g in sel.groups])

    st.subheader("Side by side")
    st.dataframe(result.table, hide_index=True, key="compare.table")

    st.subheader("Charts")
    left, right = st.columns(2)
    left.plotly_chart(
        charts.compare_bars(result.table, "answer_gap_pp", "Answer gap", "answer gap (pp)"), key="compare.gap"
    )
    if "outcome_gap_pp" in result.table and result.table["outcome_gap_pp"].notna().any():
        right.plotly_chart(
            charts.compare_bars(result.table, "outcome_gap_pp", "Outcome gap", "outcome gap (pp)"),
            key="compare.outcome",
        )
    left, right = st.columns(2)
    left.plotly_chart(
        charts.compare_bars(result.table, "tokens_total", "Tokens", "tokens (total)"), key="compare.tokens"
    )
    right.plotly_chart(
        charts.compare_bars(result.table, "retries", "Retries", "retries (extra HTTP attempts)"),
        key="compare.retries",
    )

    st.subheader("Tasks that flip")
    st.caption(
        "Tasks consistent in one group and inconsistent in another (or whose majority answer changed)."
    )
    if result.flips.empty:
        st.text("No task flips between these groups.")
    else:
        st.dataframe(result.flips, hide_index=True, key="compare.flips")


if __name__ == "__main__":
    render()
