"""Compare's bar charts: one bar per group, its value and interval written in the group's axis
label (never on the bar, where an error bar would cover it), the full label on hover.

They draw the analyzer's comparison table; they compute nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

import analyzer.numbers as numbers
from app.charts import CLUSTER_COLORS, plain

VALUE_TEXT = {"pp": numbers.pp, "count": numbers.count}


def group_bars(table: pd.DataFrame, column: str, labels: Sequence[str], title: str, unit: str) -> go.Figure:
    """Horizontal bars of `column` per group (`table["label"]`: short names), first group on top.

    With `<stem>_low` / `<stem>_high` columns (e.g. `answer_gap_low` for `answer_gap_pp`) each bar
    carries its 95 % interval as an error bar, and the axis label gives the interval in figures too.
    """
    stem = column.removesuffix("_pp")
    low, high = table.get(f"{stem}_low"), table.get(f"{stem}_high")
    show = VALUE_TEXT["pp" if unit == "pp" else "count"]
    names = plain(table["label"].astype(str)).tolist()
    full = plain(pd.Series(list(labels), dtype="string")).tolist()
    fig = go.Figure()
    for i, name in enumerate(names):
        value = table[column].iloc[i]
        bounds = None if low is None or high is None else [low.iloc[i], high.iloc[i]]
        shown = numbers.pp_ci(value, bounds) if unit == "pp" else show(value)
        known = not numbers.missing(value)
        bar = go.Bar(
            y=[f"{name}: {shown}"],
            x=[float(value) if known else 0.0],
            orientation="h",
            marker={"color": CLUSTER_COLORS[i % len(CLUSTER_COLORS)]},
            name=name,
            hovertemplate=f"{full[i]}<br>{shown}<extra></extra>",
        )
        if known and bounds is not None and not numbers.missing(bounds[0]) and not numbers.missing(bounds[1]):
            bar.error_x = {
                "type": "data",
                "symmetric": False,
                "array": [float(bounds[1]) - float(value)],
                "arrayminus": [float(value) - float(bounds[0])],
            }
        fig.add_trace(bar)
    order = [t.y[0] for t in fig.data][::-1]
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=order, automargin=True)
    fig.update_xaxes(
        title_text=unit if unit != "count" else title.lower(), rangemode="tozero", tickformat=","
    )
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        showlegend=False,
        height=max(200, 44 * len(names) + 110),
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
    )
    return fig
