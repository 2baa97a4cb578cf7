"""The dashboard stays private wherever it is started, and a page cannot send a server variable as a key."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import app_kit
import pytest
from fake_keys import FAKE_KEY
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from analyzer.errors import RerunLensError, RouteError
from analyzer.jobs.exposure import (
    ALLOW_REMOTE_ENV,
    ALLOW_REMOTE_RUNS_ENV,
    SAFE_OPTIONS,
    check_port,
    dashboard_command,
    free_port_after,
    port_busy,
    runs_refused,
)
from analyzer.safety.keys import (
    EXTRA_KEY_VARIABLES,
    allowed_key_variables,
    check_key_variable,
    key_fingerprint,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_launcher_passes_every_safe_setting_as_a_flag() -> None:
    command = dashboard_command("runs", port=8600)
    assert command[1:4] == ["-m", "streamlit", "run"] and command[4].endswith("app/main.py")
    for name, value in SAFE_OPTIONS.items():
        assert f"--{name}={value}" in command
    assert "--server.address=127.0.0.1" in command and "--server.port=8600" in command
    assert command[-2:] == ["--", "--runs-dir=runs"]
    assert "--server.address=0.0.0.0" in dashboard_command(None, address="0.0.0.0")


@pytest.mark.parametrize(
    ("address", "env", "refused"),
    [
        ("127.0.0.1", {}, False),
        ("localhost", {}, False),
        ("::1", {}, False),
        ("", {}, True),  # Streamlit's default: every interface
        (None, {}, True),
        ("0.0.0.0", {}, True),
        ("192.0.2.10", {}, True),
        ("0.0.0.0", {ALLOW_REMOTE_RUNS_ENV: "1"}, False),
        ("0.0.0.0", {ALLOW_REMOTE_RUNS_ENV: "yes"}, True),
    ],
)
def test_runs_are_refused_beyond_loopback_unless_allowed(
    address: str | None, env: dict[str, str], refused: bool
) -> None:
    reason = runs_refused(address, env)
    assert (reason is not None) == refused
    if reason:
        assert ALLOW_REMOTE_RUNS_ENV in reason and "\n" not in reason


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "TEAM_KEY", "GATEWAY_TOKEN", "ANTHROPIC_API_KEY"])
def test_key_variables_the_own_route_names_are_accepted(name: str) -> None:
    check_key_variable(name, allowed_key_variables([name], env={}))


@pytest.mark.parametrize("name", ["HOME", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "TEAM_KEY"])
def test_other_variables_are_refused_unless_the_own_route_names_them(name: str) -> None:
    with pytest.raises(RouteError, match="is not one your own route names"):
        check_key_variable(name, allowed_key_variables(["OPENAI_API_KEY"], env={}))
    check_key_variable(name, allowed=[name])


def test_the_user_may_list_further_key_variables_but_not_any_name() -> None:
    allowed = allowed_key_variables(["OPENAI_API_KEY"], env={EXTRA_KEY_VARIABLES: "TEAM_KEY, HOME"})
    assert allowed == ["OPENAI_API_KEY", "TEAM_KEY"]


def test_a_key_pasted_into_the_variable_field_is_never_echoed() -> None:
    with pytest.raises(RouteError) as refused:
        check_key_variable(FAKE_KEY, [])
    assert FAKE_KEY[:6] not in refused.value.message and key_fingerprint(FAKE_KEY) in refused.value.message


def _refused_key_variable_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    at = app_kit.open_view("views/new_run.py", "C_pinned.altk_runs.json", "New run")
    at.text_input(key="route.key_env").set_value("HOME").run()
    return at


def test_the_page_refuses_a_server_variable_as_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _refused_key_variable_page(tmp_path, monkeypatch)
    app_kit.assert_clean(at)
    errors = [app_kit.plain(e.value) for e in at.error]
    assert any("'HOME' is not one your own route names" in e for e in errors), errors
    captions = " ".join(c.value for c in at.caption)
    assert "HOME" not in captions and "fingerprint" not in captions  # nothing read from HOME
    assert at.button(key="newrun.start").disabled


def test_a_dashboard_bound_beyond_loopback_starts_no_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    monkeypatch.setenv(ALLOW_REMOTE_ENV, "1")  # pages served beyond loopback on purpose; runs still off
    before = st_config.get_option("server.address")
    st_config.set_option("server.address", "0.0.0.0")
    try:
        at = app_kit.open_view("views/new_run.py", "C_pinned.altk_runs.json", "New run")
        errors = [app_kit.plain(e.value) for e in at.error]
        assert any("Runs are off" in e and "0.0.0.0" in e for e in errors), errors
        assert at.button(key="newrun.start").disabled
    finally:
        st_config.set_option("server.address", before)


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a LISTEN socket on `port` (Linux /proc/net/tcp and tcp6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            addr, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:
                found.add(addr)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket table")
def test_started_from_elsewhere_with_a_hostile_environment_it_still_listens_on_loopback_only(
    tmp_path: Path,
) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "STREAMLIT_SERVER_ADDRESS": "0.0.0.0",
        "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "true",
        "STREAMLIT_SERVER_HEADLESS": "true",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "analyzer.cli",
            "dashboard",
            "--port",
            str(port),
            "--runs-dir",
            str(ROOT / "sample_runs"),
        ],
        cwd=tmp_path,  # no .streamlit/config.toml here
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                time.sleep(0.3)
        else:
            pytest.fail("the dashboard did not answer its health check within 60 s")
        assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1 and nothing else
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_busy_port_is_refused_with_a_free_one_to_use() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert port_busy(port)
        with pytest.raises(RerunLensError) as refused:
            check_port(port)
        free = free_port_after(port)
        assert free is not None and free > port and not port_busy(free)
        assert refused.value.message == (
            f"port {port} is already in use (another dashboard is running?); "
            f"try rerunlens dashboard --port {free}"
        )
    check_port(port)  # free again: nothing to say
