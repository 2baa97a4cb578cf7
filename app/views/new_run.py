"""New run view (being built for issue 5)."""

from __future__ import annotations

import streamlit as st


def render() -> None:
    """Placeholder until the view lands."""
    st.title("New run")


if __name__ == "__main__":
    render()
