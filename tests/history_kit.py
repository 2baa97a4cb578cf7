"""Nightly logs with known changes, built as `RunLog`s and saved where a history reads them.

Each task's rounds follow a rule `good(task, run, round) -> bool`: a good round succeeds with the
task's right answer, a bad one fails with a wrong answer, so the answers and the outcomes both change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from analyzer.log.loader import save_log
from analyzer.log.model import Result, Route, RunLog, TaskSpec

Good = Callable[[str, int, int], bool]
START = datetime(2026, 11, 1, 2, 0, tzinfo=UTC)


@dataclass
class Nightly:
    """A series of nightly runs of one task set."""

    task_ids: Sequence[str]
    good: Good
    runs: int = 8
    rounds: int = 5
    base_url: Callable[[int], str] = lambda run: "https://api.openai.com/v1"
    served_model: Callable[[int], str] = lambda run: "gpt-4o-mini-2026-01-15"
    prompt_prefix: str = "Question"
    name: str = "nightly"

    def run_id(self, run: int) -> str:
        return f"{self.name}-{run + 1:02d}"

    def log(self, run: int) -> RunLog:
        route = Route(
            base_url=self.base_url(run),
            model="gpt-4o-mini",
            key_fingerprint="sha256:0123456789ab",
            temperature=0.0,
        )
        rounds = [
            [self._result(task_id, run, r, route) for task_id in self.task_ids] for r in range(self.rounds)
        ]
        return RunLog(
            format="2",
            run_id=self.run_id(run),
            label=self.run_id(run),
            created_at=START + timedelta(days=run),
            route=route,
            tasks=[TaskSpec(task_id=t, prompt=f"{self.prompt_prefix} {t}?") for t in self.task_ids],
            runs=rounds,
        )

    def _result(self, task_id: str, run: int, r: int, route: Route) -> Result:
        ok = self.good(task_id, run, r)
        return Result(
            task_id=task_id,
            round=r + 1,
            answer=f"right {task_id}" if ok else f"wrong {task_id} {r % 2}",
            success=ok,
            total_tokens=100,
            route=route,
            served_model=self.served_model(run),
            system_fingerprint="fp_1",
        )

    def save(self, folder: Path, runs: Sequence[int] | None = None) -> list[Path]:
        folder.mkdir(parents=True, exist_ok=True)
        return [
            save_log(self.log(run), folder / f"{self.run_id(run)}.altk_runs.json")
            for run in (range(self.runs) if runs is None else runs)
        ]
