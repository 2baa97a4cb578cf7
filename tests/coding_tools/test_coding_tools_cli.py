"""`rerunlens route export` and `rerunlens route doctor`, invoked in-process: stdout is the settings,
exit 2 on a refused base URL, exit 1 when the doctor finds a mistake, and never the key."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from fake_keys import FAKE_KEY

from analyzer.cli import build_parser, main
from analyzer.cli.parser import CODING_TOOLS
from analyzer.coding_tools import TOOLS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_parsers_tool_list_is_the_librarys() -> None:
    assert CODING_TOOLS == TOOLS


def test_export_prints_the_settings_and_explains_on_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    code, out, err = run(
        capsys,
        "route",
        "export",
        "--for",
        "codex",
        "--base-url",
        "https://gw.example.com/v1",
        "--key-env",
        "CODEX_KEY",
        "--model",
        "gw-coder",
    )
    assert code == 0, err
    data = tomllib.loads(out)
    assert data["model_providers"]["rerunlens"]["env_key"] == "CODEX_KEY" and data["model"] == "gw-coder"
    assert "appends /responses" in err and "CODEX_KEY" in err
    assert FAKE_KEY not in out + err


def test_export_reads_the_route_from_the_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "https://gw.example.com/v1")
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    code, out, err = run(capsys, "route", "export", "--for", "claude-code")
    assert code == 0
    assert json.loads(out)["env"]["ANTHROPIC_BASE_URL"] == "https://gw.example.com"
    assert "not the benchmark's (in OPENAI_API_KEY)" in err
    assert FAKE_KEY not in out + err


def test_a_bad_base_url_is_refused_in_one_line_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "route",
        "export",
        "--for",
        "claude-code",
        "--base-url",
        "https://www.openai.com/?utm_source=newsletter",
    )
    assert code == 2 and out == ""
    assert err.startswith("rerunlens: error: the route's base URL fails the lint") and err.count("\n") == 1


def test_export_out_merges_and_refuses_to_overwrite_without_force(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "settings.json"
    target.write_text(json.dumps({"model": "opus", "env": {"ANTHROPIC_MODEL": "older"}}))
    args = [
        "route",
        "export",
        "--for",
        "claude-code",
        "--base-url",
        "https://gw.example.com/v1",
        "--out",
        str(target),
    ]
    code, _out, err = run(capsys, *args)
    assert code == 2 and "env.ANTHROPIC_MODEL" in err and "--force" in err
    code, out, _err = run(capsys, *args, "--force")
    assert code == 0 and "replaced env.ANTHROPIC_MODEL" in out
    merged = json.loads(target.read_text())
    assert merged["model"] == "opus" and merged["env"]["ANTHROPIC_MODEL"] == "gpt-4o-mini"


def test_force_without_out_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "route", "export", "--for", "codex", "--force")
    assert code == 2 and "--force only applies with --out" in err


def test_doctor_exits_1_on_a_mistake_and_0_when_clean(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    (tmp_path / ".claude").mkdir()
    settings = tmp_path / ".claude" / "settings.json"
    settings.write_text(
        json.dumps(
            {"env": {"ANTHROPIC_BASE_URL": "https://gw.example.com", "ANTHROPIC_AUTH_TOKEN": "YOUR_API_KEY"}}
        )
    )
    code, out, _err = run(capsys, "route", "doctor")
    assert code == 1
    assert f"{settings}: env.ANTHROPIC_AUTH_TOKEN: holds a placeholder" in out and "1 mistake found" in out
    settings.write_text(json.dumps({"env": {"ANTHROPIC_BASE_URL": "https://gw.example.com"}}))
    code, out, _err = run(capsys, "route", "doctor")
    assert code == 0 and out.endswith("no mistake found\n")


def test_doctor_env_shows_a_shared_key_only_as_its_fingerprint(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", FAKE_KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    config = tmp_path / "config.toml"
    config.write_text('model = "m"\n')
    code, out, _err = run(capsys, "route", "doctor", "--codex-config", str(config), "--env")
    assert code == 1 and "environment: $ANTHROPIC_AUTH_TOKEN: is the benchmark's key (sha256:" in out
    assert FAKE_KEY not in out


def test_doctor_refuses_a_named_file_that_is_missing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _out, err = run(capsys, "route", "doctor", "--claude-settings", str(tmp_path / "nope.json"))
    assert code == 2 and "nope.json: not found" in err


def test_route_needs_an_action_and_every_action_has_an_example() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    route = sub.choices["route"]
    actions = next(a for a in route._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(actions.choices) == {"export", "doctor"}
    for name, command in actions.choices.items():
        assert command.epilog and f"rerunlens route {name}" in command.epilog
