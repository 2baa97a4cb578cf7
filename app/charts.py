"""Plotly figure builders for the views. They draw the analyzer's frames; they compute no metric.

Every figure has axis titles with units and leaves background and font colours to Streamlit's
theme (`st.plotly_chart(..., theme="streamlit")`), so it reads in the light and the dark theme.
Colours are mid-tones that keep their contrast on both backgrounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

OUTCOME_COLORS: dict[str, str] = {
    "ok": "#2ca02c",
    "rate_limited": "#ff7f0e",
    "timeout": "#9467bd",
    "server_error": "#d62728",
    "auth_error": "#8c564b",
    "not_found": "#e377c2",
    "connection_error": "#7f7f7f",
    "bad_request": "#bcbd22",
    "redirect": "#17becf",
    "too_large": "#393b79",
}
OUTCOME_LABELS: dict[str, str] = {
    "ok": "ok",
    "rate_limited": "429 rate limited",
    "timeout": "timeout",
    "server_error": "5xx server error",
    "auth_error": "401 auth error",
    "not_found": "404 not found",
    "connection_error": "connection error",
    "bad_request": "400 bad request",
    "redirect": "3xx redirect",
    "too_large": "response too large",
}
CLUSTER_COLORS: Sequence[str] = (
    "#4c78a8",
    "#f58518",
    "#e45756",
    "#72b7b2",
    "#54a24b",
    "#eeca3b",
    "#b279a2",
    "#ff9da6",
    "#9d755d",
    "#bab0ac",
)
RETRIED_COLORS = {"no retry": "#4c78a8", "retried": "#f58518"}
_MARGIN = {"l": 10, "r": 10, "t": 40, "b": 10}


def plain(values: pd.Series) -> pd.Series:
    """Log text (task ids, URLs, labels) shown literally: Plotly reads a few HTML tags in labels."""
    return (
        values.astype("string")
        .str.replace("&", "&amp;", regex=False)
        .str.replace("<", "&lt;", regex=False)
        .str.replace(">", "&gt;", regex=False)
    )


def _layout(fig: go.Figure, title: str, x: str, y: str, height: int = 360) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        height=height,
        margin=_MARGIN,
        legend={"title": {"text": ""}},
    )
    fig.update_xaxes(title_text=x)
    fig.update_yaxes(title_text=y)
    return fig


def _count_axis(fig: go.Figure, axis: str, largest: float) -> None:
    """A count axis: whole numbers only (no 0.5 steps) in round steps (1, 2 or 5 times a power of ten,
    at most about six), thousands separated, from zero."""
    step = 1
    if largest and math.isfinite(largest) and largest > 6:
        power = 10 ** math.floor(math.log10(largest / 6))
        step = next(m * power for m in (1, 2, 5, 10) if m * power >= largest / 6)
    update = fig.update_yaxes if axis == "y" else fig.update_xaxes
    update(tickformat=",d", dtick=step, rangemode="tozero")


def _log_ms_axis(fig: go.Figure, values: pd.Series) -> None:
    """A log latency axis in milliseconds with at least three labels over the data's range, minor
    ticks only between them (left to Plotly, they crowd each decade's end into a bar)."""
    low, high = float(values.min()), float(values.max())
    if not (math.isfinite(low) and math.isfinite(high)) or high <= 0:
        return
    ticks, minor, decimals = log_ticks(max(low, 1.0) / 1.2, max(high, 1.0) * 1.2)
    fig.update_xaxes(
        tickvals=ticks,
        ticktext=[f"{t:,.{decimals}f}" for t in ticks],
        minor={"tickmode": "array", "tickvals": minor, "ticks": "outside", "ticklen": 3, "showgrid": False},
    )


def log_ticks(low: float, high: float) -> tuple[list[float], list[float], int]:
    """Labelled ticks, minor ticks and the labels' decimals for a log axis over [low, high] (> 0).

    Labels at 1, 2 and 5 times each power of ten; every digit when that gives fewer than three;
    for a range narrower than that (120-150 ms), evenly spaced round values with no minor ticks.
    """
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    every = [m * 10.0**e for e in range(first, last + 1) for m in range(1, 10) if low <= m * 10.0**e <= high]
    for ticks in ([t for t in every if round(t / 10.0 ** math.floor(math.log10(t))) in (1, 2, 5)], every):
        if len(ticks) >= 3:
            return ticks, [t for t in every if t not in ticks], 0
    k = math.floor(math.log10(high - low))
    while True:  # a step of 5, 2 or 1 times 10^k, smaller until three fit (high > low: it ends)
        for m in (5, 2, 1):
            step = m * 10.0**k
            ticks = [n * step for n in range(math.ceil(low / step), math.floor(high / step) + 1)]
            if len(ticks) >= 3:
                return ticks, [], max(0, -k)
        k -= 1


def pass_k_curve(curve: pd.DataFrame) -> go.Figure:
    """Pass^k (all k rounds succeed) and Pass@k (at least one of k succeeds) against k.

    Args:
        curve: columns `k`, `pass_hat_k`, `pass_at_k` (fractions 0..1).
    """
    fig = go.Figure()
    fig.add_scatter(
        x=curve["k"], y=curve["pass_hat_k"] * 100, mode="lines+markers", name="Pass^k (all k succeed)"
    )
    if "pass_at_k" in curve:
        fig.add_scatter(
            x=curve["k"],
            y=curve["pass_at_k"] * 100,
            mode="lines+markers",
            name="Pass@k (any of k succeeds)",
            line={"dash": "dot"},
        )
    fig.update_traces(hovertemplate="k = %{x}: %{y:.1f} %<extra></extra>")
    fig.update_yaxes(range=[0, 102], ticksuffix=" %", tickformat=".0f")
    fig.update_xaxes(dtick=1, tickformat="d")
    return _layout(fig, "Success as rounds are added", "k (rounds)", "tasks (%)")


def cluster_heatmap(matrix: pd.DataFrame, answers: pd.DataFrame, routes: pd.DataFrame) -> go.Figure:
    """Task x round grid coloured by answer cluster (0 = the task's largest), each cell marked with
    the route that served it (R1, R2, ...); blank = no answer. A legend names the colours.

    Args:
        matrix: index task ids, columns rounds, values cluster numbers (NaN where no answer).
        answers: same shape, the answers (shortened) shown on hover.
        routes: same shape, the route marks written in the cells.
    """
    n_colors = len(CLUSTER_COLORS)
    values = matrix.to_numpy(dtype="float64", na_value=float("nan"))
    z = values % n_colors
    scale = []
    for i, color in enumerate(CLUSTER_COLORS):
        scale += [(i / n_colors, color), ((i + 1) / n_colors, color)]
    shown = answers.map(_html_safe).to_numpy(dtype=object)
    marks = routes.to_numpy(dtype=object)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[str(c) for c in matrix.columns],
            y=plain(pd.Series(matrix.index, dtype="string")).tolist(),
            customdata=values,
            text=marks,
            texttemplate="%{text}",
            textfont={"size": 10, "color": "white"},
            hovertext=shown,
            colorscale=scale,
            zmin=0,
            zmax=n_colors,
            showscale=False,
            xgap=2,
            ygap=2,
            hovertemplate="task %{y}<br>round %{x}<br>cluster %{customdata} · route %{text}<br>"
            "%{hovertext}<extra></extra>",
            showlegend=False,
        )
    )
    _cluster_legend(fig, values)
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category", side="top")
    height = max(260, min(1200, 24 * len(matrix) + 130))
    fig = _layout(fig, "", "round", "task", height=height)
    fig.update_layout(
        legend={"orientation": "h", "y": -0.02, "yanchor": "top", "x": 0, "title": {"text": "answer"}}
    )
    return fig


