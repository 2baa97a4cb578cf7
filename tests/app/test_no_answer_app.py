"""Tasks shows results that gave no answer: a column in the table, `(no answer)` in the grid."""

from __future__ import annotations

from pathlib import Path

from app_kit import shown_figures, shown_tables
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.importers import load_any
from analyzer.report.answer_grid import answer_grid
from app import data

OLD_INSPECT = Path(__file__).parents[1] / "fixtures" / "foreign" / "inspect_ai" / "versions_0.3.100.json"


def _selection() -> data.Selection:
    loaded = load_any(OLD_INSPECT)
    g = data.Group(label="old", source=str(OLD_INSPECT), loaded=loaded, analysis=analyze(loaded.log))
    return data.Selection(groups=[g], key="exact", focus=g)


def _script(sel: object) -> None:
    from app.views import tasks

    tasks.render(sel)  # type: ignore[arg-type]


def test_grid_says_no_answer_not_error() -> None:
    sel = _selection()
    grid = answer_grid(sel.focus.analysis, ["yesno", "sum", "blank"])  # type: ignore[union-attr]
    assert grid.answers.loc["blank", 2] == "(no answer)" and grid.answers.loc["blank", 1] == "Blue"


def test_tasks_table_counts_no_answer_per_task() -> None:
    at = AppTest.from_function(_script, kwargs={"sel": _selection()}, default_timeout=30)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    [table] = [t.set_index("task") for t in shown_tables(at) if "no answer" in t.columns]
    assert table["no answer"].to_dict() == {"blank": "1", "sum": "0", "yesno": "0"}


def _overview(sel: object) -> None:
    from app.views import overview

    overview.render(sel)  # type: ignore[arg-type]


def test_overview_shows_no_answer_and_mean_score() -> None:
    path = OLD_INSPECT.parent / "scores_0.3.100.json"
    loaded = load_any(path)
    g = data.Group(label="f1", source=str(path), loaded=loaded, analysis=analyze(loaded.log))
    at = AppTest.from_function(
        _overview, kwargs={"sel": data.Selection(groups=[g], key="exact", focus=g)}, default_timeout=30
    )
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = shown_figures(at)
    assert shown["Mean score"] == "0.618" and shown["No answer"] == "0"
    assert "Over 2 tasks: 95 % CI 0.139–0.942" in [c.value for c in at.caption]


def test_overview_of_an_agent_log_leads_with_both_gaps() -> None:
    path = Path(__file__).parents[2] / "sample_runs" / "E_agent_tools.altk_runs.json"
    loaded = load_any(path)
    g = data.Group(label="E", source=str(path), loaded=loaded, analysis=analyze(loaded.log))
    at = AppTest.from_function(
        _overview, kwargs={"sel": data.Selection(groups=[g], key="exact", focus=g)}, default_timeout=30
    )
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    assert not at.info and "the answer key **actions** (in the sidebar) clusters the rounds" in captions[1]
    (bar,) = [h.value for h in at.html if "Agent tasks, by the tool calls of their rounds" in h.value]
    assert "same tool calls (3)" in bar and "tool calls differ (3)" in bar
    shown = shown_figures(at)
    assert shown["Answer gap"] == "0.0 pp" and shown["Tool-call gap"] == "50.0 pp"
