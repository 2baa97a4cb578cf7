"""A shared log never chooses which secret is sent where: its key variable must be one the user's own
route names, and its host must be the user's own or one the user confirmed (`--yes`, a question on a
terminal, a click on the dashboard), remembered per host and variable, never with the key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint, Received, Reply, completion

from analyzer.cli import main
from analyzer.errors import RouteError
from analyzer.routes.profile import RouteProfile
from analyzer.runner.rerun_route import Consent, confirm_log_route, route_question
from analyzer.safety.trusted_hosts import is_trusted, origin_of, remember, trusted_hosts_path

SAMPLE_A = Path("sample_runs/A_baseline.altk_runs.json")
SAMPLE_E = Path("sample_runs/E_agent_tools.altk_runs.json")


def _foreign_log(tmp_path: Path, sample: Path, base_url: str, key_env: str) -> Path:
    """A colleague's log whose route names `base_url` and `key_env` (as a hostile one would)."""
    raw: dict[str, Any] = json.loads(sample.read_text())
    raw.pop("simulator_scenario", None)
    raw["route"].update(base_url=base_url, key_env=key_env, simulator=False)
    for row in raw["runs"]:
        for result in row:
            if result.get("route"):
                result["route"].update(base_url=base_url, key_env=key_env, simulator=False)
    out = tmp_path / f"shared-{sample.name}"
    out.write_text(json.dumps(raw))
    return out


def _ok(_got: Received) -> Reply:
    return completion("OK")


def _rerun(log: Path, out: Path, *extra: str) -> int:
    return main(
        ["rerun", str(log), "--only", "shop-001", "--repeat", "1", "--out", str(out), "--quiet", *extra]
    )


@pytest.mark.parametrize("variable", ["GITHUB_TOKEN", "HOME", "AWS_SECRET_ACCESS_KEY"])
def test_a_logs_key_variable_is_refused_even_with_yes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variable: str
) -> None:
    monkeypatch.setenv(variable, FAKE_KEY)
    with HostileEndpoint(_ok) as ep:
        log = _foreign_log(tmp_path, SAMPLE_A, ep.base_url, variable)
        assert _rerun(log, tmp_path / "r.json", "--yes") == 2
        assert ep.received == []  # nothing was sent at all
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and variable in err and "not one your own route names" in err
    assert FAKE_KEY not in err and not (tmp_path / "r.json").exists()


def test_a_foreign_host_needs_yes_then_is_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    with HostileEndpoint(_ok) as ep:
        log = _foreign_log(tmp_path, SAMPLE_A, ep.base_url, "OPENAI_API_KEY")
        assert _rerun(log, tmp_path / "r1.json") == 2  # not a terminal, no --yes: refused
        assert ep.received == []
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "OPENAI_API_KEY" in err and ep.origin in err and "--yes" in err
        assert _rerun(log, tmp_path / "r2.json", "--yes") == 0
        assert ep.received and all(
            r.headers.get("Authorization") == f"Bearer {FAKE_KEY}" for r in ep.received
        )
        sent = len(ep.received)
        assert _rerun(log, tmp_path / "r3.json") == 0  # remembered for this host and variable
        assert len(ep.received) > sent
    stored = trusted_hosts_path().read_text()
    assert FAKE_KEY not in stored and "OPENAI_API_KEY" in stored and "/v1" not in stored
    assert trusted_hosts_path().stat().st_mode & 0o077 == 0


def test_the_users_own_host_needs_no_confirmation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    with HostileEndpoint(_ok) as ep:
        monkeypatch.setenv("OPENAI_BASE_URL", ep.base_url)
        log = _foreign_log(tmp_path, SAMPLE_A, ep.base_url, "OPENAI_API_KEY")
        assert _rerun(log, tmp_path / "r.json") == 0
    assert not trusted_hosts_path().exists()


def test_resample_of_a_shared_log_asks_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", FAKE_KEY)
    with HostileEndpoint(_ok) as ep:
        log = _foreign_log(tmp_path, SAMPLE_E, ep.base_url, "GITHUB_TOKEN")
        args = ["resample", str(log), "--task", "agent-cheapest-monitor", "--samples", "2", "--steps", "0"]
        assert main([*args, "--out", str(tmp_path / "s.json"), "--yes"]) == 2
        assert "GITHUB_TOKEN" in capsys.readouterr().err
        log = _foreign_log(tmp_path, SAMPLE_E, ep.base_url, "OPENAI_API_KEY")
        assert main([*args, "--out", str(tmp_path / "s.json")]) == 2
        assert ep.received == []
        assert main([*args, "--out", str(tmp_path / "s.json"), "--yes"]) == 0
        assert ep.received


def test_a_question_is_asked_once_and_its_answer_kept(tmp_path: Path) -> None:
    store = tmp_path / "hosts.json"
    profile = RouteProfile(base_url="https://user:pw@GW.example.com/v1?token=abc", key_env="OPENAI_API_KEY")
    asked: list[str] = []
    with pytest.raises(RouteError, match="confirm with --yes"):
        confirm_log_route(
            profile, RouteProfile(), Consent(ask=lambda q: asked.append(q) or False, store=store)
        )
    assert (
        asked and "https://gw.example.com:443" in asked[0] and "pw" not in asked[0] and "abc" not in asked[0]
    )
    confirm_log_route(profile, RouteProfile(), Consent(ask=lambda q: True, store=store))
    assert route_question(profile, RouteProfile(), Consent(store=store)) is None
    assert is_trusted("https://gw.example.com:443", "OPENAI_API_KEY", store)
    assert not is_trusted("https://gw.example.com:8443", "OPENAI_API_KEY", store)  # per origin


def test_the_remembered_file_never_holds_a_key_and_refuses_a_broken_one(tmp_path: Path) -> None:
    store = tmp_path / "hosts.json"
    with pytest.raises(Exception, match="variable name"):
        remember(origin_of("https://gw.example.com"), FAKE_KEY, store)
    assert not store.exists()
    store.write_text("{not json")
    with pytest.raises(RouteError) as broken:
        is_trusted("https://gw.example.com:443", "OPENAI_API_KEY", store)
    assert "\n" not in broken.value.message and str(store) in broken.value.message


@pytest.mark.parametrize(("answer", "code"), [("y", 0), ("", 2), ("no", 2)])
def test_a_terminal_is_asked_naming_host_and_variable(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answer: str,
    code: int,
) -> None:
    import sys

    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt: answer)
    with HostileEndpoint(_ok) as ep:
        log = _foreign_log(tmp_path, SAMPLE_A, ep.base_url, "OPENAI_API_KEY")
        assert _rerun(log, tmp_path / "r.json") == code
        assert bool(ep.received) == (code == 0)
    asked = capsys.readouterr().err
    assert "OPENAI_API_KEY" in asked and ep.origin in asked and FAKE_KEY not in asked
