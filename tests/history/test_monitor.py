"""`rerunlens monitor` on the built-in simulator: probes appended to the history, a killed monitor
resumes where it stopped, an outage raises an alert on stderr, in the exit code and at the webhook."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from analyzer.cli.main import main
from analyzer.history.monitor import parse_interval

ROOT = Path(__file__).resolve().parents[2]
TASKS = [
    {"task_id": "sum", "prompt": "What is 2+2?"},
    {"task_id": "capital", "prompt": "Capital of France?"},
    {"task_id": "sky", "prompt": "Color of the sky on a clear day?"},
]


def _task_file(tmp_path: Path) -> Path:
    path = tmp_path / "probes.json"
    path.write_text(json.dumps(TASKS))
    return path


def _monitor(tmp_path: Path, *extra: str) -> list[str]:
    return ["monitor", "--tasks", str(_task_file(tmp_path)), "--every", "1s", "--samples", "4"] + [
        "--state-dir", str(tmp_path / "monitor"), "--temperature", "0", *extra
    ]  # fmt: skip


def _probes(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("probe-*.altk_runs.json"))


def test_a_killed_monitor_resumes_where_it_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "monitor"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-m", "analyzer.cli", *_monitor(tmp_path)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while len(_probes(folder)) < 2 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.1)
        assert len(_probes(folder)) >= 2
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        assert child.stderr is not None
        first_words = child.stderr.read()
    assert "probes a day x 3 tasks x 4 samples" in first_words.splitlines()[0]
    done = len(_probes(folder))
    assert main([*_monitor(tmp_path), "--max-probes", str(done + 1)]) == 0
    assert _probes(folder) == [f"probe-{i:04d}.altk_runs.json" for i in range(1, done + 2)]
    capsys.readouterr()
    assert main(["history", str(folder), "--json"]) == 0
    history = json.loads(capsys.readouterr().out)
    assert [r["run_id"] for r in history["runs"]] == [f"probe-{i:04d}" for i in range(1, done + 2)]
    assert {t["label"] for t in history["tasks"]} == {"stable"}


class _Hook(BaseHTTPRequestHandler):
    received: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Hook.received.append(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_an_outage_raises_an_alert_on_stderr_the_exit_code_and_the_webhook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*_monitor(tmp_path), "--max-probes", "3"]) == 0
    assert "ALERT" not in capsys.readouterr().err
    outage = tmp_path / "outage.json"
    outage.write_text(json.dumps({"faults": {"server_error_rate": 1.0, "retry_after_s": 0}}))
    server = HTTPServer(("127.0.0.1", 0), _Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hook = f"http://127.0.0.1:{server.server_port}/alerts"
    try:
        code = main(
            [*_monitor(tmp_path), "--max-probes", "4", "--scenario", str(outage), "--max-retries", "0"]
            + ["--webhook", hook]
        )
    finally:
        server.shutdown()
    err = capsys.readouterr().err
    assert code == 1
    assert "ALERT at probe 4: 3 task(s) regressed at this run" in err
    [alert] = _Hook.received
    assert alert["run_id"] == "probe-0004" and sorted(alert["regressed_tasks"]) == ["capital", "sky", "sum"]


def test_a_webhook_that_is_not_http_is_refused_before_any_probe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*_monitor(tmp_path), "--max-probes", "1", "--webhook", "file:///etc/passwd"]) == 2
    assert "only http:// or https:// URLs" in capsys.readouterr().err
    assert not (tmp_path / "monitor").exists()


def test_intervals_are_read_with_their_unit_and_nonsense_is_refused() -> None:
    assert [parse_interval(t) for t in ("90s", "30m", "6h", "1d", "5")] == [90, 1800, 21600, 86400, 5]
    for bad in ("0s", "soon", "-5m", "30 minutes"):
        with pytest.raises(Exception, match="--every"):
            parse_interval(bad)


def test_a_reference_log_starts_the_history_and_one_of_other_tasks_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = tmp_path / "reference.altk_runs.json"
    tasks = _task_file(tmp_path)
    run = [
        "run",
        "--tasks",
        str(tasks),
        "--repeat",
        "4",
        "--temperature",
        "0",
        "--quiet",
        "--out",
        str(reference),
    ]
    assert main(run) == 0
    assert main([*_monitor(tmp_path), "--max-probes", "1", "--against", str(reference)]) == 0
    capsys.readouterr()
    assert main(["history", str(tmp_path / "monitor"), str(reference), "--json"]) == 0
    history = json.loads(capsys.readouterr().out)
    assert [Path(r["path"]).name for r in history["runs"]] == [reference.name, "probe-0001.altk_runs.json"]
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"task_id": "sum", "prompt": "What is 3+3?"}]))
    assert (
        main(["run", "--tasks", str(other), "--repeat", "2", "--quiet", "--out", str(tmp_path / "o.json")])
        == 0
    )
    assert main([*_monitor(tmp_path), "--max-probes", "2", "--against", str(tmp_path / "o.json")]) == 2
    assert "ran other tasks (or prompts) than the task file" in capsys.readouterr().err
