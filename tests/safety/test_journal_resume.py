"""A journal is data someone could have edited: its header is checked before anything is planned,
and a resume takes its executor, base URL and key variable from the user, never from the journal."""

from __future__ import annotations

import json
import sys
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint, Received, Reply, completion

from analyzer.cli import main
from analyzer.runner.journal import journal_path

TASKS = [{"task_id": "t1", "prompt": "say OK"}]


def _journal(out: Path, **header: Any) -> None:
    head = {"type": "header", "run_id": "forged", "created_at": datetime.now(UTC).isoformat(), "rounds": 1}
    head.update({"tasks": TASKS, **header})
    journal_path(out).write_text(json.dumps(head) + "\n")


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_forged_header_planning_millions_of_results_is_refused_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.altk_runs.json"
    _journal(out, rounds=1000, tasks=[{"task_id": f"t{i}", "prompt": "p"} for i in range(3000)])
    tracemalloc.start()
    try:
        code = main(["run", "--out", str(out), "--resume", "--quiet"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2 and "over the 2,500,000 results" in _error(capsys)
    assert peak < 64 * 2**20


def test_a_journal_never_chooses_the_executor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.altk_runs.json"
    _journal(out, executor="rerunlens_evil_module:run")
    assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 2
    assert "--executor" in _error(capsys) and "rerunlens_evil_module" not in sys.modules
    assert main(["run", "--out", str(out), "--resume", "--quiet", "--executor", "os:system"]) == 2
    assert "--executor" in _error(capsys)


def _ok(_got: Received) -> Reply:
    return completion("OK")


def test_a_journal_never_chooses_where_the_key_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", FAKE_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    out = tmp_path / "r.altk_runs.json"
    with HostileEndpoint(_ok) as ep:
        for key_env in ("GITHUB_TOKEN", "OPENAI_API_KEY"):
            _journal(out, profile={"base_url": ep.base_url, "key_env": key_env, "rounds": 1})
            assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 2
            assert FAKE_KEY not in _error(capsys)
        assert ep.received == []
        monkeypatch.setenv("OPENAI_BASE_URL", ep.base_url)  # the user's own route: the same host
        assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 0
        assert ep.received


def test_a_dashboard_resume_keeps_the_route_the_page_chose(tmp_path: Path) -> None:
    """A journal edited to send the key elsewhere is refused by the job's resume, nothing sent."""
    import time as clock

    from plan_kit import start_run

    from analyzer.jobs.manager import get_manager
    from analyzer.log.taskfile import load_tasks
    from analyzer.routes.profile import RouteProfile
    from analyzer.simulator.app_tasks import app_scenario

    runs = tmp_path / "runs"
    runs.mkdir()
    mgr = get_manager(runs)
    tasks = load_tasks("sample_runs/tasks.json")[:4]
    slow = app_scenario().model_copy(update={"latency_ms": (40.0, 40.0)})
    job = start_run(mgr, tasks, RouteProfile(), rounds=3, scenario=slow)
    while (mgr.status(job.job_id) or job).done < 2:
        clock.sleep(0.01)
    mgr.cancel(job.job_id)
    cancelled = mgr.wait(job.job_id, 30)
    journal = Path(cancelled.journal)
    lines = journal.read_text().splitlines()
    with HostileEndpoint(_ok) as ep:
        header = json.loads(lines[0])
        header["profile"] = {**header["profile"], "base_url": ep.base_url}
        journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
        with pytest.raises(Exception, match="different route"):
            mgr.resume(job.job_id, scenario=app_scenario())
        assert ep.received == []
