"""Background jobs for the dashboard: start, find again, no duplicates, cancel, resume, no key on disk."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_keys import FAKE_KEY
from plan_kit import job_before_after, start_rerun, start_run

from analyzer.errors import RouteError
from analyzer.jobs.manager import JobManager, get_manager
from analyzer.log.loader import load_path
from analyzer.log.taskfile import load_tasks
from analyzer.routes.profile import RouteProfile
from analyzer.safety.keys import key_fingerprint
from analyzer.simulator.app_tasks import app_scenario

SAMPLE_A = Path("sample_runs/A_baseline.altk_runs.json")
SOME = ["shop-002", "cal-001", "file-001", "pay-003"]
"""Inconsistent tasks of the baseline, few enough to keep tests fast."""


def slow_scenario(ms: float = 25.0):
    return app_scenario().model_copy(update={"latency_ms": (ms, ms)})


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(SAMPLE_A, folder / SAMPLE_A.name)
    return folder


def test_rerun_job_finishes_with_a_linked_log_and_a_verdict(runs: Path) -> None:
    mgr = get_manager(runs)
    job = start_rerun(mgr, runs / SAMPLE_A.name, "inconsistent", RouteProfile(), rounds=2)
    assert job.state == "running" and job.kind == "rerun" and job.simulator
    done = mgr.wait(job.job_id, 60)
    assert done.state == "done" and done.done == done.total == len(job.task_ids) * 2
    log = load_path(done.out).log
    assert log.parent_run_id == "sample-A_baseline" and log.run_id == done.run_id
    assert Path(done.out).parent == runs
    # 2 rounds rarely settle a verdict: tasks may also be inconclusive (not in either list)
    assert set(done.turned_consistent or []) | set(done.still_inconsistent or []) <= set(job.task_ids)
    assert done.notice and "simulator" in done.notice
    assert JobManager(runs).latest("rerun", runs / SAMPLE_A.name).job_id == job.job_id  # after a reload
    frame = job_before_after(mgr, job.job_id)
    assert list(frame["task_id"]) == job.task_ids and "verdict" in frame.columns
    assert not Path(done.journal).exists()


def test_same_request_returns_the_running_job_and_a_reload_finds_it(runs: Path) -> None:
    mgr = get_manager(runs)
    args = (runs / SAMPLE_A.name, "inconsistent", RouteProfile())
    first = start_rerun(mgr, *args, rounds=3, scenario=slow_scenario())
    second = start_rerun(mgr, *args, rounds=3, scenario=slow_scenario())
    assert second.job_id == first.job_id
    other_tab = JobManager(runs)  # a fresh manager reads the state files, as another session would
    found = other_tab.active(kind="rerun", parent=runs / SAMPLE_A.name)
    assert [s.job_id for s in found] == [first.job_id]
    assert get_manager(runs) is mgr
    mgr.wait(first.job_id, 60)


def test_cancel_leaves_a_resumable_journal_and_resume_finishes_exactly_once(runs: Path) -> None:
    mgr = get_manager(runs)
    job = start_rerun(mgr, runs / SAMPLE_A.name, SOME, RouteProfile(), rounds=4, scenario=slow_scenario(40))
    while (mgr.status(job.job_id) or job).done < 3:
        time.sleep(0.01)
    mgr.cancel(job.job_id)
    cancelled = mgr.wait(job.job_id, 30)
    assert cancelled.state == "cancelled" and cancelled.resumable
    assert not Path(cancelled.out).exists() and Path(cancelled.journal).exists()
    mgr.resume(job.job_id, scenario=app_scenario())
    done = mgr.wait(job.job_id, 60)
    assert done.state == "done"
    log = load_path(done.out).log
    keys = [(str(r.task_id), r.round) for rnd in log.runs for r in rnd]
    assert len(keys) == len(set(keys)) == len(job.task_ids) * 4


def test_a_job_whose_process_died_is_interrupted_and_resumable(runs: Path) -> None:
    mgr = get_manager(runs)
    job = start_rerun(mgr, runs / SAMPLE_A.name, SOME, RouteProfile(), rounds=3, scenario=slow_scenario(40))
    while (mgr.status(job.job_id) or job).done < 2:
        time.sleep(0.01)
    mgr.cancel(job.job_id)
    mgr.wait(job.job_id, 30)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    state_file = runs / ".rerunlens" / "jobs" / f"{job.job_id}.jobstate"
    data = json.loads(state_file.read_text())
    data.update(state="running", pid=int(dead.stdout), process_token="another-process")
    state_file.write_text(json.dumps(data))
    mgr._live.pop(job.job_id)  # this process never ran it, as far as the new reader knows
    reader = JobManager(runs)
    status = reader.status(job.job_id)
    assert status is not None and status.state == "interrupted" and status.resumable
    assert reader.active() == []
    again = start_rerun(get_manager(runs), runs / SAMPLE_A.name, SOME, RouteProfile(), rounds=3)
    assert again.job_id == job.job_id  # the same request resumes the interrupted job
    assert get_manager(runs).wait(job.job_id, 60).state == "done"


def test_a_cancel_from_another_process_is_honoured(runs: Path) -> None:
    mgr = get_manager(runs)
    job = start_rerun(mgr, runs / SAMPLE_A.name, SOME, RouteProfile(), rounds=5, scenario=slow_scenario(40))
    JobManager(runs).cancel(job.job_id)  # writes the request into the state file
    assert mgr.wait(job.job_id, 30).state == "cancelled"


def test_run_job_from_a_task_file(runs: Path) -> None:
    mgr = get_manager(runs)
    tasks = load_tasks("tests/fixtures/tasks/three_tasks.json")
    job = start_run(mgr, tasks, RouteProfile(concurrency=2), rounds=2, label="new run")
    done = mgr.wait(job.job_id, 60)
    assert done.state == "done" and Path(done.out).exists() and Path(done.out).parent == runs
    assert load_path(done.out).log.label == "new run"
    assert [s.job_id for s in mgr.jobs()][0] == job.job_id


def test_a_session_key_is_never_written_and_is_needed_to_resume(runs: Path) -> None:
    mgr = get_manager(runs)
    job = start_rerun(
        mgr,
        runs / SAMPLE_A.name,
        SOME,
        RouteProfile(),
        rounds=3,
        api_key=FAKE_KEY,
        scenario=slow_scenario(40),
    )
    assert job.key_source == "session" and job.key_fingerprint == key_fingerprint(FAKE_KEY)
    while (mgr.status(job.job_id) or job).done < 2:
        time.sleep(0.01)
    mgr.cancel(job.job_id)
    mgr.wait(job.job_id, 30)
    with pytest.raises(RouteError, match="enter it again"):
        mgr.resume(job.job_id)
    for path in runs.rglob("*"):
        if path.is_file():
            assert "DO-NOT-LEAK" not in path.read_text(errors="replace"), path
    assert FAKE_KEY not in repr(mgr.status(job.job_id))
    mgr.resume(job.job_id, api_key=FAKE_KEY)
    done = mgr.wait(job.job_id, 60)
    assert done.state == "done"
    for path in runs.rglob("*"):
        if path.is_file():
            assert "DO-NOT-LEAK" not in path.read_text(errors="replace"), path
    assert key_fingerprint(FAKE_KEY) in Path(done.out).read_text()


def test_failure_is_a_state_with_a_one_line_reason(runs: Path) -> None:
    mgr = get_manager(runs)
    job = start_run(
        mgr,
        load_tasks("tests/fixtures/tasks/three_tasks.json"),
        RouteProfile(),
        rounds=1,
        executor="no_such_module_xyz:run",
    )
    failed = mgr.wait(job.job_id, 30)
    assert failed.state == "failed" and failed.error and "\n" not in failed.error


def test_two_tabs_clicking_at_once_start_one_job(runs: Path) -> None:
    import threading

    mgr = get_manager(runs)
    ids: list[str] = []

    def click() -> None:
        ids.append(start_rerun(mgr, runs / SAMPLE_A.name, SOME, RouteProfile(), rounds=2).job_id)

    clicks = [threading.Thread(target=click) for _ in range(3)]
    for t in clicks:
        t.start()
    for t in clicks:
        t.join()
    assert len(set(ids)) == 1
    assert mgr.wait(ids[0], 60).state == "done"


def test_a_failed_job_has_its_real_key_scrubbed(runs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.jobs.manager as jobs_mod

    key = "myorgkey_LEAKCHECK0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)

    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError(f"Illegal header value b'Bearer {key}\\n' (also {key.upper()})")

    monkeypatch.setattr(jobs_mod, "run_plan", boom)
    tasks = load_tasks("tests/fixtures/tasks/three_tasks.json")
    mgr = JobManager(runs)
    done = mgr.wait(start_run(mgr, tasks, RouteProfile(), rounds=1).job_id, 30)
    assert done.state == "failed" and done.error and "Illegal header value" in done.error
    for path in runs.rglob("*"):
        if path.is_file():
            assert "leakcheck" not in path.read_text(errors="replace").lower(), path
    monkeypatch.delenv("OPENAI_API_KEY")  # a key typed for the session is scrubbed the same way
    session = mgr.wait(start_run(mgr, tasks, RouteProfile(model="m2"), rounds=1, api_key=key).job_id, 30)
    assert session.state == "failed" and "leakcheck" not in (session.error or "").lower()


def test_a_rerun_job_with_other_sampling_than_its_parent_notes_it(runs: Path) -> None:
    mgr = JobManager(runs)
    profile = RouteProfile(temperature=1.0)
    done = mgr.wait(start_rerun(mgr, runs / SAMPLE_A.name, SOME[:1], profile, rounds=1).job_id, 60)
    assert done.state == "done" and done.notice
    assert "the re-run's sampling differs from the parent's" in done.notice
    assert "temperature 0.0 -> 1.0" in done.notice and "built-in simulator" in done.notice


def test_a_resumed_rerun_keeps_its_answer_key(runs: Path) -> None:
    mgr = get_manager(runs)
    job = start_rerun(
        mgr,
        runs / SAMPLE_A.name,
        SOME,
        RouteProfile(),
        rounds=4,
        key="normalized",
        scenario=slow_scenario(40),
    )
    while (mgr.status(job.job_id) or job).done < 2:
        time.sleep(0.01)
    mgr.cancel(job.job_id)
    mgr.wait(job.job_id, 30)
    state = json.loads((runs / ".rerunlens" / "jobs" / f"{job.job_id}.jobstate").read_text())
    assert state["answer_key"] == "normalized"
    mgr.resume(job.job_id, scenario=app_scenario())
    assert mgr.wait(job.job_id, 60).state == "done"
    assert JobManager(runs).status(job.job_id).answer_key == "normalized"  # type: ignore[union-attr]


def test_the_planners_rounds_per_task_and_one_number_for_all_are_different_requests(runs: Path) -> None:
    mgr = get_manager(runs)
    args = (runs / SAMPLE_A.name, SOME, RouteProfile())
    planned = start_rerun(mgr, *args, scenario=slow_scenario())  # the page's default: each task its own
    assert planned.total < len(SOME) * planned.rounds  # the rounds differ per task
    every = start_rerun(mgr, *args, rounds=planned.rounds, scenario=slow_scenario())  # the most, typed
    assert every.job_id != planned.job_id and every.total == len(SOME) * planned.rounds
    assert start_rerun(mgr, *args, scenario=slow_scenario()).job_id == planned.job_id  # the same again
    for job in (planned, every):
        assert mgr.wait(job.job_id, 120).state == "done"