def _cluster_legend(fig: go.Figure, values: np.ndarray) -> None:
    """One legend entry per cluster number in the grid: its colour and what it means."""
    present = values[~np.isnan(values)]
    largest = int(present.max()) if present.size else -1
    for k in range(min(largest + 1, len(CLUSTER_COLORS))):
        name = "cluster 0: the task's most common answer" if k == 0 else f"cluster {k}"
        if k == len(CLUSTER_COLORS) - 1 and largest >= len(CLUSTER_COLORS):
            name += f" (and {k + len(CLUSTER_COLORS)}, ...: colours repeat)"
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=name,
                marker={"symbol": "square", "size": 12, "color": CLUSTER_COLORS[k]},
                hoverinfo="skip",
            )
        )


def _html_safe(text: object) -> str:
    """Plotly hover labels interpret a few HTML tags; show log text literally instead."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def tokens_by_round(results: pd.DataFrame) -> go.Figure:
    """Distribution of tokens per result in each round."""
    frame = results.dropna(subset=["total_tokens"])
    fig = px.box(frame, x="round", y="total_tokens", points="outliers")
    fig.update_xaxes(type="category")
    fig.update_yaxes(tickformat=",d", rangemode="tozero")
    return _layout(fig, "Tokens per result, by round", "round", "tokens per result")


def tokens_per_task(tasks: pd.DataFrame) -> go.Figure:
    """Histogram of each task's mean tokens per result."""
    values = tasks["tokens_mean"].dropna().astype("float64")
    fig = px.histogram(x=values, nbins=40)
    fig.update_traces(
        marker_color=CLUSTER_COLORS[0], hovertemplate="%{x} tokens: %{y:,d} tasks<extra></extra>"
    )
    fig.update_xaxes(tickformat=",d")
    counts, _ = np.histogram(values, bins=40) if len(values) else (np.zeros(1), None)
    _count_axis(fig, "y", float(counts.max()))
    return _layout(fig, "Tasks by their mean tokens per result", "mean tokens per result", "tasks (count)")


