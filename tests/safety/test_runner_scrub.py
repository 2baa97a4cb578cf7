"""Whatever an executor returns passes the key scrubber before it is written: answer, model, trajectory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fake_keys import FAKE_KEY
from plan_kit import run_tasks

from analyzer.log.model import TaskSpec
from analyzer.routes.profile import RouteProfile
from analyzer.runner.executors import ExecutorResult
from analyzer.runner.journal import journal_path


def echoing_agent(task: TaskSpec, client: Any, route: RouteProfile) -> ExecutorResult:
    """A careless agent that puts the key it was configured with everywhere it can."""
    return ExecutorResult(
        answer=f"done with {FAKE_KEY}",
        served_model=f"model-{FAKE_KEY}",
        trajectory=[
            {"type": "tool_call", "name": "login", "arguments": {"token": FAKE_KEY, "nested": [FAKE_KEY]}},
            {"type": "message", "role": "assistant", "content": f"used {FAKE_KEY}"},
        ],
    )


def test_an_executor_echoing_the_key_writes_it_nowhere(tmp_path: Path) -> None:
    out = tmp_path / "run.altk_runs.json"
    tasks = [TaskSpec(task_id="t1", prompt="log in")]
    outcome = run_tasks(tasks, RouteProfile(), out, rounds=2, api_key=FAKE_KEY, executor=echoing_agent)
    assert outcome.path == out and not journal_path(out).exists()
    text = out.read_text()
    assert FAKE_KEY not in text and FAKE_KEY.lower() not in text.lower()
    result = outcome.log.runs[0][0]  # type: ignore[union-attr]
    assert result.answer == "done with [redacted]"
    assert result.trajectory and "[redacted]" in str(result.trajectory[0])
