"""wrap passes signals through: SIGTERM reaches the child, wrap ends with the child's exit code and
the journal is closed; which harness wrote a log is read from the command's own flags."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from fake_keys import FAKE_KEY

from analyzer.proxy.harness_logs import find_harness_log, flag_value, harness_kind

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import signal, sys, time
def stop(signum, frame):
    open("got_term", "w").write("yes")
    sys.exit(3)
signal.signal(signal.SIGTERM, stop)
open("ready", "w").write("yes")
time.sleep(60)
"""


def test_sigterm_reaches_the_child_and_its_exit_code_is_wraps(tmp_path: Path) -> None:
    (tmp_path / "child.py").write_text(CHILD)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_"))}
    wrap = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "analyzer.cli",
            "wrap",
            "--out",
            "w.altk_runs.json",
            "--",
            sys.executable,
            "child.py",
        ],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": FAKE_KEY},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "ready").exists():
            assert time.monotonic() < deadline and wrap.poll() is None
            time.sleep(0.1)
        wrap.send_signal(signal.SIGTERM)
        _, err = wrap.communicate(timeout=30)
    finally:
        if wrap.poll() is None:
            wrap.kill()
            wrap.wait()
    assert (tmp_path / "got_term").read_text() == "yes"
    assert wrap.returncode == 3, err
    assert "no call reached the proxy: no log written" in err
    kinds = [json.loads(line)["kind"] for line in (tmp_path / "w.proxy.jsonl").read_text().splitlines()]
    assert kinds == ["start", "end"]


def test_the_harness_and_its_log_are_read_from_the_command(tmp_path: Path) -> None:
    assert harness_kind(["/venv/bin/inspect", "eval", "t.py"]) == "inspect-ai"
    assert harness_kind(["python", "-m", "inspect_ai", "eval", "t.py"]) == "inspect-ai"
    assert harness_kind(["npx", "promptfoo", "eval", "-c", "c.yaml"]) == "promptfoo"
    assert harness_kind(["python", "agent.py"]) is None
    assert flag_value(["x", "--log-dir", "a", "--log-dir=b"], "--log-dir") == "b"
    logs = tmp_path / "mylogs"
    logs.mkdir()
    old, new = logs / "old.eval", logs / "new.eval"
    old.write_text("x")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    started = time.time()
    new.write_text("x")
    found = find_harness_log(["inspect", "eval", "t.py", "--log-dir", "mylogs"], None, started, tmp_path)
    assert found is not None and found.path == new and found.others == 0  # the old log is not this run's
    (tmp_path / "out.json").write_text("{}")
    promptfoo = find_harness_log(
        ["promptfoo", "eval", "-o", "out.html", "-o", "out.json"], None, started, tmp_path
    )
    assert promptfoo is not None and promptfoo.path == tmp_path / "out.json"
    assert find_harness_log(["python", "agent.py"], None, started, tmp_path) is None
