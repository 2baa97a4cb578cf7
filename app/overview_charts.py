"""Overview's first-screen chart: a log's tasks as one bar, split by what their answers did (or, on an
agent log whose answers agree, by whether their rounds made the same tool calls).

It draws the analyzer's `report.finding.Chart`s (title, labels and counts); it computes nothing. The bar is
plain HTML, not a Plotly figure: one Plotly chart on a page makes every load run Plotly's 4.7 MB
bundle (measured: a first visit about 2x a bare Streamlit page, a reload about 1.4x), and this
chart needs no axis, zoom or hover beyond a tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from analyzer.report.finding import Bar, Chart

KIND_COLORS: dict[str, str] = {
    "consistent": "#54a24b",
    "passing": "#e45756",
    "weak": "#f2a65a",
    "untested": "#4c78a8",
    "calls": "#e45756",
}
"""Consistent green; a cause beyond chance red; a cause not beyond chance light orange; a cause
that is observed, not tested, blue; tool calls that differ between rounds red."""

UNTESTED_MORE = ("#4c78a8", "#b279a2", "#9d755d", "#72b7b2", "#bab0ac")


def bar_colors(bars: Sequence[Bar]) -> list[str]:
    """One colour per bar: by kind, and the observed causes in turn from `UNTESTED_MORE`."""
    colors, untested = [], 0
    for bar in bars:
        color = KIND_COLORS.get(bar.kind, UNTESTED_MORE[-1])
        if bar.kind == "untested":
            color = UNTESTED_MORE[untested % len(UNTESTED_MORE)]
            untested += 1
        colors.append(color)
    return colors


def finding_bar(chart: Chart) -> str:
    """One horizontal bar of every measured task, a segment per state with its count on it (and in
    its tooltip), a legend under it. Every label is escaped; the markup carries no script."""
    bars = chart.bars
    shown = [(bar, color) for bar, color in zip(bars, bar_colors(bars), strict=True) if bar.tasks > 0]
    segments = "".join(
        f'<div title="{escape(bar.label)}: {bar.tasks:,} tasks" style="flex:{bar.tasks} 1 0;'
        f"background:{color};color:#fff;text-align:center;line-height:44px;overflow:hidden;"
        f'white-space:nowrap;font-size:0.85rem">{bar.tasks:,}</div>'
        for bar, color in shown
    )
    legend = "".join(
        f'<span style="margin-right:1.2rem;white-space:nowrap"><span style="display:inline-block;'
        f'width:0.8rem;height:0.8rem;background:{color};margin-right:0.35rem;vertical-align:-1px">'
        f"</span>{escape(bar.label)} ({bar.tasks:,})</span>"
        for bar, color in shown
    )
    return (
        f'<figure role="img" aria-label="{escape(chart.title)}" style="margin:0 0 0.5rem 0">'
        f'<figcaption style="font-weight:600;margin-bottom:0.4rem">{escape(chart.title)}</figcaption>'
        f'<div style="display:flex;width:100%;border-radius:4px;overflow:hidden">{segments}</div>'
        f'<div style="margin-top:0.5rem;font-size:0.85rem;line-height:1.8">{legend}</div></figure>'
    )
