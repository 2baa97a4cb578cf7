"""Small read-only tables drawn as markdown tables.

A browser mounts a 30-row markdown table in about a sixth of the time a dataframe takes (+0.04 s
against +0.25 s beside a bare page, `scripts/bench_elements.py`), and its cells wrap where a
dataframe cuts them ("gpt-4o-mini-2026-01-15, g…"), so a table that nobody sorts or selects from
fits at any width. A table that could not fit, above `ROW_CAP` rows or with words too long to wrap
within `WIDTH_CHARS`, is a dataframe, which scrolls inside its frame instead of running off the page.
"""

from __future__ import annotations

import numbers as abc_numbers
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd
import streamlit as st

from analyzer.numbers import missing
from app import fmt
from app.widgets.messages import escape, safe

ROW_CAP = 40
"""Rows up to which a table is drawn as markdown; a longer one would push the page down."""
WIDTH_CHARS = 60
"""Characters of table text the main area holds at 1024 px beside the sidebar (564 px; the route
tables of the samples measured 8.3-9.4 px a character at their narrowest). A markdown table wraps
only between words (and after a hyphen), so its narrowest width is the sum of each column's longest
word: a base URL or a long identifier cannot wrap and would widen the table past the page."""
CELL_PADDING_CHARS = 2
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def render(frame: pd.DataFrame, key: str) -> None:
    """`frame` as a markdown table (index left out), or as a dataframe where it could not fit."""
    if len(frame) > ROW_CAP or narrowest_chars(frame) > WIDTH_CHARS:
        st.dataframe(frame, hide_index=True, placeholder=fmt.NONE, key=key)
    else:
        st.markdown(markdown_table(frame), width="stretch")


def narrowest_chars(frame: pd.DataFrame) -> int:
    """The table's narrowest width in characters: per column, its longest word (header or cell, as
    shown), plus each cell's padding."""
    return sum(
        max(_longest_word(text) for text in [_flat(name), *(_shown(v) for v in frame[name])])
        + CELL_PADDING_CHARS
        for name in frame.columns
    )


def _longest_word(text: str) -> int:
    return max((len(word) for word in re.split(r"\s+|(?<=-)", text)), default=0)


def markdown_table(frame: pd.DataFrame) -> str:
    """Markdown for `frame`: every header and cell escaped (log text never renders as markup or a
    link, a `|` never splits a cell), line breaks flattened, numbers in the one number style and
    right-aligned."""
    types = pd.api.types
    numeric = [types.is_numeric_dtype(frame[c]) and not types.is_bool_dtype(frame[c]) for c in frame]
    lines = [
        _row(escape(_flat(c)) for c in frame.columns),
        _row("---:" if right else "---" for right in numeric),
    ]
    lines += [_row(_cell(v) for v in row) for row in frame.itertuples(index=False, name=None)]
    return "\n".join(lines)


def _cell(value: object) -> str:
    """A cell's markdown: log text escaped, a URL as a code span (never a live link a log chose),
    and every `|`, inside a code span too, escaped so that it never ends the cell."""
    return UNESCAPED_PIPE.sub(r"\\|", safe(_shown(value)))


def _row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


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
