"""Compare: the open logs that share the baseline's tasks side by side, with short group names (the
full labels under the table), paired differences, charts and the tasks that flip. Which logs and
which baseline are the reader's to pick."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analyzer.report.compare_view import (
    cost_caption,
    flip_table,
    legend,
    name_legend,
    sharing,
    short_names,
    side_by_side,
)
from analyzer.verdicts.compare import Comparison, compare
from app import compare_charts, data, fmt, url_state
from app.widgets import lazy, static_table
from app.widgets.messages import escape

PICKED = "compare.logs"
BASELINE = "compare.baseline"
CHARTS = "compare.charts"
PICKER_BOX = "compare.picker_box"


def render(selection: data.Selection | None = None) -> None:
    """Pick the logs and the baseline, then the table, the differences, the charts and the flips."""
    sel = selection or data.current()
    st.title("Compare")
    if len(sel.groups) < 2:
        st.info(
            "Open two or more logs (pick several in the sidebar or upload them) to compare experiment groups."
        )
        return
    groups = _picked(sel)
    if len(groups) < 2:
        st.info("Pick at least two logs to compare.")
        return
    labels = [g.label for g in groups]
    names = short_names(labels)
    result = compare([(n, g.analysis) for n, g in zip(names, groups, strict=True)])
    st.caption(
        f"Baseline **{escape(names[0])}** · {fmt.counted(len(groups), 'group')} · answer key **{sel.key}**"
    )

    st.subheader("Side by side")
    # Read-only HTML: a dataframe here made every visit load the grid's code first (BENCHMARKS.md,
    # "Session 18"), for a handful of rows nobody sorts.
    table = side_by_side(result)
    static_table.render(table, key="compare.table", scroll=True)
    groups_legend = " · ".join(
        f"**{escape(n)}**: {escape(rest)}" if rest else f"**{escape(n)}**"
        for n, rest in name_legend(names, labels)
    )
    st.caption(f"{groups_legend}  \n{legend(table)}")
    st.caption(escape(cost_caption(names, [g.analysis.headline.cost for g in groups])))

    st.subheader("Differences beyond noise?")
    st.caption(
        f"Each group against {escape(names[0])}, paired over the tasks both measured: 95 % paired "
        "interval (the wider of a bootstrap and Newcombe's score interval) and exact McNemar p-value over "
        "the tasks that flip."
    )
    for diff in result.differences:
        st.text(diff.sentence)

    _charts(result.table, labels)
    _flips(result)


def _picked(sel: data.Selection) -> list[data.Group]:
    """The logs compared (by default the baseline and the open logs sharing its tasks), baseline first."""
    labels = [g.label for g in sel.groups]
    focus = labels.index(sel.focus.label) if sel.focus is not None else 0
    default = [labels[i] for i in sharing([g.analysis for g in sel.groups], focus)]
    url_state.seed_from_url(
        PICKED, "compare", default, lambda raw: [r for r in raw if r in labels] or default
    )
    st.session_state[PICKED] = [p for p in st.session_state[PICKED] if p in labels]
    # In a popover (its label says what is compared): the two widgets drawn on every load cost more
    # than the table, and the popover is wide enough for whole labels.
    with st.popover(_picker_label(st.session_state[PICKED]), icon=":material/tune:", key=PICKER_BOX):
        st.multiselect(
            "Logs compared",
            labels,
            key=PICKED,
            help="By default the baseline and the open logs that share at least half of its tasks.",
        )
        picked = st.session_state[PICKED]
        if picked:
            if st.session_state.get(BASELINE) not in picked:
                st.session_state[BASELINE] = picked[0]
            st.selectbox(
                "Baseline", picked, key=BASELINE, help="Every other group is compared with this one."
            )
    url_state.mirror_to_url("compare", picked if picked != default else None)
    if not picked:
        return []
    ordered = [st.session_state[BASELINE], *[p for p in picked if p != st.session_state[BASELINE]]]
    return [sel.groups[labels.index(label)] for label in ordered]


def _picker_label(picked: list[str]) -> str:
    """The picker's button: how many logs are compared, or that none is."""
    return f"Logs and baseline ({len(picked)} compared)" if picked else "Pick the logs to compare"


def _charts(table: pd.DataFrame, labels: list[str]) -> None:
    """The table's figures as bars with their intervals, in a lazy expander: four Plotly charts would
    make every visit load and draw Plotly (measured: about 1.4x a bare page each on a reload), for
    values the table above already gives. The URL keeps it open (`compare.charts`)."""
    box = lazy.section(
        "Charts: answer gap, outcome gap, tokens and retries of each group",
        CHARTS,
        icon=":material/bar_chart:",
    )
    if box is not None:
        with box:
            _draw_charts(table, labels)


def _draw_charts(table: pd.DataFrame, labels: list[str]) -> None:
    left, right = st.columns(2)
    left.plotly_chart(
        compare_charts.group_bars(table, "answer_gap_pp", labels, "Answer gap", "pp"),
        key="compare.gap",
    )
    if "outcome_gap_pp" in table and table["outcome_gap_pp"].notna().any():
        right.plotly_chart(
            compare_charts.group_bars(table, "outcome_gap_pp", labels, "Outcome gap", "pp"),
            key="compare.outcome",
        )
    left, right = st.columns(2)
    left.plotly_chart(
        compare_charts.group_bars(table, "tokens_per_task_mean", labels, "Tokens per task", "count"),
        key="compare.tokens",
    )
    right.plotly_chart(
        compare_charts.group_bars(table, "extra_attempts", labels, "Retries", "count"),
        key="compare.retries",
    )


def _flips(result: Comparison) -> None:
    st.subheader("Tasks that flip")
    st.caption(
        "Tasks consistent in one group and inconsistent in another; each group's column says whether the "
        "task is consistent there (— : fewer than two answers)."
    )
    flips = flip_table(result)
    if flips.empty:
        st.text("No task flips between these groups.")
    else:
        static_table.render(flips, key="compare.flips")


if __name__ == "__main__":
    render()
