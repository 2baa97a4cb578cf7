"""Sections built only while open: an expander bound to the URL (`?<key>=...` keeps it open), whose
content the page builds and sends only when the user has opened it. Used for what is heavy to draw
(a Plotly chart loads Plotly's bundle; a long table) and is one click from the page's first screen."""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator


def section(label: str, key: str, icon: str | None = None) -> DeltaGenerator | None:
    """The open expander to draw into, or None while it is closed (then draw nothing)."""
    box = st.expander(label, key=key, icon=icon, bind="query-params")
    return box if box.open else None
