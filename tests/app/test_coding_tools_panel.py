"""The Routes page's "Coding tools" panel, through the whole app with AppTest: the open log's pinned
route as each tool's settings (copyable code), its refusals, and the doctor's findings on a
temporary HOME; never a key."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import app_kit
import pytest
from fake_keys import FAKE_KEY

from analyzer.safety.keys import key_fingerprint
from app.widgets import coding_tools

FORMAT1 = "format1_plain_script.json"  # its summary: https://api.openai.com/v1, gpt-4o-mini


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    (folder / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return folder


def routes_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, log: str) -> app_kit.AppTest:
    """The Routes page with the panel opened (it is built only once opened)."""
    app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    at = app_kit.open_view("views/routes.py", log, "Routes")
    assert not [c for c in at.code if c.language in ("json", "toml")]  # closed: nothing built
    at.session_state[coding_tools.SECTION] = True
    at.run()
    app_kit.assert_clean(at)
    return at


def text_of(at: app_kit.AppTest) -> str:
    parts = [
        e.value
        for kind in ("info", "warning", "error", "success", "caption", "markdown")
        for e in at.get(kind)
    ]
    return app_kit.plain("\n".join(str(p) for p in parts))


def test_the_pinned_route_as_each_tools_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    at = routes_page(tmp_path, monkeypatch, FORMAT1)
    assert "Coding tools" in [s.value for s in at.subheader]
    codes = {c.language: c.value for c in at.code if c.language in ("json", "toml")}
    claude, cc_switch = (json.loads(c.value) for c in at.code if c.language == "json")
    assert claude["env"]["ANTHROPIC_BASE_URL"] == "https://api.openai.com"
    assert cc_switch["provider"] == "claude" and cc_switch["model"] == "gpt-4o-mini"
    codex = tomllib.loads(codes["toml"])
    assert codex["model_providers"]["rerunlens"]["base_url"] == "https://api.openai.com/v1"
    assert codex["model_providers"]["rerunlens"]["env_key"] == "OPENAI_API_KEY"
    commands = [c.value for c in at.code if c.language == "bash"]
    assert (
        len(commands) == 3
        and (
            "rerunlens route export --for=codex --base-url=https://api.openai.com/v1 --model=gpt-4o-mini "
            "--key-env=OPENAI_API_KEY --out ~/.codex/config.toml"
        )
        in commands
    )
    text = text_of(at)
    assert "api.openai.com serves the OpenAI API only" in text  # Claude Code needs the Anthropic protocol
    assert "is the benchmark's" in text  # the log's key variable, reused by default
    assert "No mistake found." in text and f"{home}/.claude/settings.json: not found" in text


def test_a_key_variable_of_their_own_goes_into_codex(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    at = routes_page(tmp_path, monkeypatch, FORMAT1)
    at.text_input(key=coding_tools.KEY_ENV).set_value("CODEX_GATEWAY_KEY").run()
    app_kit.assert_clean(at)
    (toml,) = [c.value for c in at.code if c.language == "toml"]
    assert tomllib.loads(toml)["model_providers"]["rerunlens"]["env_key"] == "CODEX_GATEWAY_KEY"
    assert "is the benchmark's" not in text_of(at)
    at.text_input(key=coding_tools.KEY_ENV).set_value(FAKE_KEY).run()
    assert [c for c in at.code if c.language == "toml"] == []
    assert "must be a variable name" in text_of(at) and FAKE_KEY not in text_of(at)


def test_a_simulator_log_has_no_export_but_still_a_doctor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    (home / ".claude" / "settings.json").write_text(
        json.dumps(
            {"env": {"ANTHROPIC_BASE_URL": "https://gw.example.com/v1", "ANTHROPIC_AUTH_TOKEN": FAKE_KEY}}
        )
    )
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    at = routes_page(tmp_path, monkeypatch, "C_pinned.altk_runs.json")
    assert [c for c in at.code if c.language in ("json", "toml")] == []
    text = text_of(at)
    assert "ran on the built-in simulator" in text
    assert "env.ANTHROPIC_BASE_URL" in text and "Drop the trailing /v1" in text
    assert "is the benchmark's key" not in text  # the log's own key is the simulator's
    at.checkbox(key=coding_tools.CHECK_ENV).check().run()
    app_kit.assert_clean(at)
    text = text_of(at)
    assert "is the benchmark's key" in text and str(key_fingerprint(FAKE_KEY)) in text
    assert FAKE_KEY not in text and FAKE_KEY not in "".join(str(c.value) for c in at.code)
