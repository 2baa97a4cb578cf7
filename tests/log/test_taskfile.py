"""Task files: good ones load, bad ones get one line naming where."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.errors import TaskFileError
from analyzer.log.taskfile import load_tasks, load_tasks_bytes

FIXTURES = Path(__file__).parents[1] / "fixtures" / "tasks"


def test_task_file_loads() -> None:
    tasks = load_tasks_bytes(b'[{"task_id": 1, "prompt": "Add 2+2", "expected": "4", "max_tokens": 8}]')
    assert tasks[0].task_id == 1 and tasks[0].expected == "4" and tasks[0].max_tokens == 8


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("duplicate_ids.json", "task_id 'a' appears more than once"),
        ("missing_prompt.json", "[0].prompt: Field required"),
    ],
)
def test_bad_task_files(name: str, message: str) -> None:
    with pytest.raises(TaskFileError) as info:
        load_tasks(FIXTURES / name)
    assert str(info.value) == f"{FIXTURES / name}: {message}"


def test_not_a_list_and_empty() -> None:
    with pytest.raises(TaskFileError, match="t.json: top level: Input should be a valid array"):
        load_tasks_bytes(b'{"task_id": 1}', "t.json")
    with pytest.raises(TaskFileError, match="the task list is empty"):
        load_tasks_bytes(b"[]", "t.json")
    with pytest.raises(TaskFileError, match="nope.json: no such file"):
        load_tasks(FIXTURES / "nope.json")
