"""The Re-run page offers `rerun --with-parent-route` as a checkbox with its cost: ticked, the planner's
proposed rounds run on the parent's own keys beside the pinned ones (real HTTP on the simulator), and
the verdicts count them; a key variable the user's route does not name blocks the button."""

from __future__ import annotations

from pathlib import Path

import app_kit
import pytest
from app_kit import shown_figures, wait_for
from plan_kit import run_tasks

from analyzer.analysis import analyze
from analyzer.jobs.manager import get_manager
from analyzer.log.loader import list_logs, load_path
from analyzer.routes.profile import RouteProfile
from analyzer.runner.parent_route import parent_route_path, proposed_rounds
from analyzer.simulator.app_tasks import SAMPLE_KEYS, app_scenario, app_task_specs
from analyzer.simulator.scenario import Faults
from analyzer.verdicts.before_after import rerun_plan_of
from analyzer.verdicts.rerun_cost import cost_sentence, rerun_cost
from app.widgets.messages import escape

KEY_A, KEY_B = "SIM_TEAM_A_KEY", "SIM_TEAM_B_KEY"
PARENT = "rotation.altk_runs.json"


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The runs folder with a 5-round parent whose two keys (named variables) give other answers."""
    folder = app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    monkeypatch.setenv(KEY_A, SAMPLE_KEYS[0])
    monkeypatch.setenv(KEY_B, SAMPLE_KEYS[1])
    scenario = app_scenario(seed=2026)
    clean = [rule.model_copy(update={"flake": 0.0}) for rule in scenario.answers]
    scenario = scenario.model_copy(update={"answers": clean, "faults": Faults(spill_rate=0.0)})
    profile = RouteProfile(seed=None, max_retries=0, concurrency=4, key_env=KEY_A, key_rotation=[KEY_B])
    run_tasks(app_task_specs(), profile, folder / PARENT, rounds=5, scenario=scenario)
    return folder


def _proposed(folder: Path) -> dict[str, int]:
    analysis = analyze(load_path(folder / PARENT).log)
    ids = analysis.tasks.loc[analysis.tasks["consistent"].eq(False), "task_id"].astype(str).tolist()
    return proposed_rounds(rerun_plan_of(analysis, ids))


def test_the_checkbox_runs_the_proposals_beside_the_pinned_rounds_and_they_decide(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RERUNLENS_KEY_VARIABLES", f"{KEY_A},{KEY_B}")
    proposed = _proposed(runs)
    assert proposed  # no pinned rounds decide a 5-round parent's 3/2 splits: the planner proposes
    at = app_kit.open_view("views/rerun.py", PARENT, "Re-run")
    at.checkbox(key="rerun.with_parent_route").check().run()
    parent = analyze(load_path(runs / PARENT).log)
    cost = cost_sentence(rerun_cost(parent, list(proposed), proposed), "Beside them, the parent's own route")
    assert escape(cost) in [c.value for c in at.caption]  # its cost beside the button
    at.button(key="rerun.start").click().run()
    wait_for(at, lambda a: "Route (beyond chance)" in shown_figures(a), timeout=120)
    [new] = [p for p in list_logs(runs) if ".rerun-" in p.name and ".parent-route" not in p.name]
    beside = load_path(parent_route_path(new)).log
    assert {str(r.task_id) for _rnd, r in beside.results()} == set(proposed)
    job = get_manager(runs).latest("rerun", parent=runs / PARENT)
    assert job is not None and job.state == "done"
    assert int(shown_figures(at)["Route (beyond chance)"]) >= 0.9 * len(proposed)


def test_a_key_variable_the_users_route_does_not_name_blocks_the_button(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RERUNLENS_KEY_VARIABLES", raising=False)
    at = app_kit.open_view("views/rerun.py", PARENT, "Re-run")
    assert at.button(key="rerun.start").disabled  # by default no pinned rounds decide its tasks: none run
    at.number_input(key="rerun.rounds").set_value(5).run()  # one number for all: exactly what was chosen
    assert not at.button(key="rerun.start").disabled
    at.checkbox(key="rerun.with_parent_route").check().run()
    assert any(escape(KEY_A) in e.value for e in at.error)  # named, one line, nothing sent
    assert at.button(key="rerun.start").disabled
