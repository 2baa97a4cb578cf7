"""Headline figures: a row of them, each a label over a large value with its help on hover, drawn as
one HTML element.

`st.metric` in `st.columns` draws the same, but each metric and each column is an element of its own
that the browser mounts on every load (`scripts/bench_elements.py`: a one-title page with fifteen
metrics in five rows of columns reloaded at 1.36x the title alone, the same figures as five rows of
this widget at 1.18x), which made the metrics the largest part of Overview's reload. A row here is
one element, whatever its length, and its values wrap instead of being cut to "43.3…".

Every label, value and help text is escaped; the markup carries no script, no link and no log text
unescaped. `data-figure` and `data-value` carry the label and value as shown, for tests and scripts.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import streamlit as st

Figure = tuple[str, str] | tuple[str, str, str]
"""A figure: its label, its value as shown, and optionally its help text (shown on hover)."""

MIN_WIDTH_REM = 10
"""The narrowest a figure gets before the row wraps: "Inconclusive" or "56,624" at 2.25 rem fit."""

HELP_MARK = (
    '<span aria-hidden="true" style="display:inline-flex;align-items:center;justify-content:center;'
    "width:0.85rem;height:0.85rem;margin-left:0.3rem;border:1.5px solid currentColor;border-radius:50%;"
    'font-size:0.6rem;font-weight:700;line-height:1;opacity:0.6;vertical-align:0.05rem">?</span>'
)
"""The mark beside a label that has help, as `st.metric` draws one."""


def row(figures: Sequence[Figure], per_row: int | None = None) -> None:
    """Draw `figures` side by side, each a `per_row`-th of the width (all in one row by default), so
    a shorter row lines up under a longer one; fewer to a row on a narrow screen. Nothing for none."""
    if figures:
        st.html(row_html(figures, per_row))


def row_html(figures: Sequence[Figure], per_row: int | None = None) -> str:
    """The markup of one row of figures."""
    n = max(per_row or len(figures), 1)
    cells = "".join(_figure(*figure) for figure in figures)
    # Tracks of a 1/n share (gaps taken off), never narrower than MIN_WIDTH_REM: empty tracks stay,
    # so two figures of a three-wide row take its first two thirds.
    track = f"max(min(100%,{MIN_WIDTH_REM}rem),calc((100% - {n}rem) / {n}))"  # a gap to spare: n fit
    return (
        '<div role="list" style="display:grid;gap:1rem;margin-bottom:0.5rem;grid-template-columns:'
        f'repeat(auto-fill,minmax({track},1fr))">{cells}</div>'
    )


def _figure(label: str, value: str, help_text: str | None = None) -> str:
    tip = f' title="{escape(help_text)}"' if help_text else ""
    mark = HELP_MARK if help_text else ""
    return (
        f'<div role="listitem" data-figure="{escape(label)}" data-value="{escape(value)}"{tip}>'
        f'<div style="font-size:0.875rem;line-height:1.6;overflow-wrap:anywhere">{escape(label)}{mark}</div>'
        f'<div style="font-size:2.25rem;line-height:1.3;overflow-wrap:anywhere">{escape(value)}</div></div>'
    )
