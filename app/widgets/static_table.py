"""Small read-only tables drawn as one escaped HTML table.

A browser mounts a 30-row HTML (or markdown) table in about a sixth of the time a dataframe takes
(+0.03 s against +0.25 s beside a bare page, `scripts/bench_elements.py`), and its cells wrap where
a dataframe cuts them ("gpt-4o-mini-2026-01-15, g…"), so a table that nobody sorts or selects from
fits at any width. HTML rather than markdown so that a column of short identifiers ("shop-001")
never breaks after its hyphen. A table that could not fit, above `ROW_CAP` rows or with words too
long to wrap within `WIDTH_CHARS`, is a dataframe, which scrolls inside its frame instead of
running off the page.
"""

from __future__ import annotations

import numbers as abc_numbers
import re
from html import escape

import numpy as np
import pandas as pd
import streamlit as st

from analyzer.numbers import missing
from app import fmt

ROW_CAP = 40
"""Rows up to which a table is drawn as HTML; a longer one would push the page down."""
WIDTH_CHARS = 60
"""Characters of table text the main area holds at 1024 px beside the sidebar (564 px; the route
tables of the samples measured 8.3-9.4 px a character at their narrowest). A table's cells wrap
only between words (and after a hyphen), so its narrowest width is the sum of each column's longest
word: a base URL or a long identifier cannot wrap and would widen the table past the page."""
WIDE_CHARS = 100
"""The same at 1400 px (about 940 px of main area)."""
CELL_PADDING_CHARS = 2
NOWRAP_CHARS = 16
"""A column whose every cell is at most this many characters (task ids, counts, "yes", a date and
time) is kept on one line: broken after a hyphen, "shop-" over "001" or "2026-" over "12-02 00:56"
reads as two values."""
STYLE = (
    "<style>.rl-table{border-collapse:collapse;max-width:100%;margin-bottom:1rem;font-size:0.875rem}"
    ".rl-table th,.rl-table td{border:1px solid rgba(128,128,128,0.3);padding:0.25rem 0.5rem;"
    "vertical-align:top;text-align:left}"
    ".rl-table th{font-weight:600}.rl-table .num{text-align:right}"
    ".rl-table .one{white-space:nowrap}.rl-table tr.on td{background:rgba(255,75,75,0.12);font-weight:600}"
    ".rl-box{overflow:auto;margin-bottom:1rem;scroll-padding-top:2.5rem}"
    ".rl-box tr.on{scroll-snap-align:start}"
    ".rl-box .rl-table{margin-bottom:0}.rl-box td:first-child{white-space:nowrap}"
    ".rl-box th{position:sticky;top:0;background:#f0f2f6}"  # the themes' secondary background
    "@media (prefers-color-scheme:dark){.rl-box th{background:#262730}}</style>"
)


def render(frame: pd.DataFrame, key: str, scroll: bool = False) -> None:
    """`frame` as an HTML table (index left out), or as a dataframe where it could not fit.

    `scroll`: a table that fits at 1400 px (`WIDE_CHARS`) but not at 1024 px is still HTML, in a box
    that scrolls sideways in a narrow window as a dataframe would, for a table whose cells are read
    whole (labels, answers) rather than scanned.
    """
    narrowest = narrowest_chars(frame)
    if len(frame) > ROW_CAP or narrowest > (WIDE_CHARS if scroll else WIDTH_CHARS):
        st.dataframe(frame, hide_index=True, placeholder=fmt.NONE, key=key)
    elif narrowest > WIDTH_CHARS:
        st.html(f'<div style="overflow-x:auto">{html_table(frame)}</div>')
    else:
        st.html(html_table(frame))


