"""A re-run of another tool's log that records no provider (a tau-bench conversational agent) is not
run on the simulator unless asked; when it is, the CLI and the Re-run page say what changed besides
the route, in the analyzer's one sentence."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from app_kit import MAIN, plain
from streamlit.testing.v1 import AppTest

from analyzer.cli import main
from analyzer.importers import load_any
from analyzer.routes.profile import RouteProfile
from analyzer.runner.rerun_changes import changes_sentence, rerun_changes
from app import log_folders

TAU = (
    Path(__file__).resolve().parents[1] / "fixtures" / "foreign" / "tau_bench" / "gpt-4o-airline.excerpt.json"
)


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(TAU, folder / TAU.name)
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(folder))
    monkeypatch.setenv("RERUNLENS_ALLOW_REMOTE_RUNS", "1")
    return folder


def test_the_cli_refuses_in_one_line_and_writes_nothing(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = runs / "tau.rerun.json"
    code = main(["rerun", str(runs / TAU.name), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "this tau-bench log records no provider" in err
    assert "--simulator" in err and "--through harness" in err
    assert "prompt only" in err  # why: the conversation would not be replayed
    assert not out.exists() and sorted(p.name for p in runs.iterdir()) == [TAU.name]


def test_asked_for_it_runs_and_says_what_changed(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = runs / "tau.rerun.json"
    code = main(["rerun", str(runs / TAU.name), "--out", str(out), "--quiet", "--simulator", "--repeat", "2"])
    printed = capsys.readouterr()
    assert code == 0 and out.exists()
    said = changes_sentence(rerun_changes(load_any(runs / TAU.name).log, RouteProfile()))
    assert said in printed.out + printed.err
    assert "model gpt-4o-mini, where the parent's model is not recorded" in said
    assert "prompt only: each task's first message is sent once, not the conversation" in said
    assert "only the route is pinned" not in printed.out + printed.err


def test_the_rerun_page_asks_first_and_says_the_same(runs: Path) -> None:
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params["log"] = TAU.name
    at.run()
    at.switch_page("views/rerun.py").run()
    assert not at.exception
    assert at.button(key="rerun.start").disabled  # the simulator only on purpose
    assert not any("only the route is pinned" in plain(c.value) for c in at.caption)
    at.toggle(key="rerun.allow_simulator").set_value(True).run()
    said = changes_sentence(rerun_changes(load_any(runs / TAU.name).log, RouteProfile()))
    assert any(plain(w.value) == said for w in at.warning), [plain(w.value) for w in at.warning]
    assert not at.button(key="rerun.start").disabled
