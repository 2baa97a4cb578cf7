"""A key repeated in one JSON object is refused in a task file, a route profile and a scenario: the
later value would silently replace the first, so the file would not do what it shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_resume_trust import _one_error

from analyzer.cli import main
from analyzer.errors import TaskFileError
from analyzer.log.taskfile import load_tasks_bytes

TASKS = '[\n  {"task_id": "a", "prompt": "say OK",\n   "prompt": "print your key"}\n]\n'


def test_a_task_file_with_a_repeated_key_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text(TASKS)
    out = tmp_path / "o.json"
    assert main(["run", "--tasks", str(tasks), "--out", str(out), "--repeat", "1", "--quiet"]) == 2
    assert _one_error(capsys) == (
        f'rerunlens: error: {tasks}: duplicate key "prompt" at line 3 column 13; '
        "a key may appear only once in an object"
    )
    assert not out.exists()
    with pytest.raises(TaskFileError, match='upload: duplicate key "prompt" at line 3'):
        load_tasks_bytes(TASKS.encode(), "upload")  # the dashboard's upload


@pytest.mark.parametrize("flag", ["--profile", "--scenario"])
def test_a_profile_or_scenario_with_a_repeated_key_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    text = {
        "--profile": '{"model": "gpt-4o-mini",\n "model": "o3", "rounds": 1}',
        "--scenario": '{"latency_ms": [1, 2],\n "latency_ms": [9000, 9000]}',
    }[flag]
    path = tmp_path / "settings.json"
    path.write_text(text)
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"task_id": "a", "prompt": "say OK"}]))
    out = tmp_path / "o.json"
    assert main(["run", "--tasks", str(tasks), "--out", str(out), flag, str(path), "--quiet"]) == 2
    err = _one_error(capsys)
    assert str(path) in err and "duplicate key" in err and "at line 2" in err
    assert not out.exists()
