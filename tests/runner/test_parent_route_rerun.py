"""`rerun --with-parent-route`, over real HTTP on the built-in simulator: a 5-round parent under a
two-key rotation cannot be decided by pinned rounds alone; the planner's proposed rounds on the
parent's own keys, run beside the pinned ones, decide it. The parent's key variables are used only
when the user's route names them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from plan_kit import run_tasks

from analyzer.analysis import analyze
from analyzer.cli import main
from analyzer.log.loader import load_path
from analyzer.routes.profile import RouteProfile
from analyzer.runner.parent_route import parent_route_path, proposed_rounds
from analyzer.simulator import Scenario
from analyzer.simulator.app_tasks import SAMPLE_KEYS, app_scenario, app_task_specs
from analyzer.simulator.scenario import Faults
from analyzer.verdicts.before_after import rerun_plan_of

KEY_A, KEY_B = "SIM_TEAM_A_KEY", "SIM_TEAM_B_KEY"


def _key_rotation() -> Scenario:
    """Each key on its own backend, no noise of the task's own and no spills: every split is the key's."""
    scenario = app_scenario(seed=2026)
    clean = [rule.model_copy(update={"flake": 0.0}) for rule in scenario.answers]
    return scenario.model_copy(update={"answers": clean, "faults": Faults(spill_rate=0.0)})


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_A, SAMPLE_KEYS[0])
    monkeypatch.setenv(KEY_B, SAMPLE_KEYS[1])
    monkeypatch.delenv("RERUNLENS_KEY_VARIABLES", raising=False)


@pytest.fixture
def parent(tmp_path: Path, keys: None) -> Path:
    out = tmp_path / "parent.altk_runs.json"
    profile = RouteProfile(
        model="gpt-4o-mini", temperature=0.0, seed=None, max_retries=0, concurrency=4,
        key_env=KEY_A, key_rotation=[KEY_B],
    )  # fmt: skip
    run_tasks(app_task_specs(), profile, out, rounds=5, scenario=_key_rotation())
    return out


def test_the_proposed_rounds_on_the_parents_keys_decide_what_pinned_rounds_cannot(
    parent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis = analyze(load_path(parent).log)
    ids = [str(t) for t in analysis.tasks.loc[analysis.tasks["consistent"].eq(False), "task_id"]]
    plan = rerun_plan_of(analysis, ids)
    proposed = proposed_rounds(plan)
    assert len(ids) >= 5 and not plan.decidable() and proposed, plan  # pinned rounds alone decide none
    monkeypatch.setenv("RERUNLENS_KEY_VARIABLES", KEY_B)  # the user names the parent's other key
    out = tmp_path / "rerun.json"
    argv = ["rerun", str(parent), "--only", "inconsistent", "--out", str(out), "--quiet", "--json"]
    assert main([*argv, "--key-env", KEY_A, "--with-parent-route"]) == 0
    captured = capsys.readouterr()
    assert "Beside them, the parent's own route sends" in captured.err  # its cost, said first
    report = json.loads(captured.out)
    beside = load_path(parent_route_path(out)).log
    assert report["parent_route_path"] == str(parent_route_path(out))
    assert len(beside.runs) == max(proposed.values())
    assert Counter(str(r.task_id) for _rnd, r in beside.results()) == proposed  # each task its proposal
    pinned = Counter(str(r.task_id) for _rnd, r in load_path(out).log.results())
    assert {t: pinned[t] for t in proposed} == plan.pinned_rounds(with_proposals=True)
    verdicts = {t["task_id"]: t["verdict"] for t in report["tasks"]}
    routed = [t for t in proposed if verdicts[t] == "route"]
    assert len(routed) >= 0.9 * len(proposed), verdicts


def test_without_the_parents_key_variable_named_nothing_is_sent(
    parent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "refused.json"
    argv = ["rerun", str(parent), "--only", "inconsistent", "--out", str(out), "--quiet"]
    assert main([*argv, "--key-env", KEY_A, "--with-parent-route"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("rerunlens: error:") and KEY_B in err[-1]
    assert not out.exists() and not parent_route_path(out).exists()
