"""A re-run measures the parent's provider, replays its simulator scenario, and says what it pinned."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from plan_kit import run_tasks

from analyzer.cli import main
from analyzer.log.loader import load_path
from analyzer.log.model import TaskSpec
from analyzer.routes.profile import RouteProfile
from analyzer.runner.rerun_route import parent_provider
from analyzer.simulator import AnswerRule, Choice, Scenario, Simulator
from analyzer.verdicts.rerun_sentences import pinned_text

SAMPLE_A = Path("sample_runs/A_baseline.altk_runs.json")
TASKS = [TaskSpec(task_id="t1", prompt="Which colour is the sky?"), TaskSpec(task_id="t2", prompt="2+2?")]
SCRIPTED = Scenario(
    latency_ms=(0.0, 1.0),
    answers=[
        AnswerRule(match="colour", choices=[Choice(text="blue"), Choice(text="azure")], flake=1.0),
        AnswerRule(match="2+2", choices=[Choice(text="four")]),
    ],
)


@pytest.fixture
def provider() -> Iterator[Simulator]:
    """A server on loopback that plays "a provider": logs made against it record its base URL."""
    sim = Simulator(SCRIPTED).start()
    yield sim
    sim.stop()


def _provider_log(tmp_path: Path, sim: Simulator) -> Path:
    out = tmp_path / "provider.altk_runs.json"
    profile = RouteProfile(base_url=sim.base_url, key_env="TEAM_KEY", seed=None)  # a provider run, no seed
    run_tasks(TASKS, profile, out, rounds=4, api_key="k")
    return out


def test_a_providers_log_is_rerun_on_its_provider_by_default(
    tmp_path: Path, provider: Simulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = _provider_log(tmp_path, provider)
    assert parent_provider(load_path(parent).log).real
    monkeypatch.setenv("TEAM_KEY", "team-key-1234567")
    monkeypatch.setenv("RERUNLENS_KEY_VARIABLES", "TEAM_KEY")  # the user allows the log's variable
    out = str(tmp_path / "r.json")
    code = main(["rerun", str(parent), "--only", "t1", "--out", out, "--quiet", "--json", "--yes"])
    assert code == 0
    new = load_path(tmp_path / "r.json").log
    assert new.route is not None and new.route.base_url == provider.base_url and not new.route.simulator
    assert new.route.key_env == "TEAM_KEY"  # the parent's key variable, not OPENAI_API_KEY
    assert json.loads(capsys.readouterr().out)["pinned"] == ["route", "seed"]  # the parent sent no seed


def test_a_providers_log_is_not_silently_rerun_on_the_simulator(
    tmp_path: Path, provider: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = _provider_log(tmp_path, provider)
    raw = json.loads(parent.read_text())
    raw["route"]["base_url"] = raw["route"]["base_url"] + "?token=[redacted]"  # its secret was not saved
    parent.write_text(json.dumps(raw))
    out = tmp_path / "r.json"
    assert main(["rerun", str(parent), "--only", "t1", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--simulator" in err and "provider with a simulator" in err
    assert not out.exists()

    assert main(["rerun", str(parent), "--only", "t1", "--out", str(out), "--quiet", "--simulator"]) == 0
    new = load_path(out).log
    assert new.route is not None and new.route.simulator and new.label and "(simulated)" in new.label
    printed = capsys.readouterr()
    assert "compares a provider with a simulator" in printed.out + printed.err


def test_a_simulator_made_log_records_its_scenario_and_a_rerun_replays_it(tmp_path: Path) -> None:
    parent = tmp_path / "sim.altk_runs.json"
    run_tasks(TASKS, RouteProfile(), parent, rounds=3, scenario=SCRIPTED)
    recorded = json.loads(parent.read_text())["simulator_scenario"]
    assert Scenario.model_validate(recorded) == SCRIPTED
    out = tmp_path / "again.json"
    assert main(["rerun", str(parent), "--only", "t2", "t1", "--out", str(out), "--quiet"]) == 0
    answers = {str(r.task_id): r.answer for _, r in load_path(out).log.results()}
    assert answers["t2"] == "four" and answers["t1"] in ("blue", "azure")  # the parent's scripted model


def test_the_shipped_samples_carry_the_scenario_they_were_made_with() -> None:
    shipped = json.loads(Path("sample_runs/simulator_scenario.json").read_text())
    for path in sorted(Path("sample_runs").glob("[A-D]_*.altk_runs.json")):
        assert json.loads(path.read_text())["simulator_scenario"] == shipped, path


def test_rerun_of_sample_a_says_the_seed_was_pinned_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "a.json"
    assert (
        main(["rerun", str(SAMPLE_A), "--only", "shop-001", "--repeat", "2", "--out", str(out), "--quiet"])
        == 0
    )
    assert "(route and seed pinned.)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("changed", "text"),
    [
        ([], "route pinned"),
        (["seed"], "route and seed pinned"),
        (["seed", "scenario"], "route, seed and scenario pinned"),
    ],
)
def test_pinned_text(changed: list[str], text: str) -> None:
    assert pinned_text(changed) == text
