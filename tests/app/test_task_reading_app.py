"""What the source tools show beside the answers is shown here too: the expected answer (Inspect's
target, promptfoo's assertion) on the open task; and task ids sort as people count them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from app_kit import MAIN, ROOT
from streamlit.testing.v1 import AppTest

import analyzer.numbers as numbers
from analyzer.report.task_filter import sort_tasks
from app import log_folders

FOREIGN = ROOT / "tests" / "fixtures" / "foreign"


@pytest.mark.parametrize(
    ("name", "task", "expected"),
    [
        ("inspect_ai/mock_epochs.eval", "capital", "Paris"),
        ("promptfoo/all_errored/results.json", "France", '"value": "Paris"'),
    ],
)
def test_the_open_task_shows_what_it_expects(
    name: str, task: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(FOREIGN, runs)
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(runs))
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params.update({"log": [name], "task": [task]})
    at.run()
    at.switch_page("views/tasks.py").run()
    assert not at.exception and not at.error
    marks = [m.value for m in at.markdown]
    assert "**Expected**" in marks
    texts = [t.value for t in at.text]
    assert any(expected in t for t in texts), texts


def test_task_ids_sort_as_people_count() -> None:
    ids = ["110", "10", "100", "9", "109", "sample-2", "sample-10"]
    tasks = pd.DataFrame({"task_id": ids})
    assert sort_tasks(tasks, "task id")["task_id"].tolist() == [
        "9", "10", "100", "109", "110", "sample-2", "sample-10"
    ]  # fmt: skip
    names = ["samples/110_epoch_1.json", "samples/10_epoch_2.json", "samples/10_epoch_1.json"]
    assert sorted(names, key=numbers.natural_key) == names[::-1]


def test_a_promptfoo_row_says_why_it_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(FOREIGN, runs)
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(runs))
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params.update({"log": ["promptfoo/results.json"], "task": ["Peru"]})
    at.run()
    at.switch_page("views/tasks.py").run()
    assert not at.exception and not at.error
    assert "**Why the grader failed it**" in [m.value for m in at.markdown]
    reasons = [t.value for t in at.text if 'Expected output to contain "Lima"' in t.value]
    assert reasons and reasons[0].startswith("round ")
