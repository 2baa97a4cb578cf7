"""The dashboard under the judge key: the sidebar offers it with each log's most calls and a confirm
button (nothing is asked before), and the Tasks page shows each joined answer's verdict and reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import app_kit
import pytest
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.metrics.judge import DecisionCache, JudgeOptions
from analyzer.routes.profile import build_profile
from analyzer.runner.judge import RouteJudge
from app import data, log_folders

SAMPLE = Path(__file__).parents[2] / "sample_runs" / "A_baseline.altk_runs.json"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RERUNLENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def _sidebar() -> None:
    import streamlit as st

    from app import sidebar

    sel = sidebar.render()
    sidebar.show_problems(sel)
    for group in sel.groups:
        st.markdown(f"analysed under {group.analysis.key}")


def test_the_judge_is_asked_only_after_the_sidebar_confirms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / SAMPLE.name)
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(folder))
    at = AppTest.from_function(_sidebar, default_timeout=60)
    at.query_params.update({"key": "exact", "log": SAMPLE.name})
    at.run()
    app_kit.key_box(at).set_value("judge").run()
    assert not at.exception, [e.value for e in at.exception]
    problem = " ".join(e.value for e in at.error)
    assert "at most 13 questions over 13 tasks" in problem and "confirm" in problem
    assert "analysed under judge" not in [m.value for m in at.markdown]
    assert not (tmp_path / "cache" / "judge").exists()  # nothing asked yet
    at.button(key="sidebar.judge_confirm").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "analysed under judge" in [m.value for m in at.markdown]
    assert list((tmp_path / "cache" / "judge").iterdir())  # the verdicts, kept


def _tasks_view(sel: object) -> None:
    from app.views import tasks

    tasks.render(sel)  # type: ignore[arg-type]


def test_tasks_page_shows_each_joined_answers_verdict_and_reason(tmp_path: Path) -> None:
    loaded = load_path(SAMPLE)
    judge = RouteJudge(build_profile(env={}))
    options = JudgeOptions(decide=judge.decide, model=judge.name, decisions=DecisionCache(tmp_path / "j"))
    analysis = analyze(loaded.log, "judge", semantic=options)
    group = data.Group(label="A", source=SAMPLE.name, loaded=loaded, analysis=analysis)
    sel = data.Selection(groups=[group], key="judge", focus=group)
    at = AppTest.from_function(_tasks_view, kwargs={"sel": sel}, default_timeout=60)
    at.query_params.update({"task": "shop-001"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(f"judged by {judge.name}" in m.value for m in at.markdown)
    assert any("answer key **judge, judged by gpt\\-4o\\-mini**" in c.value for c in at.caption), [
        c.value for c in at.caption
    ]
    [members] = [d.value for d in at.dataframe if "verdict" in d.value.columns]
    joined = members.set_index("answer").loc["84.97 usd"]
    assert joined["representative"] == "$84.97" and joined["verdict"] == "same"
    assert joined["reason"] == "the same numbers"
