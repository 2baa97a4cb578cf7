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

import hashlib
from collections.abc import Sequence
from html import escape

import streamlit as st

import analyzer.numbers as numbers

Figure = tuple[str, str] | tuple[str, str, str]
"""A figure: its label, its value as shown, and optionally its help text (shown on hover)."""

MIN_WIDTH_REM = 10
"""The narrowest a figure gets before the row wraps: "Inconclusive" or "56,624" at 2.25 rem fit."""

HELP_STYLE = (
    "<style>.rl-help{position:relative;display:inline-flex;align-items:center;justify-content:center;"
    "width:0.85rem;height:0.85rem;margin-left:0.3rem;border:1.5px solid currentColor;border-radius:50%;"
    "font-size:0.6rem;font-weight:700;line-height:1;opacity:0.6;vertical-align:0.05rem;cursor:help}"
    ".rl-help:focus-visible{opacity:1;outline:2px solid currentColor;outline-offset:2px}"
    ".rl-tip{display:none;position:absolute;left:0;top:1.2rem;z-index:1000;width:max-content;"
    "max-width:min(20rem,80vw);padding:0.4rem 0.6rem;border-radius:0.4rem;background:#31333f;"
    "color:#fafafa;font-size:0.8rem;font-weight:400;line-height:1.4;white-space:normal;text-align:left}"
    ".rl-help:focus .rl-tip{display:block}</style>"
)
"""The help mark beside a label, as `st.metric` draws one. The mark takes the keyboard's focus and
shows the help while focused; a pointer gets the figure's native tooltip (its `title`)."""


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
    style = HELP_STYLE if any(len(figure) > 2 and figure[-1] for figure in figures) else ""
    return (
        f'{style}<div role="list" style="display:grid;gap:1rem;margin-bottom:0.5rem;grid-template-columns:'
        f'repeat(auto-fill,minmax({track},1fr))">{cells}</div>'
    )


def _figure(label: str, value: str, help_text: str | None = None) -> str:
    value = numbers.recorded(value)  # a figure the log does not record reads so, never as a dash
    tip = f' title="{escape(help_text)}"' if help_text else ""
    mark = _help_mark(label, help_text) if help_text else ""
    return (
        f'<div role="listitem" data-figure="{escape(label)}" data-value="{escape(value)}"{tip}>'
        f'<div style="font-size:0.875rem;line-height:1.6;overflow-wrap:anywhere">{escape(label)}{mark}</div>'
        f'<div style="font-size:2.25rem;line-height:1.3;overflow-wrap:anywhere">{escape(value)}</div></div>'
    )


def _help_mark(label: str, help_text: str) -> str:
    """The focusable "?" with its tooltip; the id follows from the label and help, so it is stable."""
    tip_id = "rl-tip-" + hashlib.sha1(f"{label}\0{help_text}".encode()).hexdigest()[:12]
    return (
        f'<span class="rl-help" tabindex="0" aria-label="Help" aria-describedby="{tip_id}">?'
        f'<span class="rl-tip" role="tooltip" id="{tip_id}">{escape(help_text)}</span></span>'
    )
