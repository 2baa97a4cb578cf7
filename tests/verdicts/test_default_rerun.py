"""The default re-run (`verdicts.default_rerun`): one plan that `rerunlens rerun`, `rerun --dry-run` and
the runner's `rerun_plan` all take, on sample A (30 flagged tasks, 14 of them with two answers).

Sample A has tasks the planner decides in a few rounds, tasks no pinned rounds decide (with a proposal
on the parent's own route, or none at all) and flagged tasks with one answer, so every branch of the
plan is seen on a shipped log.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from analyzer.analysis import Analysis, analyze
from analyzer.cli import main
from analyzer.log.loader import load_path
from analyzer.routes.profile import RouteProfile
from analyzer.runner.pinned_rerun import RerunRequest, planned_rerun, rerun_plan, select_tasks
from analyzer.verdicts.before_after import rerun_plan_of
from analyzer.verdicts.default_rerun import (
    DEFAULT_SELECTION,
    ERRORED,
    NOT_TESTED,
    RUN_BY_ID,
    RUN_NONE,
    default_rerun,
)
from analyzer.verdicts.planner import plan_sentence
from analyzer.verdicts.rerun_cost import rerun_cost

SAMPLE_A = Path(__file__).resolve().parents[2] / "sample_runs" / "A_baseline.altk_runs.json"


@pytest.fixture(scope="module")
def parent() -> Analysis:
    return analyze(load_path(SAMPLE_A).log)


@pytest.fixture(scope="module")
def flagged() -> list[str]:
    return select_tasks(load_path(SAMPLE_A).log, DEFAULT_SELECTION)


def test_each_task_runs_the_planners_rounds_and_says_what_they_decide(
    parent: Analysis, flagged: list[str]
) -> None:
    planned = default_rerun(parent, flagged)
    plan = rerun_plan_of(parent, flagged)
    by_id = {t.task_id: t for t in plan.tasks}
    assert [t.task_id for t in planned.tasks] == flagged
    for task in planned.tasks:
        own = by_id.get(task.task_id)
        if own is None:  # one answer in the parent: nothing to decide, the plan's rounds
            assert (task.rounds, task.decides, task.needs) == (plan.rounds, None, NOT_TESTED)
        else:
            assert task.rounds == (own.rounds or plan.rounds) and task.needs == plan_sentence(own)
            assert task.decides is (own.rounds is not None)
    assert len({t.rounds for t in planned.tasks}) > 1  # per task, not one number for all
    undecided = [t.task_id for t in planned.undecidable()]
    assert undecided == [t.task_id for t in plan.tasks if t.rounds is None] and undecided
    assert planned.cost == rerun_cost(parent, flagged, planned.rounds())
    assert planned.requests == sum(planned.rounds().values()) and planned.beside_cost is None


def test_the_runner_runs_the_plan_the_cli_and_the_page_show(
    parent: Analysis, flagged: list[str], tmp_path: Path
) -> None:
    request = RerunRequest(load_path(SAMPLE_A).log, DEFAULT_SELECTION, SAMPLE_A, analysis=parent)
    run = rerun_plan(request, RouteProfile(), tmp_path / "x.altk_runs.json")
    assert {str(t.task_id): run.rounds_of(str(t.task_id)) for t in run.tasks} == default_rerun(
        parent, flagged, leave_out=True
    ).rounds()
    asked = replace(request, with_parent_route=True)
    beside = rerun_plan(asked, RouteProfile(), tmp_path / "y.altk_runs.json")
    assert {str(t.task_id): beside.rounds_of(str(t.task_id)) for t in beside.tasks} == default_rerun(
        parent, flagged, with_parent_route=True, leave_out=True
    ).rounds()


def test_with_the_parent_route_the_proposals_decide_and_are_costed(
    parent: Analysis, flagged: list[str]
) -> None:
    planned = default_rerun(parent, flagged, with_parent_route=True)
    proposals = {
        t.task_id: t for t in rerun_plan_of(parent, flagged).tasks if t.more_parent_rounds is not None
    }
    assert proposals  # sample A: 10-round parents split within one key
    assert planned.parent_route_rounds() == {t: p.more_parent_rounds for t, p in proposals.items()}
    for task in planned.tasks:
        if task.task_id in proposals:
            assert task.rounds == proposals[task.task_id].with_pinned and task.decides is True
    assert planned.beside_cost == rerun_cost(parent, list(proposals), planned.parent_route_rounds())
    assert planned.requests == planned.cost.requests + planned.beside_cost.requests
    assert planned.sentences()[-1].startswith("Beside them, the parent's own route sends")


def test_one_number_for_all_runs_that_many_and_says_what_it_leaves_undecided(
    parent: Analysis, flagged: list[str]
) -> None:
    planned = default_rerun(parent, flagged, 3)
    assert set(planned.rounds().values()) == {3} and planned.cost.requests == 3 * len(flagged)
    assert "This re-run runs 3: a task that needs more stays inconclusive." in planned.sentences()
    needs_more = [t for t in rerun_plan_of(parent, flagged).tasks if t.rounds is not None and t.rounds > 3]
    assert needs_more  # sample A: some tasks need more than 3
    assert {t.task_id for t in planned.undecidable()} >= {t.task_id for t in needs_more}
    assert planned.rounds_text() == "3"
    one = default_rerun(parent, flagged, {flagged[0]: 7})  # one task's own number, the others the planner's
    assert one.rounds()[flagged[0]] == 7
    assert {t: n for t, n in one.rounds().items() if t != flagged[0]} == {
        t: n for t, n in default_rerun(parent, flagged).rounds().items() if t != flagged[0]
    }


def test_rerun_dry_run_prints_the_plan_and_sends_nothing(
    parent: Analysis, flagged: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "never.altk_runs.json"
    assert main(["rerun", str(SAMPLE_A), "--dry-run", "--json", "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    planned = default_rerun(parent, flagged, leave_out=True)
    assert {t["task_id"]: t["rounds"] for t in printed["tasks"]} == planned.rounds()
    assert printed["requests"] == planned.requests and printed["sentences"] == planned.sentences()
    assert not out.exists() and not list(tmp_path.iterdir())

    two = flagged[:2]
    assert main(["rerun", str(SAMPLE_A), "--dry-run", "--repeat", "4", "--only", *two]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[: len(default_rerun(parent, two, 4).sentences())] == default_rerun(parent, two, 4).sentences()
    rows = [line.split() for line in text if line.split()[:1] in ([two[0]], [two[1]])]
    assert [(r[0], r[1]) for r in rows] == [(two[0], "4"), (two[1], "4")]


def test_rerun_dry_run_of_an_unknown_task_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rerun", str(SAMPLE_A), "--dry-run", "--only", "no-such-task"]) != 0
    err = capsys.readouterr().err
    assert err == "rerunlens: error: task 'no-such-task' is not in the log\n"


def test_rerun_dry_run_of_a_harness_log_says_the_plan_is_the_prompt_only_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    inspect_log = (
        Path(__file__).resolve().parents[1] / "fixtures" / "foreign" / "inspect_ai" / "client_type_error.json"
    )
    assert main(["rerun", str(inspect_log), "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("rerunlens: the log was made by inspect") and "--through prompt" in err
    assert main(["rerun", str(inspect_log), "--dry-run", "--through", "prompt"]) == 0
    assert capsys.readouterr().out == out and out  # the same plan, said without the note


def test_sample_a_default_sends_no_round_that_cannot_decide(
    parent: Analysis, flagged: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI's default re-run of sample A: no pinned round for a task the plan calls undecidable or
    one with a single answer and no error, each of them said with what would run it, and the figures it
    prints are the sum over the tasks it runs."""
    assert main(["rerun", str(SAMPLE_A), "--dry-run", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    runs = {t["task_id"]: t["rounds"] for t in printed["tasks"]}
    assert runs and all(t["decides"] is True for t in printed["tasks"])  # every task it runs can decide
    tasks = parent.tasks.assign(task_id=parent.tasks["task_id"].astype(str)).set_index("task_id")
    undecidable = [t.task_id for t in rerun_plan_of(parent, flagged).tasks if t.rounds is None]
    single = [t for t in tasks.index if tasks.at[t, "flagged"] and tasks.at[t, "n_clusters"] < 2]
    assert undecidable and single  # sample A has both kinds
    left = {t["task_id"]: t for t in printed["left_out"]}
    assert not set(runs) & {*undecidable, *single} and set(left) == {*undecidable, *single}
    assert {left[t]["runs_it"] for t in single} == {RUN_BY_ID}
    assert any(s.startswith("Not run (") and "--with-parent-route" in s for s in printed["sentences"])
    assert printed["requests"] == sum(runs.values())
    per_result = tasks["tokens_mean"].astype(float)
    assert printed["tokens"] == round(sum(per_result[t] * n for t, n in runs.items()))
    assert f"= {sum(runs.values()):,} requests" in " ".join(printed["sentences"])


def test_with_the_parent_route_the_default_runs_the_proposals_and_not_the_hopeless(
    parent: Analysis, flagged: list[str]
) -> None:
    planned = default_rerun(parent, flagged, with_parent_route=True, leave_out=True)
    hopeless = [
        t.task_id
        for t in rerun_plan_of(parent, flagged).tasks
        if t.rounds is None and t.more_parent_rounds is None
    ]
    assert hopeless and not set(hopeless) & set(planned.rounds())
    assert {t.task_id for t in planned.left_out if t.runs_it == RUN_NONE} == set(hopeless)
    proposals = planned.plan.parent_route_rounds()
    assert proposals and set(proposals) <= set(planned.rounds())
    assert all(t.decides is True for t in planned.tasks)


def test_a_single_answer_task_that_errored_runs_the_parents_rounds() -> None:
    log = load_path(SAMPLE_A.with_name("B_one_key.altk_runs.json")).log
    analysis = analyze(log)
    tasks = analysis.tasks.assign(task_id=analysis.tasks["task_id"].astype(str)).set_index("task_id")
    planned = default_rerun(analysis, select_tasks(log, DEFAULT_SELECTION), leave_out=True)
    errored = [
        t
        for t in tasks.index
        if tasks.at[t, "flagged"] and tasks.at[t, "n_clusters"] < 2 and tasks.at[t, "n_errors"] > 0
    ]
    assert errored  # sample B: pay-003 answered once and errored
    for task in errored:
        assert planned.rounds()[task] == tasks.at[task, "n_results"]
        assert next(t for t in planned.tasks if t.task_id == task).needs == ERRORED


def test_explicit_choices_run_exactly_what_was_chosen(parent: Analysis, flagged: list[str]) -> None:
    """Task ids, or one number of rounds, leave nothing out (the plan warns what cannot decide)."""
    request = RerunRequest(load_path(SAMPLE_A).log, flagged, SAMPLE_A, analysis=parent)
    assert planned_rerun(request).ids() == flagged and not planned_rerun(request).left_out
    named = RerunRequest(load_path(SAMPLE_A).log, DEFAULT_SELECTION, SAMPLE_A, analysis=parent)
    assert planned_rerun(named, 4).rounds() == dict.fromkeys(flagged, 4)
    assert len(planned_rerun(named).ids()) < len(flagged)


def test_a_default_rerun_with_nothing_to_decide_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The format-1 sample's 3-round parents: no pinned rounds decide any task, so nothing is sent and
    the one line names them with the re-run that could."""
    out = tmp_path / "never.altk_runs.json"
    log = SAMPLE_A.with_name("format1_plain_script.json")
    assert main(["rerun", str(log), "--simulator", "--yes", "--out", str(out)]) != 0
    err = capsys.readouterr().err
    assert err.startswith("rerunlens: error: nothing to re-run:") and err.count("\n") == 1
    assert "--with-parent-route" in err and not list(tmp_path.iterdir())
