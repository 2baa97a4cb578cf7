"""Small read-only tables drawn as markdown tables.

A browser mounts a 30-row markdown table in about a sixth of the time a dataframe takes (+0.04 s
against +0.25 s beside a bare page, `scripts/bench_elements.py`), and its cells wrap where a
dataframe cuts them ("gpt-4o-mini-2026-01-15, g…"), so a table that nobody sorts or selects from
fits at any width. Above `ROW_CAP` rows the table is a dataframe, which scrolls.
"""

from __future__ import annotations

import numbers as abc_numbers

import numpy as np
import pandas as pd
import streamlit as st

from analyzer.numbers import missing
from app import fmt
from app.widgets.messages import escape

ROW_CAP = 40
"""Rows up to which a table is drawn as markdown; a longer one would push the page down."""


def render(frame: pd.DataFrame, key: str) -> None:
    """`frame` as a markdown table (index left out), or as a dataframe above `ROW_CAP` rows."""
    if len(frame) > ROW_CAP:
        st.dataframe(frame, hide_index=True, placeholder=fmt.NONE, key=key)
    else:
        st.markdown(markdown_table(frame), width="stretch")


def markdown_table(frame: pd.DataFrame) -> str:
    """Markdown for `frame`: every header and cell escaped (log text never renders as markup, a `|`
    never splits a cell), line breaks flattened, numbers with the one number style and right-aligned."""
    types = pd.api.types
    numeric = [types.is_numeric_dtype(frame[c]) and not types.is_bool_dtype(frame[c]) for c in frame]
    lines = [
        _row(escape(_flat(c)) for c in frame.columns),
        _row("---:" if right else "---" for right in numeric),
    ]
    lines += [_row(_cell(v) for v in row) for row in frame.itertuples(index=False, name=None)]
    return "\n".join(lines)


def _row(cells: object) -> str:
    return "| " + " | ".join(cells) + " |"  # type: ignore[arg-type]


def _cell(value: object) -> str:
    if not isinstance(value, list | tuple | dict | np.ndarray) and missing(value):
        return fmt.NONE
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, abc_numbers.Integral):
        return fmt.count(int(value))
    if isinstance(value, abc_numbers.Real):  # up to three decimals, trailing zeros dropped: 1,304.5, 0.032
        return fmt.num(float(value), 3).rstrip("0").rstrip(".")
    return escape(_flat(value))


def _flat(value: object) -> str:
    """One line: a line break inside a cell would end the table's row."""
    return " ".join(str(value).split())
