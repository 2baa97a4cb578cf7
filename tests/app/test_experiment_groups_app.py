"""A promptfoo eval of two providers opens as two experiment groups, ready for Compare."""

from __future__ import annotations

from pathlib import Path

from app_kit import shown_tables
from streamlit.testing.v1 import AppTest

from analyzer.importers import load_any
from app import data

RESULTS = Path(__file__).parents[1] / "fixtures" / "foreign" / "promptfoo" / "results.json"


def test_one_file_opens_as_its_groups() -> None:
    opened = data._open("t:promptfoo", "promptfoo/results.json", load_any(RESULTS), "exact")
    assert all(isinstance(g, data.Group) for g in opened)
    groups = [g for g in opened if isinstance(g, data.Group)]
    assert [g.source for g in groups] == [
        "promptfoo/results.json · scripted",
        "promptfoo/results.json · echo",
    ]
    assert [g.analysis.headline.tasks for g in groups] == [3, 3]
    uploaded = data._open("t:up", "results.json (upload)", load_any(RESULTS), "exact")
    assert [g.source for g in uploaded if isinstance(g, data.Group)][0] == "results.json · scripted (upload)"


def _compare(sel: object) -> None:
    from app.views import compare

    compare.render(sel)  # type: ignore[arg-type]


def test_compare_shows_the_two_providers() -> None:
    groups = [
        g for g in data._open("t:pf", "results.json", load_any(RESULTS), "exact") if isinstance(g, data.Group)
    ]
    sel = data.Selection(groups=groups, key="exact", focus=groups[0])
    at = AppTest.from_function(_compare, kwargs={"sel": sel}, default_timeout=30)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    [table] = [t for t in shown_tables(at) if "answer gap" in t.columns]
    assert len(table) == 2 and [g.split(" (")[0] for g in table["answer gap"]] == ["66.7 pp", "0.0 pp"]
