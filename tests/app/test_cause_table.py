"""The cause table's link to each task's evidence (Overview, Routes): the open logs and the key are
kept, the task is the row's, and every value from a log is quoted into the URL."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from app_kit import open_view, sample_runs
from streamlit.testing.v1 import AppTest

from app.views.routes import CAUSES
from app.widgets.cause_table import LINK

A = "A_baseline.altk_runs.json"


def test_every_cause_row_links_to_its_task(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    sample_runs(tmp_path, monkeypatch, logs_only=True)
    at = open_view("views/routes.py", A, "Routes")
    assert not [d for d in at.dataframe if LINK in d.value.columns]  # one click away: not built yet
    at.session_state[CAUSES] = True
    at.run()
    [table] = [d.value for d in at.dataframe if LINK in d.value.columns]
    assert len(table) == 14 and table.columns[0] == LINK
    for task_id, link in zip(table["task_id"], table[LINK], strict=True):
        parts = urlsplit(link)
        assert parts.path == "tasks"
        query = parse_qs(parts.query)
        assert query["task"] == [task_id] and query["log"] == [A]


def _link_script() -> None:
    import streamlit as st

    from app import url_state

    st.text(url_state.view_link("tasks", task="a&b=c#d e"))


def test_a_link_quotes_what_came_from_a_log() -> None:
    at = AppTest.from_function(_link_script)
    at.query_params.update({"log": ["x&y=1.json", "two.json"], "key": ["normalized"]})
    at.run()
    link = at.text[0].value
    assert "#" not in link and " " not in link and "&b=" not in link
    query = parse_qs(urlsplit(link).query)
    assert query == {"log": ["x&y=1.json", "two.json"], "key": ["normalized"], "task": ["a&b=c#d e"]}
