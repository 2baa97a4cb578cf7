"""A re-run of a wrapped Inspect log goes through Inspect itself, on the selected samples and epochs;
a prompt-only re-run says what it measures."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_keys import FAKE_KEY

from analyzer.errors import RerunLensError
from analyzer.importers import load_any
from analyzer.log.model import RunLog
from analyzer.proxy.harness_rerun import PROMPT_ONLY, harness_command

ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).resolve().parent / "harness"


def _cli(tmp_path: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_", "INSPECT_"))}
    env |= {"PYTHONPATH": str(ROOT), "OPENAI_API_KEY": FAKE_KEY}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [sys.executable, "-m", "analyzer.cli", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_an_inspect_log_is_re_run_through_inspect_on_the_chosen_samples(tmp_path: Path) -> None:
    shutil.copy(HARNESS / "inspect_task.py", tmp_path / "inspect_task.py")
    (tmp_path / "scenario.json").write_text(json.dumps({"latency_ms": [1, 3]}))
    inspect = ["inspect", "eval", "inspect_task.py", "--model", "openai/gpt-4o-mini", "--epochs", "2"]
    first = _cli(
        tmp_path, ["wrap", "--scenario", "scenario.json", "--out", "p.altk_runs.json", "--", *inspect]
    )
    assert first.returncode == 0, first.stderr

    ask = ["rerun", "p.altk_runs.json", "--only", "sum", "colour", "--repeat", "3", "--through", "harness"]
    refused = _cli(tmp_path, [*ask, "--scenario", "scenario.json", "--out", "r.altk_runs.json"])
    assert refused.returncode != 0 and not (tmp_path / "r.altk_runs.json").exists()  # no terminal or switch
    line = (
        f"the re-run through inspect-ai runs the task file {tmp_path / 'inspect_task.py'}, named by the log"
    )
    assert refused.stderr.strip().splitlines()[-1] == (
        f"rerunlens: error: {line}: not run (confirm with --run-harness, or answer y on a terminal)"
    )
    assert not list(tmp_path.glob("*.harness"))  # Inspect never started
    beside = _cli(tmp_path, [*ask, "--with-parent-route", "--out", "m.altk_runs.json"])
    assert beside.returncode != 0 and not (tmp_path / "m.altk_runs.json").exists()
    assert "--with-parent-route runs prompt-only rounds" in beside.stderr.strip().splitlines()[-1]
    auto = _cli(
        tmp_path, ["rerun", "p.altk_runs.json", "--only", "sum", "--repeat", "1", "--out", "a.altk_runs.json"]
    )
    assert (
        auto.returncode == 0 and PROMPT_ONLY in auto.stderr and "not run" in auto.stderr
    )  # auto: prompt only
    ask += ["--run-harness", "--json"]
    again = _cli(tmp_path, [*ask, "--scenario", "scenario.json", "--out", "r.altk_runs.json"])
    assert again.returncode == 0, again.stdout + again.stderr
    assert "--sample-id=sum,colour --epochs=3" in again.stderr  # the exact command, shown
    child = load_any(tmp_path / "r.altk_runs.json").log
    results = [r for rnd in child.runs for r in rnd]
    assert sorted({str(r.task_id) for r in results}) == ["colour", "sum"] and len(results) == 6
    assert all(r.attempts for r in results)  # joined: the re-run is wrapped too
    assert (child.model_extra or {})["wrapped"]["harness"] == "inspect-ai"
    shown = json.loads(again.stdout)  # --json: the before/after as JSON, nothing else on stdout
    assert shown["through"] == "inspect-ai" and shown["returncode"] == 0
    assert shown["path"] == "r.altk_runs.json" and "--sample-id=sum,colour" in shown["command"]
    assert sorted(row["task_id"] for row in shown["tasks"]) == ["colour", "sum"]
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or FAKE_KEY.encode() not in path.read_bytes(), path

    ask = ["rerun", "p.altk_runs.json", "--only", "sum", "--repeat", "2", "--through", "prompt"]
    prompt = _cli(tmp_path, [*ask, "--out", "q.altk_runs.json"])
    assert prompt.returncode == 0, prompt.stderr
    assert PROMPT_ONLY in prompt.stderr


def test_a_missing_task_file_is_one_line(tmp_path: Path) -> None:
    log = RunLog.model_validate(
        {
            "runs": [[{"task_id": "a"}]],
            "wrapped": {"harness": "inspect-ai", "harness_log": "x.eval", "cwd": str(tmp_path)},
        }
    )
    with pytest.raises(RerunLensError) as err:
        harness_command(log, ["a"], 1, tmp_path / "out")
    assert str(err.value) == f"{tmp_path / 'x.eval'}: the inspect-ai log this run came from is not there"


def test_a_promptfoo_log_is_re_run_through_promptfoo_on_the_chosen_tests(tmp_path: Path) -> None:
    bin_dir = ROOT / ".cache" / "promptfoo" / "node_modules" / ".bin"
    assert (bin_dir / "promptfoo").exists(), "promptfoo is not installed: bash scripts/test.sh installs it"
    shutil.copy(HARNESS / "promptfooconfig.yaml", tmp_path / "promptfooconfig.yaml")
    (tmp_path / "scenario.json").write_text(json.dumps({"latency_ms": [1, 3]}))
    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"  # undone below
    try:
        os.environ |= {"PROMPTFOO_CONFIG_DIR": str(tmp_path / ".pf"), "PROMPTFOO_DISABLE_TELEMETRY": "1"}
        promptfoo = ["promptfoo", "eval", "-c", "promptfooconfig.yaml", "-o", "results.json", "--no-cache"]
        wrap = ["wrap", "--scenario", "scenario.json", "--out", "p.altk_runs.json", "--"]
        first = _cli(tmp_path, [*wrap, *promptfoo])
        assert first.returncode in (0, 100), first.stderr
        ask = ["rerun", "p.altk_runs.json", "--only", "sum", "--repeat", "2", "--through", "harness"]
        ask.append("--run-harness")
        again = _cli(tmp_path, [*ask, "--scenario", "scenario.json", "--out", "r.altk_runs.json"])
    finally:
        os.environ["PATH"] = os.environ["PATH"].split(os.pathsep, 1)[1]
        for name in ("PROMPTFOO_CONFIG_DIR", "PROMPTFOO_DISABLE_TELEMETRY"):
            os.environ.pop(name, None)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "'--filter-pattern=^(sum)$' --repeat=2" in again.stderr
    results = [r for rnd in load_any(tmp_path / "r.altk_runs.json").log.runs for r in rnd]
    assert [str(r.task_id) for r in results] == ["sum", "sum"] and all(r.attempts for r in results)
