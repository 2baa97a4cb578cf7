"""Widget values mirrored into the URL query, so a view can be shared and reloaded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import streamlit as st


def seed_from_url(state_key: str, param: str, default: Any, parse: Callable[[list[str]], Any]) -> None:
    """Give a widget its value from the URL when the URL changed (a shared link), else keep it.

    Call before creating the widget with `key=state_key`; call `mirror_to_url` after it.
    """
    raw = st.query_params.get_all(param)
    seen = f"_url.{param}"
    if state_key not in st.session_state or (raw and raw != st.session_state.get(seen)):
        st.session_state[state_key] = parse(raw) if raw else default
        st.session_state[seen] = raw


def seed_kept(state_key: str, param: str, default: Any, parse: Callable[[list[str]], Any]) -> None:
    """`seed_from_url` for a value kept apart from its widget (see `widget_key`)."""
    raw = st.query_params.get_all(param)
    seen = f"_url.{param}"
    if state_key not in st.session_state or (raw and raw != st.session_state.get(seen)):
        set_kept(state_key, parse(raw) if raw else default)
        st.session_state[seen] = raw


def widget_key(state_key: str) -> str:
    """The key of the widget showing a kept value: a new one each time code sets the value.

    A widget inside a closed popover is not drawn by the browser, so it never learns a value set by
    code; on the next page change the browser sends its old value back and Streamlit would take it
    (an uploaded log's focus went back to the first sample). The value itself lives under
    `state_key`, which no widget owns; the widget is drawn with it as its default under a key that
    changes with every change made by code, so an old value sent back belongs to no widget drawn.
    """
    return f"{state_key}.widget.{st.session_state.get(f'{state_key}.version', 0)}"


def set_kept(state_key: str, value: Any) -> None:
    """Set a kept value by code (the widget is drawn afresh with it)."""
    if st.session_state.get(state_key) != value or state_key not in st.session_state:
        st.session_state[state_key] = value
        st.session_state[f"{state_key}.version"] = st.session_state.get(f"{state_key}.version", 0) + 1


def keep_widget_value(state_key: str) -> None:
    """A widget's on_change: the user's choice becomes the kept value."""
    st.session_state[state_key] = st.session_state[widget_key(state_key)]


def mirror_to_url(param: str, value: str | list[str] | None) -> None:
    """Write a widget's value into the URL query (removing it when empty)."""
    values = [] if value is None else [value] if isinstance(value, str) else list(value)
    if st.query_params.get_all(param) != values:
        if values:
            st.query_params[param] = values
        elif param in st.query_params:
            del st.query_params[param]
    st.session_state[f"_url.{param}"] = values


def view_link(url_path: str, **params: str) -> str:
    """A relative link to another view that keeps this page's query (the open logs, the key, the
    focus) with `params` set over it; every value is URL-quoted, so an id from a log stays data."""
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    query |= {name: [value] for name, value in params.items()}
    return f"{url_path}?{urlencode(query, doseq=True)}"
