"""`check_route` and `rerunlens check`: one minimal completion and a diagnosis a person can act on."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from analyzer.cli import main
from analyzer.routes.profile import RouteProfile
from analyzer.runner.preflight import check_route
from analyzer.safety.keys import key_fingerprint
from analyzer.simulator import Faults, KeyConfig, Scenario, ScriptRule, Simulator

GOOD = "good-key-7f3a9c"


@pytest.fixture
def strict() -> Iterator[Simulator]:
    scenario = Scenario(
        accept_any_key=False,
        keys={GOOD: KeyConfig()},
        accept_any_model=False,
        latency_ms=(0.0, 0.0),
        faults=Faults(hang_s=3),
    )
    with Simulator(scenario) as sim:
        yield sim


def test_embedded_simulator_is_ok_without_any_key() -> None:
    d = check_route(RouteProfile(), env={})
    assert d.ok and d.kind == "ok" and d.simulator
    assert d.served_model and d.latency_ms is not None
    assert any("built-in simulator" in line for line in d.details)
    assert len(d.attempts) == 1 and d.attempts[0].status_code == 200


def test_ok_reports_latency_and_served_model(strict: Simulator) -> None:
    d = check_route(RouteProfile(base_url=strict.base_url), env={"OPENAI_API_KEY": GOOD})
    assert d.ok and d.served_model and d.served_model.startswith("gpt-4o-mini-")
    assert d.key_fingerprint == key_fingerprint(GOOD)
    assert d.lines()[0].startswith("OK: ")


@pytest.mark.parametrize(
    ("env", "problem", "fix_words"),
    [
        ({}, "empty", "is empty"),
        ({"OPENAI_API_KEY": "your-api-key-here"}, "placeholder", "placeholder"),
        ({"OPENAI_API_KEY": "sk-wrong-0123456789"}, None, "not valid"),
    ],
)
def test_401_names_the_variable_fingerprint_and_problem(
    strict: Simulator, env: dict[str, str], problem: str | None, fix_words: str
) -> None:
    d = check_route(RouteProfile(base_url=strict.base_url), env=env)
    assert not d.ok and d.kind == "auth" and d.status_code == 401
    assert d.key_env == "OPENAI_API_KEY" and "OPENAI_API_KEY" in d.headline
    assert d.key_problem == problem
    assert fix_words in (d.fix or "")
    if env:
        assert d.key_fingerprint == key_fingerprint(env["OPENAI_API_KEY"])


def test_other_key_variable_is_named(strict: Simulator) -> None:
    d = check_route(RouteProfile(base_url=strict.base_url, key_env="TEAM_KEY"), env={"TEAM_KEY": ""})
    assert d.kind == "auth" and "TEAM_KEY" in (d.fix or "")


def test_404_shows_the_exact_url_and_the_fix(strict: Simulator) -> None:
    base = strict.base_url.removesuffix("/v1")
    d = check_route(RouteProfile(base_url=base), env={"OPENAI_API_KEY": GOOD})
    assert d.kind == "not_found" and d.status_code == 404
    assert d.call_url == base + "/chat/completions"
    assert d.call_url in d.headline
    assert strict.base_url in (d.fix or "")


def test_unknown_model_is_its_own_diagnosis(strict: Simulator) -> None:
    d = check_route(RouteProfile(base_url=strict.base_url, model="gpt-nope"), env={"OPENAI_API_KEY": GOOD})
    assert d.kind == "model_not_found" and "gpt-nope" in d.headline


def test_429_reports_retry_after() -> None:
    script = [ScriptRule(match="Reply with OK", actions=["429"], retry_after_s=7)]
    with Simulator(Scenario(script=script, latency_ms=(0.0, 0.0))) as sim:
        d = check_route(RouteProfile(base_url=sim.base_url), env={"OPENAI_API_KEY": "k"})
    assert d.kind == "rate_limited" and d.retry_after_s == pytest.approx(7)
    assert "Retry-After 7" in d.headline
    assert len(d.attempts) == 1  # a preflight does not retry


def test_timeout(strict: Simulator) -> None:
    strict.scenario.script.append(ScriptRule(match="Reply with OK", actions=["timeout"]))
    d = check_route(RouteProfile(base_url=strict.base_url, timeout_s=0.3), env={"OPENAI_API_KEY": GOOD})
    assert d.kind == "timeout" and d.attempts[0].outcome == "timeout"


def test_connection_refused() -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    d = check_route(RouteProfile(base_url=f"http://127.0.0.1:{port}/v1"), env={"OPENAI_API_KEY": "k"})
    assert d.kind == "connection_refused" and str(port) in d.headline


def test_lint_findings_travel_with_the_diagnosis(strict: Simulator) -> None:
    d = check_route(RouteProfile(base_url=strict.base_url + "?utm_source=mail"), env={"OPENAI_API_KEY": GOOD})
    assert not d.ok
    assert any(f.code == "query_string" for f in d.lint)


def test_cli_check_exit_codes(
    strict: Simulator, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", GOOD)
    assert main(["check", "--base-url", strict.base_url]) == 0
    assert "OK:" in capsys.readouterr().out
    monkeypatch.setenv("OPENAI_API_KEY", "sk-nope-0000000000")
    assert main(["check", "--base-url", strict.base_url, "--json"]) == 1
    assert '"kind": "auth"' in capsys.readouterr().out


def test_an_unparseable_base_url_is_one_diagnosis_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--base-url", "http://[::1:9/v1"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAILED: the base URL is not a valid URL (Invalid IPv6 URL)")
    d = check_route(RouteProfile(base_url="http://[::1:9/v1"), env={})
    assert d.kind == "bad_url" and not d.attempts


@pytest.mark.parametrize("value", ["inf", "nan", "86400"])
def test_an_infinite_or_huge_timeout_is_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--timeout", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rerunlens: error: --timeout=") and len(err.strip().splitlines()) == 1


def test_run_refuses_an_unparseable_base_url_in_one_line(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    args = ["run", "--tasks", "tests/fixtures/tasks/three_tasks.json", "--out", str(out), "--repeat", "1"]
    assert main([*args, "--base-url", "http://[::1:9/v1"]) == 2
    err = capsys.readouterr().err
    assert "not a valid URL" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
