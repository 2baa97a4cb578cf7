"""Overview's first-screen chart: a log's tasks as one bar, split by what their answers did.

It draws the analyzer's `report.finding.Bar`s (labels and counts); it computes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from analyzer.report.finding import Bar

KIND_COLORS: dict[str, str] = {
    "consistent": "#54a24b",
    "passing": "#e45756",
    "weak": "#f2a65a",
    "untested": "#4c78a8",
}
"""Consistent green; a cause beyond chance red; a cause not beyond chance light orange; a cause
that is observed, not tested, blue."""

UNTESTED_MORE = ("#4c78a8", "#b279a2", "#9d755d", "#72b7b2", "#bab0ac")


def finding_bar(bars: Sequence[Bar]) -> go.Figure:
    """One horizontal bar of every measured task, a segment per state with its count written on it."""
    fig = go.Figure()
    untested = 0
    for bar in bars:
        color = KIND_COLORS[bar.kind] if bar.kind in KIND_COLORS else UNTESTED_MORE[-1]
        if bar.kind == "untested":
            color = UNTESTED_MORE[untested % len(UNTESTED_MORE)]
            untested += 1
        fig.add_trace(
            go.Bar(
                y=["tasks"],
                x=[bar.tasks],
                name=f"{bar.label} ({bar.tasks:,})",
                orientation="h",
                marker={"color": color},
                text=[f"{bar.tasks:,}"],
                textposition="inside",
                insidetextanchor="middle",
                hovertemplate=f"{bar.label}: %{{x:,}} tasks<extra></extra>",
            )
        )
    fig.update_layout(
        barmode="stack",
        title={"text": "Measured tasks, by what their answers did", "x": 0, "xanchor": "left"},
        height=170,
        margin={"l": 10, "r": 10, "t": 36, "b": 10},
        legend={"orientation": "h", "y": -0.3, "x": 0, "title": {"text": ""}, "traceorder": "normal"},
        showlegend=True,
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig
