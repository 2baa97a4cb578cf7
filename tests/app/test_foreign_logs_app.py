"""Every log view on every real tool's log the importers are tested on (tests/fixtures/foreign: Inspect
AI, tau-bench, tau2-bench, promptfoo, AppWorld, ALTK-Evolve), opened from a runs folder as a user
drops them there: each view draws without an exception or an error, and Overview's figures are the
analyzer's for that log (for a file of experiment groups, promptfoo's providers, its first group)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from app_kit import MAIN, ROOT, shown_figures
from streamlit.testing.v1 import AppTest

import analyzer.numbers as numbers
from analyzer.analysis import analyze
from analyzer.importers import list_any_logs, load_any
from analyzer.importers.experiments import experiment_groups
from app import fmt, log_folders

FOREIGN = ROOT / "tests" / "fixtures" / "foreign"
LOGS = [p.relative_to(FOREIGN).as_posix() for p in list_any_logs(FOREIGN)]
"""Every log the runs-folder listing finds among the fixtures, as the sidebar names it."""
VIEWS = {"overview": "Overview", "runs": "Runs", "tasks": "Tasks", "tokens": "Tokens", "retries": "Retries"}
VIEWS |= {"routes": "Routes", "compare": "Compare"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runs") / "foreign"
    shutil.copytree(FOREIGN, folder)
    return folder


def test_every_tool_has_a_log_listed() -> None:
    tools = {"altk_evolve", "appworld", "inspect_ai", "lm_eval", "promptfoo", "tau2_bench", "tau_bench"}
    assert {name.split("/")[0] for name in LOGS} == tools


@pytest.mark.parametrize("name", LOGS)
def test_every_view_draws_a_foreign_log(name: str, runs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(runs))
    loaded = load_any(runs / name)
    groups = experiment_groups(loaded)  # a file of experiment groups opens on its first group
    h = analyze(groups[0][1].log if groups else loaded.log).headline
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params["log"] = name
    at.run()
    for view, title in VIEWS.items():
        at.switch_page(f"views/{view}.py").run()
        assert not at.exception, (view, [e.value for e in at.exception])
        assert not at.error, (view, [e.value for e in at.error])
        assert [t.value for t in at.title] == [title]
        if view == "overview":
            assert any(c.value.startswith(f"{fmt.counted(h.tasks, 'task')} x ") for c in at.caption)
            assert shown_figures(at)["Answer gap"] == numbers.recorded(fmt.pp(h.answer_gap_pp))
