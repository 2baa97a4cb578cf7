"""A command-line run started in the background, for the tests that watch one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fake_keys import FAKE_KEY

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "sample_runs" / "tasks.json"


def start_cli_run(tmp_path: Path, rounds: int = 2) -> tuple[subprocess.Popen[str], Path]:
    """`rerunlens run` on the simulator, slowed down (one worker, 60-90 ms per call) so it can be watched."""
    scenario = tmp_path / "slow.json"
    scenario.write_text(json.dumps({"latency_ms": [60, 90], "flaky_share": 0.3}), encoding="utf-8")
    out = tmp_path / "runs" / "live.altk_runs.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_"))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "analyzer.cli", "run", "--tasks", str(TASKS), "--repeat", str(rounds)]
        + ["--out", str(out), "--scenario", str(scenario), "--concurrency", "1", "--quiet"],
        cwd=ROOT,
        env={**env, "OPENAI_API_KEY": FAKE_KEY},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return proc, out


def journal_of(out: Path) -> Path:
    return out.with_name(out.name.removesuffix(".json") + ".journal.jsonl")
