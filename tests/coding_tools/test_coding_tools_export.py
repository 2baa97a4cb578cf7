"""Exporting one pinned route to Claude Code, Codex and CC Switch: each format parsed back, the root
each tool needs, refusals of bad base URLs, warnings for the wrong protocol, and never the key."""

from __future__ import annotations

import json
import tomllib

import pytest
from fake_keys import FAKE_KEY
from hypothesis import given
from hypothesis import strategies as st

from analyzer.coding_tools import KEY_PLACEHOLDER, export_route, tool_root
from analyzer.coding_tools.export import PROVIDER_ID, export_command
from analyzer.coding_tools.toml_text import render_document, toml_string
from analyzer.errors import RouteError
from analyzer.routes.profile import RouteProfile, build_profile

GATEWAY = "https://gw.example.com/v1"


def profile(base_url: str | None = GATEWAY, **more: object) -> RouteProfile:
    return build_profile(overrides={"base_url": base_url, **more}, use_env=False)


def test_claude_code_settings_parse_back_with_the_anthropic_root() -> None:
    export = export_route(profile(model="gw-coder", key_env="CODING_KEY"), "claude-code")
    data = json.loads(export.text)
    assert data == {
        "env": {
            "ANTHROPIC_BASE_URL": "https://gw.example.com",
            "ANTHROPIC_AUTH_TOKEN": KEY_PLACEHOLDER,
            "ANTHROPIC_MODEL": "gw-coder",
        }
    }
    assert export.root.calls == "https://gw.example.com/v1/messages"
    assert "dropped" in export.notes[0] and "/v1/messages" in export.notes[0]
    assert KEY_PLACEHOLDER in export.notes[1] and "never writes a key" in export.notes[1]
    assert export.default_path == "~/.claude/settings.json"


def test_codex_config_parses_back_with_tomllib() -> None:
    export = export_route(profile(model="gw-coder", key_env="CODING_KEY"), "codex")
    data = tomllib.loads(export.text)
    assert data == {
        "model": "gw-coder",
        "model_provider": PROVIDER_ID,
        "model_providers": {
            PROVIDER_ID: {
                "name": "RerunLens pinned route (gw.example.com)",
                "base_url": GATEWAY,
                "env_key": "CODING_KEY",
                "wire_api": "responses",
            }
        },
    }
    assert export.root.calls == "https://gw.example.com/v1/responses"
    assert "CODING_KEY" in export.notes[1]
    assert any("/chat/completions" in w and "/responses" in w for w in export.warnings)


def test_cc_switch_provider_parses_back_with_the_fields_it_imports() -> None:
    export = export_route(profile(model="gw-coder"), "cc-switch")
    data = json.loads(export.text)
    assert {k: data[k] for k in ("provider", "base_url", "api_key", "model")} == {
        "provider": "claude",
        "base_url": "https://gw.example.com",
        "api_key": KEY_PLACEHOLDER,
        "model": "gw-coder",
    }
    assert data["name"].startswith("RerunLens")
    assert data["settingsConfig"]["env"]["ANTHROPIC_BASE_URL"] == "https://gw.example.com"


@pytest.mark.parametrize(
    ("base_url", "claude_root"),
    [
        ("https://gw.example.com/v1/", "https://gw.example.com"),
        ("https://gw.example.com/api/v2", "https://gw.example.com/api"),
        ("https://gw.example.com/anthropic", "https://gw.example.com/anthropic"),
        ("http://127.0.0.1:4000/v1", "http://127.0.0.1:4000"),
    ],
)
def test_each_tool_gets_its_own_root(base_url: str, claude_root: str) -> None:
    assert tool_root("claude-code", base_url).root == claude_root
    assert tool_root("codex", base_url).root == base_url.rstrip("/")


@pytest.mark.parametrize(
    ("base_url", "tool", "words"),
    [
        ("https://api.groq.com/openai/v1", "claude-code", "serves the OpenAI API only"),
        ("https://gw.example.com/openai/v1", "claude-code", "looks like the OpenAI protocol's root"),
        ("https://gw.example.com/anthropic", "codex", "looks like the Anthropic protocol's root"),
        ("https://api.anthropic.com/v1", "codex", "has no OpenAI /responses endpoint"),
    ],
)
def test_a_root_of_the_other_protocol_is_warned_about(base_url: str, tool: str, words: str) -> None:
    assert any(words in w for w in export_route(profile(base_url), tool).warnings)  # type: ignore[arg-type]


