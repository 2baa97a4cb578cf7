"""Tokens: where the tokens went, per task and per round, prompt against completion, outliers, retries."""

from __future__ import annotations

import streamlit as st

from analyzer.metrics.cost import cost_phrase
from app import charts, data, fmt
from app.widgets import figures

OUTLIER_COLUMNS = {
    "task_id": st.column_config.TextColumn("task"),
    "round": st.column_config.NumberColumn("round"),
    "total_tokens": st.column_config.NumberColumn("tokens", format="localized"),
    "task_median": st.column_config.NumberColumn("task median", format="%.0f"),
    "robust_z": st.column_config.NumberColumn("robust z", format="%.1f"),
    "direction": st.column_config.TextColumn("direction"),
}


def render(selection: data.Selection | None = None) -> None:
    """Token figures, distributions and the results that used unusually many or few tokens."""
    sel = selection or data.current()
    st.title("Tokens")
    group = sel.focus
    if group is None:
        st.info("Pick a run log in the sidebar to see its token use.")
        return
    fmt.group_caption(group, sel.key)
    analysis = group.analysis
    t = analysis.headline.tokens

    figures.row(
        [
            ("Tokens, total", fmt.count(t.total)),
            ("Per task (all rounds)", fmt.count(t.per_task_mean)),
            ("Per result", fmt.count(t.per_result_mean)),
            (
                "On retried results",
                fmt.count(t.retry_tokens),
                "Tokens of results that needed 2+ HTTP attempts.",
            ),
            ("Outliers", fmt.count(t.outliers), "Results far from their task's own runs."),
        ]
    )
    if analysis.headline.cost is not None:
        st.caption(f"Cost: {cost_phrase(analysis.headline.cost)}")
    if t.unknown_results:
        n = t.unknown_results
        st.caption(
            f"{n:,} result{'s' if n != 1 else ''} recorded no token counts; "
            "they are counted as unknown, not as zero."
        )
    if not t.known_results:
        st.info("This log records no token counts.")
        return

    left, right = st.columns(2)
    left.plotly_chart(charts.tokens_per_task(analysis.tasks), key="tokens.per_task")
    right.plotly_chart(charts.tokens_by_round(analysis.results), key="tokens.by_round")
    left, right = st.columns(2)
    left.plotly_chart(charts.prompt_vs_completion(analysis.results), key="tokens.scatter")
    rounds = [str(r) for r in t.per_round_total]
    right.plotly_chart(
        charts.named_bars(rounds, list(t.per_round_total.values()), "Tokens per round", "round", "tokens"),
        key="tokens.per_round",
    )

    st.subheader("Outliers")
    st.caption("Results whose token count is far from the same task's other runs (robust z score).")
    if analysis.token_outliers.empty:
        st.text("No outliers.")
    else:
        st.dataframe(
            analysis.token_outliers,
            placeholder=fmt.NONE,
            column_config=OUTLIER_COLUMNS,
            hide_index=True,
            key="tokens.outliers",
        )


if __name__ == "__main__":
    render()
