"""`rerunlens simulate` says what to export, and `rerunlens check` then passes with exactly that."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_exports_simulate_prints_make_check_pass(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_"))}
    server = subprocess.Popen(
        [sys.executable, "-m", "analyzer.cli", "simulate", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(4)]
        exports = dict(re.findall(r"^\s*export (\w+)=(\S+)", "".join(lines), flags=re.M))
        assert set(exports) == {"OPENAI_BASE_URL", "OPENAI_API_KEY"}, lines
        assert "any non-empty key is accepted" in lines[2]
        assert lines[3].strip() == "then: rerunlens check"

        without_key = subprocess.run(
            [sys.executable, "-m", "analyzer.cli", "check"],
            cwd=tmp_path,
            env={**env, "PYTHONPATH": str(ROOT), "OPENAI_BASE_URL": exports["OPENAI_BASE_URL"]},
            capture_output=True,
            text=True,
            timeout=60,
        )
        checked = subprocess.run(
            [sys.executable, "-m", "analyzer.cli", "check"],
            cwd=tmp_path,
            env={**env, "PYTHONPATH": str(ROOT), **exports},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:  # SIGINT is ignored in a background job (`&`, nohup)
            pass
        finally:
            if server.poll() is None:  # never leave a simulator behind, whatever the signal did
                server.kill()
                server.wait()
    assert without_key.returncode != 0  # what the old message led to
    assert checked.returncode == 0, checked.stdout + checked.stderr