def test_a_plain_gateway_root_gets_no_protocol_warning() -> None:
    assert export_route(profile(), "claude-code").warnings == []


@pytest.mark.parametrize(
    ("base_url", "code"),
    [
        ("https://gw.example.com/v1?utm_source=newsletter&utm_medium=email", "query_string"),
        ("https://openai.com/", "home_page"),
        ("https://gw.example.com/v1#quickstart", "fragment"),
        ("https://gw.example.com/v1/chat/completions", "endpoint_path"),
    ],
)
def test_a_base_url_failing_the_lint_is_refused_in_one_line(base_url: str, code: str) -> None:
    with pytest.raises(RouteError) as err:
        export_route(profile(base_url), "codex")
    assert code in str(err.value) and "\n" not in str(err.value)
    assert "Fix:" in str(err.value)


def test_the_api_root_on_a_listed_site_is_not_taken_for_its_home_page() -> None:
    assert export_route(profile("https://openrouter.ai/api/v1"), "claude-code").root.root == (
        "https://openrouter.ai/api"
    )


def test_a_query_secret_never_reaches_the_refusal() -> None:
    with pytest.raises(RouteError) as err:
        export_route(profile(f"https://gw.example.com/v1?key={FAKE_KEY}"), "codex")
    assert FAKE_KEY not in str(err.value)


@pytest.mark.parametrize(
    ("base_url", "words"),
    [(None, "built-in simulator"), ("https://user:pw@gw.example.com/v1", "credentials")],
)
def test_no_gateway_or_credentials_in_the_url_are_refused(base_url: str | None, words: str) -> None:
    with pytest.raises(RouteError, match=words):
        export_route(profile(base_url), "claude-code")


def test_the_benchmarks_own_key_variable_is_warned_about() -> None:
    export = export_route(profile(key_env="OPENAI_API_KEY"), "codex", benchmark_key_env="OPENAI_API_KEY")
    assert any("is the benchmark's" in w and "--key-env" in w for w in export.warnings)
    own = export_route(profile(key_env="CODEX_GATEWAY_KEY"), "codex", benchmark_key_env="OPENAI_API_KEY")
    assert not any("benchmark's" in w for w in own.warnings)
    claude = export_route(
        profile(key_env="OPENAI_API_KEY"), "claude-code", benchmark_key_env="OPENAI_API_KEY"
    )
    assert claude.warnings == [] and "not the benchmark's (in OPENAI_API_KEY)" in claude.notes[-1]


@pytest.mark.parametrize("tool", ["claude-code", "codex", "cc-switch"])
def test_no_export_holds_the_key(tool: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", GATEWAY)
    export = export_route(build_profile(), tool, benchmark_key_env="OPENAI_API_KEY")  # type: ignore[arg-type]
    everything = export.text + json.dumps(export.data) + "".join(export.notes + export.warnings)
    assert FAKE_KEY not in everything
    assert KEY_PLACEHOLDER in everything or "OPENAI_API_KEY" in everything


@given(st.text())
def test_any_string_survives_the_toml_writer(value: str) -> None:
    text = render_document({"model": value}, ("model_providers", value or "x"), {"name": value})
    assert tomllib.loads(text) == {"model": value, "model_providers": {value or "x": {"name": value}}}
    assert tomllib.loads(f"v = {toml_string(value)}")["v"] == value


def test_a_key_pasted_as_the_key_variable_is_refused_without_showing_it() -> None:
    with pytest.raises(RouteError, match="must be a variable name") as err:
        export_route(profile(key_env=FAKE_KEY), "codex")
    assert FAKE_KEY not in str(err.value)


def test_the_command_that_merges_an_export_names_the_route() -> None:
    command = export_command(profile(model="gw coder", key_env="CODEX_KEY"), "codex")
    assert command == (
        "rerunlens route export --for=codex --base-url=https://gw.example.com/v1 "
        "'--model=gw coder' --key-env=CODEX_KEY --out ~/.codex/config.toml"
    )
