"""Kill a real `rerunlens run` process mid-way (SIGKILL), resume it: every result exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from analyzer.log.loader import load_path
from analyzer.log.taskfile import load_tasks
from analyzer.runner import journal_path

TASKS = Path("tests/fixtures/tasks/three_tasks.json")
ROUNDS = 12


def _offline_env() -> dict[str, str]:
    """The environment without route settings, so the run talks to the embedded simulator only."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_"))}


def _default_sigint() -> None:
    """A shell that starts jobs in the background ignores SIGINT for them; a terminal would not."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _slow_run(tmp_path: Path, out: Path, *extra: str) -> list[str]:
    """The `rerunlens run` command for the three sample tasks on a slow simulator."""
    scenario = tmp_path / "slow.json"
    scenario.write_text(json.dumps({"latency_ms": [40, 60]}))
    return [
        sys.executable,
        "-m",
        "analyzer.cli",
        "run",
        "--tasks",
        str(TASKS),
        "--out",
        str(out),
        "--repeat",
        str(ROUNDS),
        "--scenario",
        str(scenario),
        *extra,
        "--quiet",
    ]


def _result_lines(path: Path) -> int:
    if not path.exists():
        return 0
    return path.read_bytes().count(b'"type": "result"')


def test_sigkill_then_resume_gives_every_result_exactly_once(tmp_path: Path) -> None:
    out = tmp_path / "killed.altk_runs.json"
    cmd = _slow_run(tmp_path, out, "--concurrency", "2")
    env = _offline_env()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    journal = journal_path(out)
    deadline = time.monotonic() + 30
    try:
        while _result_lines(journal) < 8:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the run never got going"
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert not out.exists()
    before = _result_lines(journal)
    assert 8 <= before < 3 * ROUNDS

    done = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    log = load_path(out).log
    ids = [str(t.task_id) for t in load_tasks(TASKS)]
    keys = [(str(r.task_id), r.round) for rnd in log.runs for r in rnd]
    assert len(keys) == len(set(keys)) == len(ids) * ROUNDS
    assert set(keys) == {(t, n) for t in ids for n in range(1, ROUNDS + 1)}
    assert not journal.exists()


def test_ctrl_c_leaves_a_resumable_journal_and_says_how_to_resume(tmp_path: Path) -> None:
    out = tmp_path / "interrupted.altk_runs.json"
    cmd = _slow_run(tmp_path, out)
    env = _offline_env()
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint
    )
    journal = journal_path(out)
    deadline = time.monotonic() + 30
    while _result_lines(journal) < 4:
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "Resume with: rerunlens run" in err and "--resume" in err
    assert not out.exists() and journal.exists()
    resume = err.split("Resume with: ", 1)[1].splitlines()[0].split()[2:]  # drop "rerunlens run"
    done = subprocess.run(
        [sys.executable, "-m", "analyzer.cli", "run", *resume],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    keys = [(str(r.task_id), r.round) for rnd in load_path(out).log.runs for r in rnd]
    assert len(keys) == len(set(keys)) == 3 * ROUNDS
