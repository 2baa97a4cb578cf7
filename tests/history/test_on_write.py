"""Index on write: a log RerunLens writes into a runs folder is in that folder's history at once."""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from pathlib import Path

import pytest
from fake_keys import FAKE_KEY
from plan_kit import start_run

from analyzer.cli import main
from analyzer.history import HistoryRequest, RunStore, database_url, load_history
from analyzer.history.database import DB_FILE_NAME
from analyzer.jobs.manager import JobManager
from analyzer.jobs.uploads import store_log_upload
from analyzer.log.taskfile import load_tasks
from analyzer.routes.profile import RouteProfile
from analyzer.simulator import Scenario, Simulator

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_A = ROOT / "sample_runs" / "A_baseline.altk_runs.json"
INSPECT = ROOT / "tests" / "fixtures" / "foreign" / "inspect_ai" / "mock_epochs.eval"
TASKS = str(ROOT / "tests" / "fixtures" / "tasks" / "three_tasks.json")


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "runs"
    monkeypatch.setenv("RERUNLENS_RUNS_DIR", str(folder))
    monkeypatch.delenv("RERUNLENS_HISTORY", raising=False)
    return folder


def _indexed_paths(folder: Path) -> list[str]:
    store = RunStore(database_url(None, folder))
    try:
        return [row["path"] for row in store.runs()]
    finally:
        store.close()


def _run(out: Path, *more: str) -> int:
    return main(["run", "--tasks", TASKS, "--repeat", "2", "--out", str(out), "--quiet", *more])


def test_a_run_into_the_runs_folder_is_listed_by_the_history_without_reading_the_log(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = runs / "nightly.altk_runs.json"
    assert _run(out) == 0
    run_id = re.search(r"run_id (\S+)", capsys.readouterr().out).group(1)  # type: ignore[union-attr]
    # The log's bytes blanked, its size and time kept: a history that read the log again would find
    # no run in it; one that indexed it on write still lists the run.
    info = out.stat()
    out.write_bytes(b" " * info.st_size)
    os.utime(out, ns=(info.st_atime_ns, info.st_mtime_ns))
    result = load_history(HistoryRequest([str(runs)]))
    assert result.indexed.read == [] and result.indexed.unchanged == 1
    assert [r["run_id"] for r in result.history.runs] == [run_id]


def test_a_rerun_and_a_kept_upload_are_in_the_history(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs.mkdir()
    kept = store_log_upload(runs, SAMPLE_A.name, SAMPLE_A.read_bytes())
    rerun_out = runs / "A.rerun.altk_runs.json"
    args = ["--only", "shop-002", "--repeat", "1", "--out", str(rerun_out), "--quiet"]
    assert main(["rerun", str(kept), *args]) == 0
    assert sorted(_indexed_paths(runs)) == sorted([str(kept.resolve()), str(rerun_out.resolve())])


def test_a_wrapped_run_and_both_logs_of_a_live_audit_are_in_the_history(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs.mkdir()
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    wrapped = runs / "inspect.altk_runs.json"
    assert main(["wrap", "--log", str(INSPECT), "--out", str(wrapped), "--", sys.executable, "-c", "0"]) == 0
    simulator = Simulator(Scenario(latency_ms=(0.0, 0.5))).start()
    try:
        live = [
            "--tasks",
            TASKS,
            "--samples",
            "2",
            "--out",
            str(runs),
            "--yes",
            "--key-env",
            "OPENAI_API_KEY",
        ]
        assert (
            main(["audit", *live, "--reference", simulator.base_url, "--candidate", simulator.base_url]) == 0
        )
    finally:
        simulator.stop()
    audits = [str((runs / f"audit-{side}.altk_runs.json").resolve()) for side in ("candidate", "reference")]
    assert sorted(_indexed_paths(runs)) == sorted([*audits, str(wrapped.resolve())])


def test_a_dashboard_run_job_is_in_the_history_when_it_reads_done(runs: Path) -> None:
    runs.mkdir()
    mgr = JobManager(runs)
    job = start_run(mgr, load_tasks(TASKS), RouteProfile(), rounds=1)
    done = mgr.wait(job.job_id, 60)
    assert done.state == "done"
    assert _indexed_paths(runs) == [str(Path(done.out).resolve())]


def test_a_broken_database_is_one_warning_and_the_run_still_succeeds(
    runs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RERUNLENS_DB_URL", "postgresql://team:s3cret-pw@127.0.0.1:1/history")
    out = runs / "a.altk_runs.json"
    assert _run(out) == 0
    assert out.is_file()
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if line.startswith("rerunlens: warning:")]
    assert len(warnings) == 1, err
    assert str(out) in warnings[0] and "team:***@127.0.0.1" in warnings[0]
    assert "s3cret" not in err and "Traceback" not in err


def test_no_history_and_the_variable_write_no_database(runs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(runs / "a.altk_runs.json", "--no-history") == 0
    monkeypatch.setenv("RERUNLENS_HISTORY", "0")
    assert _run(runs / "b.altk_runs.json") == 0
    assert sorted(p.name for p in runs.iterdir()) == ["a.altk_runs.json", "b.altk_runs.json"]


def test_a_log_outside_any_runs_folder_is_not_indexed_but_one_under_a_history_is(
    runs: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    assert _run(elsewhere / "x.altk_runs.json") == 0
    assert not (runs / DB_FILE_NAME).exists() and not (elsewhere / DB_FILE_NAME).exists()
    load_history(HistoryRequest([str(elsewhere)]))  # that folder now holds a history of its own
    assert _run(elsewhere / "nightly" / "y.altk_runs.json") == 0
    assert str((elsewhere / "nightly" / "y.altk_runs.json").resolve()) in _indexed_paths(elsewhere)


def test_a_history_locked_by_another_writer_is_one_warning_after_a_bounded_wait(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs.mkdir()
    RunStore(database_url(None, runs)).close()  # the history exists
    holder = sqlite3.connect(runs / DB_FILE_NAME)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing, for longer than a run waits
    try:
        assert _run(runs / "a.altk_runs.json") == 0
    finally:
        holder.rollback()
        holder.close()
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "database is locked" in warnings[0]
    assert (runs / "a.altk_runs.json").is_file()
