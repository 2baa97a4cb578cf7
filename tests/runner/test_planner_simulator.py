"""The planner's rounds, run: over real HTTP on the built-in simulator, a key rotation whose keys
each give another answer, the re-run at the planner's rounds decides every task the plan says it
decides; the CLI states the plan and its cost first, and refuses past --max-requests with no terminal."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path

import pytest
from plan_kit import run_tasks

from analyzer.analysis import analyze
from analyzer.cli import main
from analyzer.log.loader import load_path
from analyzer.routes.profile import RouteProfile
from analyzer.runner.pinned_rerun import RerunRequest, rerun_plan
from analyzer.runner.plan import ResumeRequest, RunControls, plan_from_journal
from analyzer.runner.run import run_plan
from analyzer.simulator import Scenario
from analyzer.simulator.app_tasks import SAMPLE_KEYS, app_scenario, app_task_specs
from analyzer.simulator.scenario import Faults
from analyzer.verdicts.before_after import rerun_plan_of
from analyzer.verdicts.default_rerun import default_rerun
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
    # cost first: the plan and the requests and expected tokens, on stderr, before the report; the
    # default leaves out what no pinned rounds decide and plans the rest again (BH counts fewer tasks)
    planned = default_rerun(analysis, ids, leave_out=True)
    named, plan = planned.rounds(), planned.plan
    decidable = [t.task_id for t in plan.decidable()]
    assert set(named) == set(decidable) and {t.task_id for t in planned.left_out} == set(ids) - set(named)
    cost = rerun_cost(analysis, list(named), named)
    assert planned.cost == cost
    assert f"{len(decidable)} of {len(decidable)} tested tasks can be decided" in captured.err
    assert f"= {cost.requests:,} requests, about {cost.tokens:,} tokens" in captured.err
    verdicts = {t["task_id"]: t for t in json.loads(captured.out)["tasks"]}
    assert {verdicts[t]["verdict"] for t in decidable} == {"route"}, [verdicts[t] for t in decidable]
    # each task ran the rounds the planner named for it, not the most any task needs
    log = load_path(out).log
    ran = Counter(str(r.task_id) for _rnd, r in log.results())
    assert ran == named and len(set(named.values())) > 1, (ran, named)
    assert sum(ran.values()) == cost.requests == sum(named.values()) < len(named) * plan.rounds


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


def test_an_interrupted_planned_rerun_resumes_with_each_tasks_own_rounds(
    parent: Path, tmp_path: Path
) -> None:
    log = load_path(parent).log
    request = RerunRequest(log, "inconsistent", parent)
    out = tmp_path / "resumed.json"
    plan = rerun_plan(request, RouteProfile(max_retries=0, concurrency=1), out)
    assert plan.task_rounds and plan.total < len(plan.tasks) * plan.rounds
    cancel = threading.Event()
    controls = RunControls(lambda p: cancel.set() if p.done >= 3 else None, cancel)
    assert run_plan(plan, controls).cancelled
    resumed = plan_from_journal(out, ResumeRequest(profile=plan.profile))
    assert resumed.task_rounds == plan.task_rounds and resumed.total == plan.total
    run_plan(resumed)
    ran = Counter(str(r.task_id) for _rnd, r in load_path(out).log.results())
    assert ran == {str(t.task_id): plan.rounds_of(str(t.task_id)) for t in plan.tasks}
