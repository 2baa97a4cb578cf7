"""`route doctor` on hand-made broken settings in a temporary HOME: each classic mistake reported
with its file, key and fix; a clean setup reported clean; keys only ever as fingerprints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_keys import FAKE_KEY, SESSION_KEY

from analyzer.coding_tools import export_route, write_export
from analyzer.coding_tools.doctor import DoctorInputs, DoctorReport, run_doctor
from analyzer.errors import RouteError
from analyzer.routes.profile import build_profile
from analyzer.safety.keys import key_fingerprint

CLEAN_CLAUDE = {"env": {"ANTHROPIC_BASE_URL": "https://gw.example.com", "ANTHROPIC_MODEL": "gw-coder"}}
CLEAN_CODEX = """model = "gw-coder"
model_provider = "gw"

[model_providers.gw]
name = "Gateway"
base_url = "https://gw.example.com/v1"
env_key = "CODEX_GATEWAY_KEY"
wire_api = "responses"
"""


def home(tmp_path: Path, claude: object | None = None, codex: str | None = None) -> Path:
    root = tmp_path / "home"
    if claude is not None:
        (root / ".claude").mkdir(parents=True)
        text = claude if isinstance(claude, str) else json.dumps(claude)
        (root / ".claude" / "settings.json").write_text(text)
    if codex is not None:
        (root / ".codex").mkdir(parents=True)
        (root / ".codex" / "config.toml").write_text(codex)
    return root


def doctor(root: Path, **more: object) -> DoctorReport:
    return run_doctor(DoctorInputs(home=root, env=more.pop("env", None), **more))  # type: ignore[arg-type]


def found(report: DoctorReport) -> set[tuple[str, str, str]]:
    return {(Path(f.file).name, f.key, f.code) for f in report.findings}


def test_a_clean_setup_is_clean_and_says_what_it_read(tmp_path: Path) -> None:
    root = home(tmp_path, CLEAN_CLAUDE, CLEAN_CODEX)
    report = doctor(root)
    assert report.ok, [f.line() for f in report.findings]
    assert report.checked == [f"{root}/.claude/settings.json: read", f"{root}/.codex/config.toml: read"]
    assert report.lines()[-1] == "no mistake found"


def test_missing_default_files_are_listed_not_reported(tmp_path: Path) -> None:
    report = doctor(tmp_path)
    assert report.ok and all(line.endswith("not found") for line in report.checked)


def test_tracking_tagged_home_page_as_the_base(tmp_path: Path) -> None:
    url = "https://openai.com/?utm_source=chatgpt.com"
    root = home(tmp_path, {"env": {"ANTHROPIC_BASE_URL": url}})
    report = doctor(root)
    assert found(report) == {("settings.json", "env.ANTHROPIC_BASE_URL", "base_url")}
    assert len(report.findings) == 2  # the tracking parameter and the home page, each with its fix
    text = "\n".join(report.lines())
    assert "tracking parameters" in text and "is a web site, not the API root" in text
    assert "Fix: Drop everything from '?' on." in text


def test_placeholder_left_in(tmp_path: Path) -> None:
    root = home(
        tmp_path,
        {"env": {"ANTHROPIC_BASE_URL": "https://gw.example.com", "ANTHROPIC_AUTH_TOKEN": "YOUR_API_KEY"}},
    )
    (finding,) = doctor(root).findings
    assert (finding.key, finding.code) == ("env.ANTHROPIC_AUTH_TOKEN", "placeholder_key")
    assert finding.file.endswith(".claude/settings.json") and "Replace it" in finding.fix
    assert "YOUR_API_KEY" not in finding.line() and "sha256:" in finding.line()


def test_anthropic_variables_in_codex_and_openai_variables_in_claude(tmp_path: Path) -> None:
    codex = CLEAN_CODEX.replace('env_key = "CODEX_GATEWAY_KEY"', 'env_key = "ANTHROPIC_AUTH_TOKEN"')
    codex += '\n[shell_environment_policy.set]\nANTHROPIC_BASE_URL = "https://gw.example.com"\n'
    claude = {"env": {"OPENAI_BASE_URL": "https://gw.example.com/v1", "OPENAI_API_KEY": "x"}}
    assert found(doctor(home(tmp_path, claude, codex))) == {
        ("settings.json", "env.OPENAI_API_KEY", "wrong_tool_vars"),
        ("settings.json", "env.OPENAI_BASE_URL", "wrong_tool_vars"),
        ("config.toml", "model_providers.gw.env_key", "wrong_tool_vars"),
        ("config.toml", "shell_environment_policy.set.ANTHROPIC_BASE_URL", "wrong_tool_vars"),
    }


def test_one_key_shared_with_the_benchmark(tmp_path: Path) -> None:
    codex = CLEAN_CODEX.replace("CODEX_GATEWAY_KEY", "OPENAI_API_KEY")
    claude = {"env": {**CLEAN_CLAUDE["env"], "ANTHROPIC_AUTH_TOKEN": FAKE_KEY}}
    env = {"OPENAI_API_KEY": FAKE_KEY}
    report = doctor(home(tmp_path, claude, codex), env=env)
    assert found(report) == {
        ("settings.json", "env.ANTHROPIC_AUTH_TOKEN", "shared_key"),
        ("config.toml", "model_providers.gw.env_key", "shared_key"),
    }
    assert key_fingerprint(FAKE_KEY) in "\n".join(report.lines())


def test_a_shared_key_is_found_from_a_logs_fingerprints_too(tmp_path: Path) -> None:
    claude = {"env": {**CLEAN_CLAUDE["env"], "ANTHROPIC_AUTH_TOKEN": SESSION_KEY}}
    report = doctor(home(tmp_path, claude), benchmark_fingerprints=(key_fingerprint(SESSION_KEY),))
    assert found(report) == {("settings.json", "env.ANTHROPIC_AUTH_TOKEN", "shared_key")}


@pytest.mark.parametrize(
    ("claude_url", "codex_url", "expected"),
    [
        ("https://gw.example.com/v1", None, ("settings.json", "env.ANTHROPIC_BASE_URL", "version_segment")),
        (
            None,
            "https://gw.example.com/v1/v1",
            ("config.toml", "model_providers.gw.base_url", "version_segment"),
        ),
        (
            None,
            "https://gw.example.com/api",
            ("config.toml", "model_providers.gw.base_url", "version_segment"),
        ),
    ],
)
def test_version_segment_missing_or_doubled(
    tmp_path: Path, claude_url: str | None, codex_url: str | None, expected: tuple[str, str, str]
) -> None:
    claude = {"env": {"ANTHROPIC_BASE_URL": claude_url}} if claude_url else CLEAN_CLAUDE
    codex = CLEAN_CODEX.replace("https://gw.example.com/v1", codex_url) if codex_url else CLEAN_CODEX
    report = doctor(home(tmp_path, claude, codex))
    assert found(report) == {expected}


def test_environment_mistakes(tmp_path: Path) -> None:
    env = {
        "ANTHROPIC_BASE_URL": "https://gw.example.com/v1#setup",
        "ANTHROPIC_AUTH_TOKEN": "sk-your-key-here",
        "OPENAI_BASE_URL": "https://gw.example.com/v1?utm_source=docs",
        "OPENAI_API_KEY": FAKE_KEY,
    }
    report = doctor(home(tmp_path, CLEAN_CLAUDE, CLEAN_CODEX), env=env)
    assert {(Path(f.file).name, f.key, f.code) for f in report.findings} == {
        ("environment", "$ANTHROPIC_BASE_URL", "base_url"),  # the fragment
        ("environment", "$ANTHROPIC_BASE_URL", "version_segment"),  # /v1 under Claude Code's /v1/messages
        ("environment", "$ANTHROPIC_AUTH_TOKEN", "placeholder_key"),
        ("environment", "$OPENAI_BASE_URL", "base_url"),  # the tracking parameter
        ("config.toml", "model_providers.gw.env_key", "unset_key"),  # CODEX_GATEWAY_KEY is not exported
    }
    assert "environment: read" in report.checked


def test_codex_specific_mistakes(tmp_path: Path) -> None:
    codex = 'model_provider = "gateway"\n[model_providers.gw]\nbase_url = "https://gw.example.com/v1"\n'
    codex += f'env_key = "{FAKE_KEY}"\nwire_api = "chat"\n'
    report = doctor(home(tmp_path, codex=codex))
    assert found(report) == {
        ("config.toml", "model_provider", "missing_provider"),
        ("config.toml", "model_providers.gw.env_key", "env_key_holds_key"),
        ("config.toml", "model_providers.gw.wire_api", "wire_api"),
    }


def test_cc_switch_provider_file(tmp_path: Path) -> None:
    provider = export_route(
        build_profile(overrides={"base_url": "https://gw.example.com/v1"}, use_env=False), "cc-switch"
    ).data
    path = tmp_path / "provider.json"
    path.write_text(json.dumps(provider))
    report = run_doctor(DoctorInputs(cc_switch=path))
    assert {(f.key, f.code) for f in report.findings} == {
        ("api_key", "placeholder_key"),
        ("settingsConfig.env.ANTHROPIC_AUTH_TOKEN", "placeholder_key"),
    }
    assert report.checked == [f"{path}: read"]  # a file named on purpose: the defaults are not read


def test_our_own_export_is_clean_once_the_key_is_set(tmp_path: Path) -> None:
    root = home(tmp_path)
    profile = build_profile(
        overrides={"base_url": "https://gw.example.com/v1", "key_env": "CODEX_GATEWAY_KEY"}, use_env=False
    )
    write_export(export_route(profile, "claude-code"), root / ".claude" / "settings.json")
    write_export(export_route(profile, "codex"), root / ".codex" / "config.toml")
    assert found(doctor(root)) == {("settings.json", "env.ANTHROPIC_AUTH_TOKEN", "placeholder_key")}
    settings = root / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["env"]["ANTHROPIC_AUTH_TOKEN"] = SESSION_KEY
    settings.write_text(json.dumps(data))
    assert doctor(root, env={"CODEX_GATEWAY_KEY": FAKE_KEY, "OPENAI_API_KEY": "sk-bench-other-0000"}).ok


def test_unreadable_files_are_findings_and_a_named_missing_file_is_refused(tmp_path: Path) -> None:
    root = home(tmp_path, '{"env": {', "model = ")
    assert {(name, code) for name, _key, code in found(doctor(root))} == {
        ("settings.json", "unreadable"),
        ("config.toml", "unreadable"),
    }
    with pytest.raises(RouteError, match="not found"):
        run_doctor(DoctorInputs(claude_settings=tmp_path / "nope.json"))


def test_no_report_line_holds_a_key(tmp_path: Path) -> None:
    claude = {"env": {"ANTHROPIC_AUTH_TOKEN": FAKE_KEY, "ANTHROPIC_API_KEY": SESSION_KEY}}
    codex = CLEAN_CODEX.replace('env_key = "CODEX_GATEWAY_KEY"', f'env_key = "{SESSION_KEY}"')
    env = {"OPENAI_API_KEY": FAKE_KEY, "ANTHROPIC_AUTH_TOKEN": f" {SESSION_KEY}\n"}
    report = doctor(home(tmp_path, claude, codex), env=env)
    text = "\n".join(report.lines())
    assert len(report.findings) >= 4 and FAKE_KEY not in text and SESSION_KEY not in text


def test_cc_switch_own_config_with_providers_per_app(tmp_path: Path) -> None:
    config = {
        "version": 2,
        "claude": {
            "current": "relay",
            "providers": {
                "relay": {
                    "id": "relay",
                    "name": "Relay",
                    "settingsConfig": {
                        "env": {
                            "ANTHROPIC_BASE_URL": "https://relay.example.com/v1",
                            "ANTHROPIC_AUTH_TOKEN": FAKE_KEY,
                        }
                    },
                }
            },
        },
        "codex": {
            "providers": {
                "team": {"settingsConfig": {"auth": {"OPENAI_API_KEY": "sk-xxxxxxxx"}, "config": ""}}
            }
        },
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    report = run_doctor(
        DoctorInputs(cc_switch=path, benchmark_fingerprints=(str(key_fingerprint(FAKE_KEY)),))
    )
    assert {(f.key, f.code) for f in report.findings} == {
        ("claude.relay.settingsConfig.env.ANTHROPIC_BASE_URL", "version_segment"),
        ("claude.relay.settingsConfig.env.ANTHROPIC_AUTH_TOKEN", "shared_key"),
        ("codex.team.settingsConfig.auth.OPENAI_API_KEY", "placeholder_key"),
    }
    assert FAKE_KEY not in "\n".join(report.lines())