def boxed(frame: pd.DataFrame, height_px: int, marked: int | None = None) -> None:
    """`frame` as an HTML table in a box at most `height_px` high that scrolls (its header stays in
    view) and whose first column (the row's name) never wraps, whatever its length: for a list the
    page keeps in view beside what it opens. `marked`: the position of a row to highlight, scrolled
    into the box's view when it is drawn.

    The scrolling is CSS: the box snaps to the marked row only while a short animation named after
    that row runs, so it snaps once when the row changes and never takes a person's scrolling back."""
    snap = f"rl-snap-{marked}"
    animation = f"<style>@keyframes {snap}{{from,to{{scroll-snap-type:y mandatory}}}}</style>"
    st.html(
        f'{animation if marked is not None else ""}<div class="rl-box" style="max-height:{int(height_px)}px;'
        f'animation:{snap} 0.8s">{html_table(frame, marked)}</div>'
    )


def narrowest_chars(frame: pd.DataFrame) -> int:
    """The table's narrowest width in characters: per column, its longest word (header or cell, as
    shown; a whole cell in a column kept on one line), plus each cell's padding."""
    total = 0
    for name in frame.columns:
        cells = [_shown(v) for v in frame[name]]
        longest = max((len(c) for c in cells), default=0) if _one_line(cells) else 0
        total += max(longest, *(_longest_word(text) for text in [_flat(name), *cells])) + CELL_PADDING_CHARS
    return total


def _longest_word(text: str) -> int:
    return max((len(word) for word in re.split(r"\s+|(?<=-)", text)), default=0)


def _one_line(cells: list[str]) -> bool:
    return bool(cells) and all(len(c) <= NOWRAP_CHARS for c in cells)


def html_table(frame: pd.DataFrame, marked: int | None = None) -> str:
    """The markup of `frame`: every header and cell escaped (log text never renders as markup or a
    link), line breaks flattened, numbers in the one number style and right-aligned; the row at
    position `marked` (if any) highlighted."""
    types = pd.api.types
    shown = {c: [_shown(v) for v in frame[c]] for c in frame.columns}
    numeric = {
        c: (types.is_numeric_dtype(frame[c]) and not types.is_bool_dtype(frame[c]))
        or _reads_numeric(shown[c])
        for c in frame
    }
    head_class = {c: "num" if numeric[c] else "" for c in frame.columns}  # a header wraps between words
    cell_class = {c: " ".join(["num"] * numeric[c] + ["one"] * _one_line(shown[c])) for c in frame.columns}
    head = "".join(f"<th{_class(head_class[c])}>{escape(_flat(c))}</th>" for c in frame.columns)
    body = "".join(
        ('<tr class="on">' if i == marked else "<tr>")
        + "".join(f"<td{_class(cell_class[c])}>{escape(shown[c][i])}</td>" for c in frame.columns)
        + "</tr>"
        for i in range(len(frame))
    )
    return f'{STYLE}<table class="rl-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


NUMBER_TEXT = re.compile(r"-?\d[\d,]*(\.\d+)?( %| pp)?")
"""A cell already in the one number style (`1,304`, `50.0 %`, `-3.3 pp`)."""


def _reads_numeric(cells: list[str]) -> bool:
    """A column of text cells that are all numbers in the one number style (or missing)."""
    present = [c for c in cells if c != fmt.NONE]
    return bool(present) and all(NUMBER_TEXT.fullmatch(c) for c in present)


def _class(names: str) -> str:
    return f' class="{names}"' if names else ""


def _shown(value: object) -> str:
    """A cell's text as a person reads it."""
    if not isinstance(value, list | tuple | dict | np.ndarray) and missing(value):
        return fmt.NONE
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, abc_numbers.Integral):
        return fmt.count(int(value))
    if isinstance(value, abc_numbers.Real):  # up to three decimals, trailing zeros dropped: 1,304.5, 0.032
        return fmt.num(float(value), 3).rstrip("0").rstrip(".")
    return _flat(value)


def _flat(value: object) -> str:
    """One line: a line break inside a cell would end the table's row."""
    return " ".join(str(value).split())
