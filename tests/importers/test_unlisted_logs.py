"""A log cut short in the runs folder is named with its reason, not left out without a word."""

from __future__ import annotations

import shutil
from pathlib import Path

from analyzer.importers import list_any_logs
from analyzer.importers.unlisted import unlisted_logs

FOREIGN = Path(__file__).parents[1] / "fixtures" / "foreign"
SAMPLES = Path(__file__).parents[2] / "sample_runs"
EVAL = FOREIGN / "inspect_ai" / "mock_tools.eval"


def test_broken_logs_are_named_with_their_reason(tmp_path: Path) -> None:
    (tmp_path / "crash").mkdir()
    (tmp_path / "crash" / "cut.eval").write_bytes(EVAL.read_bytes()[:3000])  # a zip cut short
    (tmp_path / "empty.altk_runs.json").write_bytes(b"")
    (tmp_path / "list.altk_runs.json").write_text('["not", "a", "log"]')
    shutil.copy(SAMPLES / "A_baseline.altk_runs.json", tmp_path / "good.altk_runs.json")
    shutil.copy(EVAL, tmp_path / "good.eval")
    (tmp_path / "tasks.json").write_text('[{"task_id": "t1", "prompt": "hi"}]')  # not a log: not named
    (tmp_path / "notes.json").write_text("")

    found = {p.relative_to(tmp_path).as_posix(): why for p, why in unlisted_logs(tmp_path)}

    assert list(found) == ["crash/cut.eval", "empty.altk_runs.json", "list.altk_runs.json"]
    assert found["crash/cut.eval"].startswith("not a readable zip archive")
    assert "cut short?" in found["crash/cut.eval"]
    assert found["empty.altk_runs.json"] == "empty file"
    assert str(tmp_path) not in found["list.altk_runs.json"]  # the reason, without the path
    listed = {p.name for p in list_any_logs(tmp_path)}
    assert listed == {"good.altk_runs.json", "good.eval"}
    assert not listed & {Path(n).name for n in found}


def test_a_folder_of_good_logs_names_nothing(tmp_path: Path) -> None:
    assert unlisted_logs(SAMPLES) == []
    assert unlisted_logs(FOREIGN) == []
    assert unlisted_logs(tmp_path / "missing") == []


def test_a_file_that_changes_gets_its_new_reason(tmp_path: Path) -> None:
    log = tmp_path / "run.altk_runs.json"
    log.write_bytes(b"")
    assert unlisted_logs(tmp_path) == [(log, "empty file")]
    log.write_text('["not", "a", "log"]')  # the reason is cached by the file's size and time
    [(_, reason)] = unlisted_logs(tmp_path)
    assert reason.startswith("top level: not a RerunLens run log")
    shutil.copy(SAMPLES / "A_baseline.altk_runs.json", log)  # mended: listed, so no longer named
    assert unlisted_logs(tmp_path) == []
