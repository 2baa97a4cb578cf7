"""The History view's two figures: the task x run heat-map with the change points marked, and one
figure over the runs with its interval and trend line. They draw the analyzer's frames; they compute
nothing."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from analyzer.history.series import CELL_STATES

STATE_COLORS = ("#2e7d32", "#f9a825", "#c62828", "#e0e0e0")
"""consistent, inconsistent, errored, absent."""


def heat_map(matrix: pd.DataFrame, marks: list[tuple[str, str]]) -> go.Figure:
    """One cell per task and run, coloured by state; a dashed line before each change point's run."""
    scale = []
    for i, color in enumerate(STATE_COLORS):
        scale += [(i / len(STATE_COLORS), color), ((i + 1) / len(STATE_COLORS), color)]
    fig = go.Figure(
        go.Heatmap(
            z=matrix.to_numpy(),
            x=[str(c) for c in matrix.columns],
            y=[str(t) for t in matrix.index],
            zmin=-0.5,
            zmax=len(CELL_STATES) - 0.5,
            colorscale=scale,
            hovertemplate="task %{y}<br>run %{x}<extra></extra>",
            colorbar={"tickvals": list(range(len(CELL_STATES))), "ticktext": list(CELL_STATES), "title": ""},
        )
    )
    position = {name: i for i, name in enumerate(matrix.columns)}
    for run, text in marks:
        fig.add_vline(x=position[run] - 0.5, line_dash="dash", line_color="#1565c0")
        fig.add_annotation(
            x=position[run] - 0.5,
            y=1.0,
            yref="paper",
            text=run,
            showarrow=False,
            yanchor="bottom",
            hovertext=text,
        )
    fig.update_xaxes(type="category", nticks=12)
    fig.update_yaxes(autorange="reversed", showticklabels=matrix.shape[0] <= 60)
    fig.update_layout(
        height=min(900, 160 + 14 * matrix.shape[0]), margin={"l": 10, "r": 10, "t": 30, "b": 10}
    )
    return fig


def over_runs(series: pd.DataFrame, name: str) -> go.Figure:
    """The figure per run (points), its interval where known (a band), and the trend's line."""
    x = series["run"].tolist()
    fig = go.Figure()
    if series["low"].notna().any():
        fig.add_trace(
            go.Scatter(
                x=x, y=series["high"], mode="lines", line={"width": 0}, showlegend=False, hoverinfo="skip"
            )
        )
        fig.add_trace(
            go.Scatter(x=x, y=series["low"], mode="lines", line={"width": 0}, fill="tonexty",
                       fillcolor="rgba(21,101,192,0.15)", name="95 % interval", hoverinfo="skip")
        )  # fmt: skip
    fig.add_trace(go.Scatter(x=x, y=series["value"].astype(float), mode="markers+lines", name=name))
    if series["trend"].notna().any():
        fig.add_trace(
            go.Scatter(x=x, y=series["trend"], mode="lines", line={"dash": "dot"}, name="trend (Theil-Sen)")
        )
    fig.update_layout(height=320, margin={"l": 10, "r": 10, "t": 30, "b": 10}, yaxis_title=name)
    return fig
