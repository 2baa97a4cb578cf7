"""The dashboard's re-run of a shared log shows the host and key variable its route would use and
needs a click before the button that sends the key is enabled (remembered per host)."""

from __future__ import annotations

import json
from pathlib import Path

import app_kit
import pytest
from test_log_route_consent import SAMPLE_A, _foreign_log

from analyzer.safety.trusted_hosts import is_trusted

FOREIGN = "https://gw.example.com/v1"


def test_rerun_of_a_shared_log_needs_a_click_naming_host_and_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    shared = _foreign_log(tmp_path, SAMPLE_A, FOREIGN, "OPENAI_API_KEY")
    (runs / "shared.altk_runs.json").write_text(shared.read_text())
    at = app_kit.open_view("views/rerun.py", "shared.altk_runs.json", "Re-run")
    warnings = " ".join(app_kit.plain(w.value) for w in at.warning)
    assert "OPENAI_API_KEY" in warnings and "https://gw.example.com:443" in warnings
    assert at.button(key="rerun.start").disabled
    at.button(key="rerun.confirm_host").click().run()
    app_kit.assert_clean(at)
    assert is_trusted("https://gw.example.com:443", "OPENAI_API_KEY")
    assert not at.button(key="rerun.start").disabled


def test_a_shared_logs_other_variable_is_refused_on_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    shared = _foreign_log(tmp_path, SAMPLE_A, FOREIGN, "GITHUB_TOKEN")
    (runs / "shared.altk_runs.json").write_text(shared.read_text())
    at = app_kit.open_view("views/rerun.py", "shared.altk_runs.json", "Re-run")
    errors = " ".join(app_kit.plain(e.value) for e in at.error)
    assert "GITHUB_TOKEN" in errors and "not one your own route names" in errors
    assert at.button(key="rerun.start").disabled
    assert json.dumps([b.label for b in at.button]).count("Send") == 0
