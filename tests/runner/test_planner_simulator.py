"""The planner's rounds, run: over real HTTP on the built-in simulator, a key rotation whose keys
each give another answer, the re-run at the planner's rounds decides every task the plan says it
decides; the CLI states the plan and its cost first, and refuses past --max-requests with no terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plan_kit import run_tasks

from analyzer.analysis import analyze
from analyzer.cli import main
from analyzer.log.loader import load_path
from analyzer.routes.profile import RouteProfile
from analyzer.simulator import Scenario
from analyzer.simulator.app_tasks import SAMPLE_KEYS, app_scenario, app_task_specs
from analyzer.simulator.scenario import Faults
from analyzer.verdicts.before_after import rerun_plan_of
from analyzer.verdicts.rerun_cost import rerun_cost


def _key_rotation() -> Scenario:
    """Each key on its own backend, backends that favour other answers, no noise of the task's own and
    no spills: every split is the key's."""
    scenario = app_scenario(seed=2026)
    clean = [rule.model_copy(update={"flake": 0.0}) for rule in scenario.answers]
    return scenario.model_copy(update={"answers": clean, "faults": Faults(spill_rate=0.0)})


@pytest.fixture(scope="module")
def parent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("planner") / "parent.altk_runs.json"
    profile = RouteProfile(model="gpt-4o-mini", temperature=0.0, seed=None, max_retries=0, concurrency=4)
    run_tasks(app_task_specs(), profile, out, rounds=6, api_keys=SAMPLE_KEYS[:2], scenario=_key_rotation())
    return out


def test_the_planners_rounds_run_on_the_simulator_decide_what_it_said(
    parent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    analysis = analyze(load_path(parent).log)
    ids = [str(t) for t in analysis.tasks.loc[analysis.tasks["consistent"].eq(False), "task_id"]]
    plan = rerun_plan_of(analysis, ids)
    decidable = [t.task_id for t in plan.decidable()]
    assert len(ids) >= 5 and decidable, plan  # the scenario splits tasks by key, and some can be decided
    out = tmp_path / "rerun.json"
    code = main(["rerun", str(parent), "--only", "inconsistent", "--out", str(out), "--quiet", "--json"])
    assert code == 0
    captured = capsys.readouterr()
    # cost first: the plan and the requests and expected tokens, on stderr, before the report
    cost = rerun_cost(analysis, ids, plan.rounds)
    assert f"{len(decidable)} of {len(plan.tasks)} tested tasks can be decided" in captured.err
    assert f"= {cost.requests:,} requests, about {cost.tokens:,} tokens" in captured.err
    verdicts = {t["task_id"]: t for t in json.loads(captured.out)["tasks"]}
    assert {verdicts[t]["verdict"] for t in decidable} == {"route"}, [verdicts[t] for t in decidable]
    assert load_path(out).log.runs and len(load_path(out).log.runs) == plan.rounds


def test_past_max_requests_with_no_terminal_the_rerun_is_refused_in_one_line(
    parent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "refused.json"
    argv = ["rerun", str(parent), "--only", "inconsistent", "--out", str(out), "--quiet"]
    argv += ["--max-requests", "3"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("rerunlens: error:") and "past --max-requests 3" in err[-1]
    assert not out.exists()  # nothing was sent
