"""The wheel carries the dashboard: built from the checkout, installed (not editable) into a fresh venv,
`rerunlens dashboard` started from another folder serves the app and lists the shipped samples."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return next(out.glob("rerunlens-*.whl"))


def test_the_wheel_holds_the_app_and_the_sample_logs(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    views = {p.name for p in (ROOT / "app" / "views").glob("*.py")}
    assert "app/main.py" in names
    assert {f"app/views/{v}" for v in views} <= names
    samples = {p.name for p in (ROOT / "sample_runs").iterdir() if p.is_file()}
    shipped = {n.rsplit("/", 1)[-1] for n in names if "/share/rerunlens/sample_runs/" in n}
    assert samples and samples == shipped
    assert not any(n.startswith("tests/") for n in names)


def test_an_installed_wheel_opens_the_dashboard_from_any_folder(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # away from the checkout, whose metadata pip would take for rerunlens already installed
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120, cwd=elsewhere, env=env)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
        cwd=elsewhere,
        env=env,
    )
    listed = subprocess.run(
        [
            str(python),
            "-c",
            "from pathlib import Path; from app import log_folders; print(log_folders.log_names(Path('.')))",
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "sample_runs/A_baseline.altk_runs.json" in listed.stdout, listed.stderr[-2000:]
    port = _free_port()
    server = subprocess.Popen(
        [str(venv / "bin" / "rerunlens"), "dashboard", "--port", str(port)],
        cwd=elsewhere,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        page = _wait_for(f"http://127.0.0.1:{port}/_stcore/health", server)
        assert page == b"ok"
        assert b"<title>" in _wait_for(f"http://127.0.0.1:{port}/", server)
    finally:
        os.killpg(server.pid, signal.SIGKILL)  # the launcher and the Streamlit server it started
        server.wait(timeout=30)


def _wait_for(url: str, server: subprocess.Popen[bytes], timeout: float = 60.0) -> bytes:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            output = server.stdout.read().decode(errors="replace") if server.stdout else ""
            raise AssertionError(f"the dashboard exited early: {output[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return bytes(response.read())
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"no answer from {url} within {timeout} s")
