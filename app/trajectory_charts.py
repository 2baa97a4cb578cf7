"""Plotly figures for trajectories: the divergence tree of one task and the log-wide histogram of
first-divergence steps. They draw the analyzer's frames (`analyzer.metrics.divergence`,
`analyzer.metrics.trajectories`); the tree's layout comes from the analyzer too."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from analyzer.metrics.trajectories import END_LABEL
from app.charts import CLUSTER_COLORS, _layout

END_COLOR = "#7f7f7f"
ALIGNED = {"l": 70, "r": 20, "t": 40, "b": 10}
"""Fixed margins shared by the tree and the uncertainty strip, so their step axes line up."""
CALL_CHARS = 120
CALL_AXIS = "tool call (1 = the first)"


def call_ticks(last: int) -> dict[str, object]:
    """The analyzer's 0-based tool-call steps labelled as people count them: 1 for the first call."""
    every = 1 if last <= 20 else 5
    values = list(range(0, last + 1, every))
    return {"tickmode": "array", "tickvals": values, "ticktext": [str(v + 1) for v in values]}


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _hover(row: pd.Series, total: int) -> str:
    call = row["call"] if len(row["call"]) <= CALL_CHARS else row["call"][:CALL_CHARS] + " …"
    rounds = ", ".join(str(r) for r in row["rounds"])
    return f"tool call {row['step'] + 1}<br>{_escape(call)}<br>rounds {rounds} ({row['n_rounds']} of {total})"


def _texts(part: pd.DataFrame) -> list[str]:
    """Labels where they help: the call at a branch point, the rounds at an end."""
    out = []
    for name, label, branch, rounds in zip(
        part["name"], part["label"], part["branch"], part["rounds"], strict=True
    ):
        if name == END_LABEL:
            out.append(" rounds " + ", ".join(str(r) for r in rounds))
        else:
            out.append(_escape(label) if branch else "")
    return out


def divergence_tree(tree: pd.DataFrame, first_divergence: int | None, total_rounds: int) -> go.Figure:
    """Rounds merged on shared call prefixes: x is the tool-call step, each branch a lane; lines get
    thicker with the rounds that share them, markers are coloured by tool, grey marks the end."""
    fig = go.Figure()
    lane = dict(zip(tree["node"], tree["lane"], strict=True))
    step = dict(zip(tree["node"], tree["step"], strict=True))
    edges = tree[tree["parent"] >= 0]
    for n, group in edges.groupby("n_rounds", sort=True):
        xs: list[float | None] = []
        ys: list[float | None] = []
        for parent, child in zip(group["parent"], group["node"], strict=True):
            xs += [step[parent], step[child], None]
            ys += [lane[parent], lane[child], None]
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line={"width": 1.5 + 6 * n / max(total_rounds, 1), "color": "#9aa5b1"},
                hoverinfo="skip",
                showlegend=False,
            )
        )
    names = [n for n in dict.fromkeys(tree["name"]) if n != END_LABEL]
    for i, name in enumerate([*names, END_LABEL]):
        part = tree[tree["name"] == name]
        fig.add_trace(
            go.Scatter(
                x=part["step"],
                y=part["lane"],
                mode="markers+text",
                name="end of calls" if name == END_LABEL else _escape(name),
                marker={
                    "size": 7 + 10 * part["n_rounds"] / max(total_rounds, 1),
                    "color": END_COLOR if name == END_LABEL else CLUSTER_COLORS[i % len(CLUSTER_COLORS)],
                    "symbol": "x" if name == END_LABEL else "circle",
                },
                text=_texts(part),
                textposition=[
                    "middle right" if name == END_LABEL else ("top center" if s % 2 else "bottom center")
                    for s in part["step"]
                ],
                hovertext=[_hover(r, total_rounds) for _, r in part.iterrows()],
                hoverinfo="text",
            )
        )
    if first_divergence is not None:
        fig.add_vline(
            x=first_divergence - 0.5,
            line_dash="dash",
            annotation_text=f"part at tool call {first_divergence + 1}",
            annotation_position="bottom left",
        )
    lanes = int(tree["lane"].max()) + 1 if len(tree) else 1
    fig.update_yaxes(range=[lanes - 0.4, -0.8], showticklabels=False, zeroline=False, showgrid=False)
    last = int(tree["step"].max()) if len(tree) else 0
    fig.update_xaxes(zeroline=False, range=[-0.5, last + 1.5 + last / 8], **call_ticks(last))
    title = "Divergence tree: rounds merged while they made the same calls"
    fig = _layout(fig, title, CALL_AXIS, "", height=min(900, 190 + 34 * lanes))
    fig.update_layout(margin=ALIGNED, legend={"orientation": "h", "y": -0.3, "x": 0})
    fig.update_yaxes(automargin=False)
    return fig


def divergence_histogram(counts: pd.DataFrame) -> go.Figure:
    """Tasks by the step where their rounds first part ways; "same calls": rounds never did."""
    colors = [END_COLOR if label == "same calls" else CLUSTER_COLORS[0] for label in counts["label"]]
    shown = [label if label == "same calls" else str(int(label) + 1) for label in counts["label"]]
    fig = go.Figure(go.Bar(x=shown, y=counts["tasks"], marker_color=colors))
    fig.update_xaxes(type="category")
    fig.update_yaxes(dtick=1 if counts["tasks"].max() <= 10 else None, rangemode="tozero")
    return _layout(fig, "Where the rounds part ways", "first divergence (tool call, 1 = the first)", "tasks")


FLAG_COLOR = "#d62728"


def uncertainty_strip(
    scores: pd.DataFrame,
    last_step: int,
    title: str = "Step uncertainty: each step resampled on one pinned route (red: flagged)",
) -> go.Figure:
    """Per-step uncertainty from a resample (x: the tool-call step, as on the divergence tree), with
    its 95% bootstrap interval where there is one; flagged steps in red."""
    u = scores["uncertainty"].astype(float)
    fig = go.Figure(
        go.Bar(
            x=scores["tool_step"],
            y=u,
            marker_color=[FLAG_COLOR if f else CLUSTER_COLORS[0] for f in scores["flagged"]],
            error_y={
                "type": "data",
                "symmetric": False,
                "array": (scores["high"].astype(float) - u).clip(lower=0),
                "arrayminus": (u - scores["low"].astype(float)).clip(lower=0),
            },
            hovertext=[
                f"tool call {t + 1} (assistant step {s})<br>recorded: {_escape(str(r))[:CALL_CHARS]}<br>"
                f"{n} samples, {a} distinct actions, uncertainty {v:.2f}"
                for t, s, r, n, a, v in zip(
                    scores["tool_step"],
                    scores["step"],
                    scores["recorded"],
                    scores["samples"],
                    scores["actions"],
                    u,
                    strict=True,
                )
            ],
            hoverinfo="text",
        )
    )
    fig.add_hline(y=0.2, line_dash="dot", annotation_text="flag at 0.2", annotation_position="top left")
    fig.update_yaxes(range=[0, 1])
    fig.update_xaxes(range=[-0.5, last_step + 1.5 + last_step / 8], **call_ticks(last_step))
    fig = _layout(fig, title, CALL_AXIS, "1 - mean similarity", height=240)
    fig.update_layout(margin=ALIGNED)
    fig.update_yaxes(automargin=False)
    return fig
