"""The dashboard serves pages only on loopback (or on purpose beyond it), only under its own host
names (DNS rebinding refused) and only to its own pages (another Origin refused); a plain
`streamlit run app/main.py` from any folder is as private as `rerunlens dashboard` and sends no usage
statistics; Watch reads only inside the runs folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import app_kit
import pytest

from analyzer.cli import main
from analyzer.errors import RerunLensError
from analyzer.jobs.exposure import (
    ALLOW_REMOTE_ENV,
    ALLOWED_HOSTS_ENV,
    SAFE_OPTIONS,
    request_refused,
    serving_refused,
)
from analyzer.jobs.watch import inside

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("address", ["127.0.0.1", "localhost", "::1", "[::1]"])
def test_loopback_is_served(address: str) -> None:
    assert serving_refused(address, env={}) is None


@pytest.mark.parametrize("address", [None, "", "0.0.0.0", "192.168.1.4"])
def test_beyond_loopback_is_refused_unless_switched_on(address: str | None) -> None:
    reason = serving_refused(address, env={})
    assert reason is not None and "\n" not in reason and "rerunlens dashboard" in reason
    assert serving_refused(address, env={ALLOW_REMOTE_ENV: "1"}) is None


@pytest.mark.parametrize("host", ["localhost:8501", "127.0.0.1:8501", "[::1]:8501", "LOCALHOST"])
def test_loopback_host_names_are_served(host: str) -> None:
    assert request_refused({"Host": host}, "127.0.0.1", env={}) is None
    assert request_refused({"Host": host, "Origin": f"http://{host}"}, "127.0.0.1", env={}) is None


@pytest.mark.parametrize(
    "host", ["evil.example:8501", "evil.example", "localhost.evil.example:8501", "0.0.0.0:8501"]
)
def test_a_foreign_host_name_is_refused(host: str) -> None:
    reason = request_refused({"host": host}, "127.0.0.1", env={})
    assert reason is not None and "DNS rebinding" in reason and "\n" not in reason


def test_a_remote_dashboard_serves_ip_addresses_and_listed_names_only() -> None:
    remote = {ALLOW_REMOTE_ENV: "1"}
    assert request_refused({"Host": "10.1.2.3:8501"}, "0.0.0.0", env=remote) is None
    assert request_refused({"Host": "box.lan:8501"}, "0.0.0.0", env=remote) is not None
    assert (
        request_refused({"Host": "box.lan:8501"}, "0.0.0.0", env={**remote, ALLOWED_HOSTS_ENV: "box.lan"})
        is None
    )
    assert request_refused({"Host": "10.1.2.3:8501"}, "127.0.0.1", env={}) is not None
    assert request_refused({"Host": "10.1.2.3:8501"}, "10.1.2.3", env={}) is None  # its bound address


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://127.0.0.1:9999", "http://localhost:8502"]
)
def test_another_sites_origin_is_refused(origin: str) -> None:
    reason = request_refused({"Host": "localhost:8501", "Origin": origin}, "127.0.0.1", env={})
    assert reason is not None and "another site" in reason and "\n" not in reason


def test_plain_streamlit_run_from_another_folder_is_private_and_quiet(tmp_path: Path) -> None:
    probe = (
        "import json; from streamlit import config; "
        f"config._main_script_path = {str(ROOT / 'app' / 'main.py')!r}; "
        "config.get_config_options(force_reparse=True); "
        f"print(json.dumps({{k: config.get_option(k) for k in {sorted(SAFE_OPTIONS)!r}}}))"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}  # no ~/.streamlit, no STREAMLIT_* variables
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    options = json.loads(done.stdout.strip().splitlines()[-1])
    assert options["browser.gatherUsageStats"] is False and options["server.address"] == "127.0.0.1"
    for name, value in SAFE_OPTIONS.items():
        assert str(options[name]).lower() == value, name


def test_the_launchers_address_flag_is_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    from analyzer.cli import run_commands

    seen: dict[str, Any] = {}
    monkeypatch.setattr(run_commands, "check_port", lambda *_args: None)
    monkeypatch.setattr(run_commands, "run_forwarding", lambda command, env=None: seen.update(env=env) or 0)
    assert main(["dashboard", "--address", "0.0.0.0"]) == 0
    assert seen["env"][ALLOW_REMOTE_ENV] == "1"
    assert main(["dashboard"]) == 0
    assert seen["env"] is None  # loopback: nothing switched on


def test_watch_reads_only_inside_the_runs_folder(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (tmp_path / "outside.journal.jsonl").write_text("{}")
    (runs / "link.journal.jsonl").symlink_to(tmp_path / "outside.journal.jsonl")
    for bad in (
        "/etc/passwd",
        "../outside.journal.jsonl",
        str(tmp_path / "outside.journal.jsonl"),
        "link.journal.jsonl",
    ):
        with pytest.raises(RerunLensError, match="not inside your runs folder"):
            inside(bad, runs)
    assert inside("a.journal.jsonl", runs) == (runs / "a.journal.jsonl").resolve()


def test_the_watch_page_refuses_a_path_outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    at = app_kit.open_view("views/watch.py", "C_pinned.altk_runs.json", "Watch a run")
    for bad in ("/etc/passwd", "../../etc/hosts.json"):
        at.text_input(key="watch.path").set_value(bad).run()
        app_kit.assert_clean(at)
        errors = " ".join(app_kit.plain(e.value) for e in at.error)
        assert "not inside your runs folder" in errors, errors


def test_a_page_beyond_loopback_without_the_switch_shows_only_how_to_start_safely(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit import config as st_config
    from streamlit.testing.v1 import AppTest

    app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    before = st_config.get_option("server.address")
    st_config.set_option("server.address", "0.0.0.0")
    try:
        at = AppTest.from_file(str(app_kit.MAIN), default_timeout=60)
        at.query_params.update({"log": ["C_pinned.altk_runs.json"]})
        at.run()
    finally:
        st_config.set_option("server.address", before)
    app_kit.assert_clean(at)
    assert not at.title and not at.sidebar.selectbox and not at.dataframe  # no log is shown
    [error] = [app_kit.plain(e.value) for e in at.error]
    assert "rerunlens dashboard" in error and ALLOW_REMOTE_ENV in error