def prompt_vs_completion(results: pd.DataFrame) -> go.Figure:
    """Prompt against completion tokens per result, retried results marked."""
    frame = results.dropna(subset=["prompt_tokens", "completion_tokens"]).copy()
    frame["retry"] = frame["retried"].map({True: "retried", False: "no retry"})
    fig = px.scatter(
        frame,
        x="prompt_tokens",
        y="completion_tokens",
        color="retry",
        color_discrete_map=RETRIED_COLORS,
        hover_data=["task_id", "round"],
        opacity=0.7,
    )
    fig.update_xaxes(tickformat=",d")
    fig.update_yaxes(tickformat=",d")
    return _layout(fig, "Prompt vs completion tokens", "prompt tokens", "completion tokens")


def named_bars(
    labels: Sequence[str], values: Sequence[float | None], title: str, x: str, unit: str
) -> go.Figure:
    """A plain bar per named figure, e.g. tokens per round."""
    fig = go.Figure(
        go.Bar(
            x=list(labels),
            y=list(values),
            marker_color=CLUSTER_COLORS[0],
            hovertemplate="%{x}: %{y:,.0f}<extra></extra>",
        )
    )
    fig.update_xaxes(type="category")
    fig.update_yaxes(tickformat=",.0f", rangemode="tozero")
    return _layout(fig, title, x, unit)


def attempt_timeline(attempts: pd.DataFrame) -> go.Figure:
    """One horizontal bar per HTTP attempt from start to end, coloured by outcome.

    Args:
        attempts: the analyzer's attempts frame (`started_at`, `ended_at`, `outcome`, ...).
    """
    frame = attempts.dropna(subset=["started_at", "ended_at"]).copy()
    frame["result"] = plain(frame["task_id"]) + " · r" + frame["round"].astype(str)
    frame["base_url"] = plain(frame["base_url"])
    frame["outcome_label"] = frame["outcome"].map(OUTCOME_LABELS).fillna(frame["outcome"])
    frame["status"] = frame["status_code"].astype("string").fillna("no response")
    fig = px.timeline(
        frame,
        x_start="started_at",
        x_end="ended_at",
        y="result",
        color="outcome_label",
        color_discrete_map={OUTCOME_LABELS[k]: v for k, v in OUTCOME_COLORS.items()},
        hover_data={
            "attempt": True,
            "status": True,
            "duration_ms": ":.0f",
            "base_url": True,
            "result": False,
        },
    )
    # rows in time order: each result where its first attempt started, the earliest on top
    order = frame.groupby("result", sort=False)["started_at"].min().sort_values(kind="stable").index.tolist()
    fig.update_yaxes(autorange="reversed", type="category", categoryorder="array", categoryarray=order)
    height = max(260, min(1400, 18 * frame["result"].nunique() + 120))
    return _layout(fig, "HTTP attempts over time", "time (UTC)", "task · round", height=height)


