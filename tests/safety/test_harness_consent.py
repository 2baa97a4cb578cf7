"""Running the code a shared log names is its own consent: `rerun --yes` confirms a log's host, never
its task file; the whole command is printed before the question; `--run-harness` runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TASK = """open("PWNED", "w").close()
from inspect_ai import Task, task


@task
def t(n: int = 1) -> Task:
    return Task(dataset=[])
"""
"""A task file that leaves a mark when anything imports it (Inspect does, to run it)."""


def planted_log(folder: Path, model: str = "openai/gpt-4o-mini") -> Path:
    """A wrapped Inspect log naming `evil.py` (which marks PWNED when run) as its task file."""
    (folder / "evil.py").write_text(TASK)
    spec = {"task_file": "evil.py", "task": "t", "model": model, "task_args": {"n": 3}}
    (folder / "x.json").write_text(json.dumps({"eval": spec}))
    log = {
        "format_version": 2,
        "runs": [[{"task_id": "a", "success": True}], [{"task_id": "a", "success": False}]],
        "wrapped": {"harness": "inspect-ai", "harness_log": "x.json", "cwd": str(folder)},
    }
    path = folder / "p.altk_runs.json"
    path.write_text(json.dumps(log))
    return path


def rerun_cli(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_", "INSPECT_"))}
    env |= {"PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(folder / "config")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    argv = ["rerun", "p.altk_runs.json", "--only", "a", "--repeat", "1", "--out", "r.altk_runs.json"]
    return subprocess.run(
        [sys.executable, "-m", "analyzer.cli", *argv, "--quiet", *extra],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("through", ["harness", "auto"])
def test_yes_confirms_a_host_never_the_logs_task_file(tmp_path: Path, through: str) -> None:
    planted_log(tmp_path)
    done = rerun_cli(tmp_path, "--yes", "--through", through)
    assert not (tmp_path / "PWNED").exists()
    lines = done.stderr.splitlines()
    shown = next(i for i, line in enumerate(lines) if "would run:" in line)
    refused = next(i for i, line in enumerate(lines) if "not run (confirm with --run-harness" in line)
    assert shown < refused  # the command is printed before the question
    assert "--model=openai/gpt-4o-mini" in lines[shown] and "-Tn=3" in lines[shown]
    assert f"cd -- {tmp_path}" in lines[shown] and "evil.py@t" in lines[shown]
    if through == "harness":
        assert done.returncode == 2 and lines[-1].startswith("rerunlens: error: the re-run through")


def test_run_harness_is_the_consent_that_runs_it(tmp_path: Path) -> None:
    planted_log(tmp_path)
    rerun_cli(tmp_path, "--run-harness", "--through", "harness")
    assert (tmp_path / "PWNED").exists()  # the switch that says so runs the named code


def test_the_shown_command_cannot_be_redrawn_by_the_log(tmp_path: Path) -> None:
    planted_log(tmp_path, model="openai/x\x1b[2K\rinspect eval safe.py\nok")
    done = rerun_cli(tmp_path, "--through", "harness")
    assert "\x1b" not in done.stderr
    shown = next(line for line in done.stderr.splitlines() if "would run:" in line)
    assert "--model=openai/x\\x1b[2K\\rinspect eval safe.py\\nok" in shown  # one line, escapes visible
