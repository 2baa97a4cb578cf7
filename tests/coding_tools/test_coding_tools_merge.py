"""`--out` merges an export into the user's settings file: nothing of theirs lost, nothing replaced
without force, a real key never replaced by the placeholder, a file that does not parse never touched."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from fake_keys import FAKE_KEY

from analyzer.coding_tools import KEY_PLACEHOLDER, export_route, write_export
from analyzer.coding_tools.export import PROVIDER_ID
from analyzer.errors import RouteError
from analyzer.routes.profile import build_profile

PROFILE = build_profile(
    overrides={"base_url": "https://gw.example.com/v1", "model": "gw-coder", "key_env": "CODING_KEY"},
    use_env=False,
)
CLAUDE_SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(git diff:*)"], "deny": ["Read(./.env)"]},
    "env": {"DISABLE_TELEMETRY": "1", "API_TIMEOUT_MS": "600000"},
    "model": "opus",
}
CODEX_CONFIG = """# Codex settings, by hand
approval_policy = "on-request"
sandbox_mode = "workspace-write"
notify = [
  "notify-send",
  "Codex",
]

[model_providers.azure]
name = "Azure"  # the team's other provider
base_url = "https://team.openai.azure.com/openai"
env_key = "AZURE_OPENAI_API_KEY"
query_params = { api-version = "2025-04-01-preview" }

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.fast]
model = "o4-mini"
"""


def test_a_missing_file_is_created_with_the_export(tmp_path: Path) -> None:
    target = tmp_path / ".claude" / "settings.json"
    result = write_export(export_route(PROFILE, "claude-code"), target)
    assert result.created and json.loads(target.read_text())["env"]["ANTHROPIC_MODEL"] == "gw-coder"
    assert target.stat().st_mode & 0o777 == 0o600  # it will hold a key once the placeholder is replaced


def test_claude_settings_keep_every_other_setting(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_text(json.dumps(CLAUDE_SETTINGS, indent=2))
    result = write_export(export_route(PROFILE, "claude-code"), target)
    merged = json.loads(target.read_text())
    assert merged["permissions"] == CLAUDE_SETTINGS["permissions"]
    assert merged["$schema"] == CLAUDE_SETTINGS["$schema"] and merged["model"] == "opus"
    assert merged["env"] == {
        "DISABLE_TELEMETRY": "1",
        "API_TIMEOUT_MS": "600000",
        "ANTHROPIC_BASE_URL": "https://gw.example.com",
        "ANTHROPIC_AUTH_TOKEN": KEY_PLACEHOLDER,
        "ANTHROPIC_MODEL": "gw-coder",
    }
    assert not result.created and "your other settings kept" in result.summary()


def test_codex_config_keeps_comments_tables_and_order(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text(CODEX_CONFIG)
    write_export(export_route(PROFILE, "codex"), target)
    text = target.read_text()
    assert text.startswith(CODEX_CONFIG.split("\n\n")[0])  # the top block, comment included
    assert 'name = "Azure"  # the team\'s other provider' in text
    merged = tomllib.loads(text)
    before = tomllib.loads(CODEX_CONFIG)
    for key in ("approval_policy", "sandbox_mode", "notify", "mcp_servers", "profiles"):
        assert merged[key] == before[key]
    assert merged["model_providers"]["azure"] == before["model_providers"]["azure"]
    assert merged["model"] == "gw-coder" and merged["model_provider"] == PROVIDER_ID
    assert merged["model_providers"][PROVIDER_ID]["env_key"] == "CODING_KEY"
    assert text.index("model = ") < text.index("[model_providers.azure]")  # top-level keys stay on top


def test_merging_twice_changes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text(CODEX_CONFIG)
    write_export(export_route(PROFILE, "codex"), target)
    once = target.read_text()
    result = write_export(export_route(PROFILE, "codex"), target)
    assert target.read_text() == once and result.replaced == []


@pytest.mark.parametrize(
    ("tool", "name", "text", "clash"),
    [
        (
            "claude-code",
            "settings.json",
            '{"env": {"ANTHROPIC_BASE_URL": "https://other.example.com"}}',
            "env.ANTHROPIC_BASE_URL",
        ),
        ("codex", "config.toml", 'model = "o3"\n', "model"),
        (
            "codex",
            "config.toml",
            f'[model_providers.{PROVIDER_ID}]\nbase_url = "https://old.example.com/v1"\n',
            f"model_providers.{PROVIDER_ID}.base_url",
        ),
    ],
)
def test_another_value_is_never_overwritten_without_force(
    tmp_path: Path, tool: str, name: str, text: str, clash: str
) -> None:
    target = tmp_path / name
    target.write_text(text)
    export = export_route(PROFILE, tool)  # type: ignore[arg-type]
    with pytest.raises(RouteError, match="--force") as err:
        write_export(export, target)
    assert clash in str(err.value) and target.read_text() == text
    result = write_export(export, target, force=True)
    assert clash in result.replaced and target.read_text() != text


def test_a_real_key_in_the_file_is_kept_even_with_force(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_text(json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": FAKE_KEY}}))
    result = write_export(export_route(PROFILE, "claude-code"), target, force=True)
    assert json.loads(target.read_text())["env"]["ANTHROPIC_AUTH_TOKEN"] == FAKE_KEY
    assert result.kept_keys == ["env.ANTHROPIC_AUTH_TOKEN"] and FAKE_KEY not in result.summary()


def test_a_left_placeholder_is_replaced_by_ours_without_force(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_text(json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": "YOUR_API_KEY"}}))
    result = write_export(export_route(PROFILE, "claude-code"), target)
    assert json.loads(target.read_text())["env"]["ANTHROPIC_AUTH_TOKEN"] == KEY_PLACEHOLDER
    assert result.replaced == [] and result.kept_keys == []


@pytest.mark.parametrize(
    ("tool", "name", "text", "words"),
    [
        ("claude-code", "settings.json", '{"env": {"A": 1},}', "not valid JSON"),
        ("claude-code", "settings.json", "[1, 2]", "not an object"),
        ("codex", "config.toml", "model = \n", "not valid TOML"),
        ("codex", "config.toml", f'model_providers.{PROVIDER_ID}.name = "x"\n', "cannot merge safely"),
        (
            "codex",
            "config.toml",
            f'[model_providers]\n{PROVIDER_ID} = {{ name = "x" }}\n',
            "cannot merge safely",
        ),
    ],
)
def test_a_file_that_cannot_be_merged_is_left_untouched(
    tmp_path: Path, tool: str, name: str, text: str, words: str
) -> None:
    target = tmp_path / name
    target.write_text(text)
    with pytest.raises(RouteError, match=words) as err:
        write_export(export_route(PROFILE, tool), target, force=True)  # type: ignore[arg-type]
    assert target.read_text() == text and "\n" not in str(err.value)
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left behind


@pytest.mark.parametrize("tool", ["claude-code", "codex", "cc-switch"])
def test_no_written_file_holds_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "https://gw.example.com/v1")
    target = tmp_path / "out"
    result = write_export(export_route(build_profile(), tool), target)  # type: ignore[arg-type]
    assert FAKE_KEY not in target.read_text() and FAKE_KEY not in result.summary()


def test_a_private_settings_file_stays_private(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_text(json.dumps({"env": {"ANTHROPIC_AUTH_TOKEN": FAKE_KEY}}))
    target.chmod(0o600)
    write_export(export_route(PROFILE, "claude-code"), target)
    assert target.stat().st_mode & 0o777 == 0o600


def test_no_placeholder_token_beside_a_working_api_key(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_text(json.dumps({"env": {"ANTHROPIC_API_KEY": FAKE_KEY}}))
    result = write_export(export_route(PROFILE, "claude-code"), target)
    env = json.loads(target.read_text())["env"]
    assert "ANTHROPIC_AUTH_TOKEN" not in env and env["ANTHROPIC_API_KEY"] == FAKE_KEY
    assert result.kept_keys == ["env.ANTHROPIC_API_KEY"]
