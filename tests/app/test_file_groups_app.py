"""A promptfoo file of several providers opens as its groups side by side, and says so: uploaded, the
first group is shown at once (not the sample that was open), Overview names the groups, Compare sets
them side by side; in a runs folder, the Runs page lists every group of the file."""

from __future__ import annotations

import shutil
from pathlib import Path

import app_kit
import pytest
from app_kit import MAIN, ROOT, plain, shown_tables
from streamlit.testing.v1 import AppTest

from analyzer.importers import load_any
from analyzer.importers.experiments import experiment_groups
from app import data, log_folders

PROMPTFOO = ROOT / "tests" / "fixtures" / "foreign" / "promptfoo" / "results.json"


def _labels() -> list[str]:
    return [g.log.display_label("results") for _, g in experiment_groups(load_any(PROMPTFOO))]


def test_an_uploaded_file_of_two_providers_opens_as_its_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params["log"] = ["A_baseline.altk_runs.json"]
    at.run()
    at.file_uploader(key=data.UPLOADS).upload(
        "results.json", PROMPTFOO.read_bytes(), "application/json"
    ).run()
    app_kit.assert_clean(at)
    labels = [f"{label} (uploaded)" for label in _labels()]
    assert len(labels) == 2
    assert app_kit.focus_box(at).value == labels[0]  # shown at once, not sample A
    [note] = [plain(i.value) for i in at.info if "experiment group" in i.value]
    assert note.startswith("results.json holds 2 experiment groups") and all(
        label in note for label in labels
    )
    at.switch_page("views/compare.py").run()
    app_kit.assert_clean(at)
    text = " ".join(plain(t.value) for t in at.text)
    # the two providers against each other over the file's 3 tests, not sample A against the rest
    assert text.count("answer gap") == 1 and "over 3 shared tasks" in text
    assert "A: baseline" not in text


def test_the_runs_page_lists_every_group_of_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(PROMPTFOO, runs / "results.json")
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(runs))
    at = app_kit.open_view("views/runs.py", "results.json", "Runs")
    (table,) = shown_tables(at)
    files = [f for f in table["file"] if f.startswith("results.json")] if "file" in table else []
    logs = list(table["log"])
    assert all(any(label in shown for shown in logs) for label in _labels()), logs
    assert files == [] or len(files) == 2