def outcome_counts(counts: pd.DataFrame, by: str) -> go.Figure:
    """Stacked bars of attempt counts by outcome.

    Args:
        counts: columns `by`, `outcome`, `attempts` (already counted by the analyzer).
        by: the column on the x axis (e.g. `base_url` or `outcome`).
    """
    frame = counts.copy()
    frame["outcome_label"] = frame["outcome"].map(OUTCOME_LABELS).fillna(frame["outcome"])
    x = "outcome_label" if by == "outcome" else by
    fig = px.bar(
        frame,
        x=x,
        y="attempts",
        color="outcome_label",
        color_discrete_map={OUTCOME_LABELS[k]: v for k, v in OUTCOME_COLORS.items()},
        text="attempts",
    )
    fig.update_xaxes(type="category")
    _count_axis(fig, "y", float(frame.groupby(x)["attempts"].sum().max()) if len(frame) else 0.0)
    if by == "outcome":  # one bar per outcome: its count above it, upright
        fig.update_traces(texttemplate="%{y:,d}", textposition="outside", textangle=0, cliponaxis=False)
        fig.update_layout(showlegend=False)
        return _layout(fig, "Attempts by outcome", "outcome", "attempts (count)")
    # stacked: a count inside its segment, upright, and none where the segment is too thin to hold it
    fig.update_traces(texttemplate="%{y:,d}", textposition="inside", textangle=0, insidetextanchor="middle")
    fig.update_layout(uniformtext={"minsize": 10, "mode": "hide"})
    name = by.replace("_", " ")
    return _layout(fig, f"Attempts by {name} and outcome", name, "attempts (count)")


def attempts_by_route(counts: pd.DataFrame) -> go.Figure:
    """Stacked bars, one per route (base URL and key fingerprint), coloured by outcome.

    Args:
        counts: the analyzer's `attempts_by_route` table (base_url, key_fingerprint, outcome, attempts).
    """
    frame = counts.copy()
    by = "route"
    frame[by] = (
        plain(frame["base_url"]).fillna("(base URL not recorded)")
        + "<br>"
        + plain(frame["key_fingerprint"]).fillna("(key not recorded)")
    )
    frame["outcome_label"] = frame["outcome"].map(OUTCOME_LABELS).fillna(frame["outcome"])
    fig = px.bar(
        frame,
        x="attempts",
        y=by,
        orientation="h",
        color="outcome_label",
        color_discrete_map={OUTCOME_LABELS[k]: v for k, v in OUTCOME_COLORS.items()},
    )
    fig.update_yaxes(type="category")
    _count_axis(fig, "x", float(frame.groupby(by)["attempts"].sum().max()) if len(frame) else 0.0)
    height = max(220, 70 * frame[by].nunique() + 120)
    return _layout(
        fig, "Attempts by route and outcome", "attempts (count)", "route (base URL, key)", height=height
    )


def latency_box(frame: pd.DataFrame, column: str, by: str, title: str, x_title: str) -> go.Figure:
    """Distribution of a latency column (milliseconds) per category, on a log axis (timeouts are long).

    Args:
        frame: the analyzer's results or attempts frame.
        column: `latency_ms` or `duration_ms`.
        by: `retried` (results) or `outcome` (attempts).
    """
    data = frame.dropna(subset=[column]).copy()
    data[column] = data[column].astype("float64").clip(lower=1.0)
    if by == "retried":
        data["group"] = data["retried"].map({True: "retried", False: "no retry"})
        colors = RETRIED_COLORS
    else:
        data["group"] = data["outcome"].map(OUTCOME_LABELS).fillna(data["outcome"])
        colors = {OUTCOME_LABELS[k]: v for k, v in OUTCOME_COLORS.items()}
    fig = px.box(
        data, x=column, y="group", color="group", color_discrete_map=colors, points="all", log_x=True
    )
    fig.update_layout(showlegend=False)
    fig.update_yaxes(type="category")
    _log_ms_axis(fig, data[column])
    height = max(240, 70 * data["group"].nunique() + 120)
    y_title = "results" if by == "retried" else "attempt outcome"
    return _layout(fig, title, x_title, y_title, height=height)


