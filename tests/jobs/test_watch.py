"""Watching a run started from the command line: its journal read as it grows, the run undisturbed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from run_kit import journal_of, start_cli_run

from analyzer.analysis import analyze
from analyzer.errors import RerunLensError
from analyzer.jobs.watch import log_for, running_journals, watch
from analyzer.log.loader import load_path
from analyzer.log.taskfile import load_tasks

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "sample_runs" / "tasks.json"


def test_a_cli_run_is_watched_while_it_runs_and_when_it_ends(tmp_path: Path) -> None:
    proc, out = start_cli_run(tmp_path)
    journal = journal_of(out)
    assert log_for(journal) == out
    seen: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not seen or seen[-1] < 5):
            if journal.exists():
                progress = watch(journal)
                assert not progress.finished
                seen.append(progress.done)
            time.sleep(0.1)
        assert running_journals(tmp_path / "runs") == [journal]
        mid = watch(journal)
        lines = [json.loads(x) for x in journal.read_text(encoding="utf-8").splitlines()[1:] if x.strip()]
        assert mid.tasks == 30 and mid.rounds == 2 and mid.total == 60
        assert 5 <= mid.done <= len(lines) < 60  # whole lines only, and the run is still going
        assert mid.answers["rounds_done"].sum() == mid.done
    finally:
        stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr  # watching never got in the run's way
    assert seen == sorted(seen) and seen[0] < seen[-1]  # it grew while watched

    final = watch(journal)  # the journal is gone: the log says how it ended
    log = load_path(out).log
    assert final.finished and not journal.exists()
    assert final.done == 60 == sum(len(r) for r in log.runs)
    assert final.retries == int(analyze(log).results["n_retries"].fillna(0).sum())  # counted alike
    assert final.tokens == sum(r.total_tokens or 0 for _, r in log.results())
    answers = final.answers.set_index("task_id")
    assert list(answers.index) == [str(t.task_id) for t in load_tasks(TASKS)]
    first = answers.loc["shop-001"]
    expected = {r.answer.strip() for _, r in log.results() if str(r.task_id) == "shop-001" and r.answer}
    assert first["rounds_done"] == 2 and first["distinct_answers"] == len(expected)


def test_a_journal_with_a_half_written_line_is_read_up_to_it(tmp_path: Path) -> None:
    journal = tmp_path / "x.altk_runs.journal.jsonl"
    header = {"type": "header", "run_id": "r1", "created_at": "2026-11-30T10:00:00+00:00", "rounds": 2}
    header["tasks"] = [{"task_id": "a", "prompt": "p"}, {"task_id": "b", "prompt": "q"}]
    rows = [
        {
            "task_id": "a",
            "answer": "42",
            "round": 1,
            "total_tokens": 10,
            "attempts": [{"attempt": 1, "outcome": "rate_limited"}, {"attempt": 2, "outcome": "ok"}],
        },
        {"task_id": "a", "answer": "41", "round": 2, "total_tokens": 12},
        {"task_id": "b", "answer": None, "round": 1, "status": "error"},
    ]
    text = (
        json.dumps(header) + "\n" + "".join(json.dumps({"type": "result", "result": r}) + "\n" for r in rows)
    )
    journal.write_text(text + '{"type": "result", "res', encoding="utf-8")  # the writer is mid-line
    progress = watch(journal)
    assert (progress.done, progress.errors, progress.retries, progress.tokens) == (3, 1, 1, 22)
    assert progress.fraction == 3 / 4
    a = progress.answers.set_index("task_id").loc["a"]
    assert (a["rounds_done"], a["distinct_answers"], a["latest_answer"]) == (2, 2, "41")


def test_nothing_to_watch_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(RerunLensError, match=r"no such journal, and no log x.altk_runs.json beside it"):
        watch(tmp_path / "x.altk_runs.journal.jsonl")