def compare_bars(table: pd.DataFrame, column: str, title: str, unit: str) -> go.Figure:
    """One bar per experiment group for one column of the analyzer's comparison table."""
    labels = plain(table["label"])
    short = labels.where(labels.str.len() <= 24, labels.str.slice(0, 23) + "…")
    frame = table.assign(group=short, label=labels)
    fig = px.bar(
        frame,
        y="group",
        x=column,
        color="group",
        orientation="h",
        color_discrete_sequence=list(CLUSTER_COLORS),
        hover_data={"label": True, "group": False},
    )
    fig.update_traces(
        texttemplate=_value_format(unit), textposition="inside", textangle=0, insidetextanchor="start"
    )
    fig.update_layout(uniformtext={"minsize": 9, "mode": "hide"})  # the hover still gives the figure
    fig.update_xaxes(tickformat=_axis_format(unit), rangemode="tozero", nticks=4)
    fig.update_layout(showlegend=False)
    # first group on top, as in the table
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=list(short)[::-1])
    return _layout(fig, title, unit, "experiment group", height=max(220, 50 * len(frame) + 110))


def _value_format(unit: str) -> str:
    """A bar's own label in its unit: points with one decimal and "pp", counts whole (never SI "667m")."""
    if "(pp)" in unit:
        return "%{x:.1f} pp"
    if "%" in unit:
        return "%{x:.1f} %"
    return "%{x:,.0f}"


def _axis_format(unit: str) -> str:
    return ",.0f" if "(pp)" in unit or "%" in unit else ",d"


def with_intervals(fig: go.Figure, table: pd.DataFrame, column: str) -> go.Figure:
    """`compare_bars` with each bar's 95 % interval as an error bar, from `<column>_low`/`<column>_high`
    (the analyzer's bootstrap columns, e.g. `answer_gap_low` for `answer_gap_pp`)."""
    stem = column.removesuffix("_pp")
    low, high = table.get(f"{stem}_low"), table.get(f"{stem}_high")
    if low is None or high is None:
        return fig
    for i, trace in enumerate(fig.data):  # one trace per group, in table order
        value = table[column].iloc[i]
        if pd.isna(value) or pd.isna(low.iloc[i]) or pd.isna(high.iloc[i]):
            continue
        trace.error_x = {
            "type": "data",
            "symmetric": False,
            "array": [float(high.iloc[i]) - float(value)],
            "arrayminus": [float(value) - float(low.iloc[i])],
        }
    return fig


def reported_against_counted(rows: pd.DataFrame) -> go.Figure:
    """An audit's tokens: per route and kind (prompt, completion) the tokens the route reported beside
    those counted locally, as horizontal bars (the labels stay whole at any width).

    Args:
        rows: the analyzer's `token_rows` (route, tokens, reported, counted).
    """
    names = plain(rows["route"]) + " · " + plain(rows["tokens"])
    fig = go.Figure(
        [
            go.Bar(
                y=names,
                x=rows[column],
                name=column,
                orientation="h",
                marker_color=CLUSTER_COLORS[i],
                hovertemplate="%{y}: %{x:,.0f} " + column + "<extra></extra>",
            )
            for i, column in enumerate(("reported", "counted"))
        ]
    )
    fig.update_layout(barmode="group")
    fig.update_yaxes(type="category", autorange="reversed")
    fig.update_xaxes(tickformat=",d", rangemode="tozero")
    return _layout(fig, "", "tokens", "", height=max(220, 70 * len(rows) + 80))
