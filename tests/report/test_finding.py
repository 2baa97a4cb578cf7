"""Overview's first screen: the finding's sentence and counts, from the JSON report."""

from __future__ import annotations

from pathlib import Path

from analyzer import load_any
from analyzer.analysis import analyze
from analyzer.report.finding import finding

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def _report(name: str) -> dict:
    return analyze(load_any(SAMPLES / name).log).report()


def test_sample_a_says_how_many_disagree_and_which_follow_the_route() -> None:
    report = _report("A_baseline.altk_runs.json")
    f = finding(report)
    causes = sorted(a["cause"] for a in report["attribution"])
    assert causes == ["inconclusive"] * 2 + ["model"] * 5 + ["route"] * 7  # 10 rounds over two keys
    # the 7 the route factors explain, split by whose side the factor is on: yours, the provider's
    # backend alone, or both changing together
    assert f.sentence == (
        "14 of 30 tasks disagree across 10 rounds: 46.7 % (95 % CI 28.3–65.7). Of them, "
        "1 follows your route (key, base URL or parameters), beyond chance (q ≤ 0.05 after FDR); "
        "3 follow the provider's backend (served model or fingerprint), all beyond chance "
        "(q ≤ 0.05 after FDR); 3 follow your route and the backend together, all beyond chance "
        "(q ≤ 0.05 after FDR); "
        "5 vary within one route (the model); 2 are inconclusive: too few rounds to tell the route "
        "from the model."
    )
    assert {b.label: b.tasks for b in f.bars} == {
        "consistent": 16,
        "route, q ≤ 0.05": 1,
        "backend, q ≤ 0.05": 3,
        "route or backend, q ≤ 0.05": 3,
        "model": 5,
        "inconclusive": 2,
    }
    low, high = report["answer_gap_ci"]  # the same interval as the answer gap's, wherever it is read
    assert f.share_ci == [low / 100, high / 100]


def test_a_p_value_alone_is_counted_against_the_threshold_and_said_unadjusted() -> None:
    report = {
        "tasks_measured": 30,
        "consistent_tasks": 17,
        "rounds": 5,
        "attribution": [{"task_id": f"t{i}", "cause": "route", "p_value": 0.2} for i in range(11)]
        + [{"task_id": "m1", "cause": "model", "p_value": None}, {"task_id": "m2", "cause": "model"}],
    }
    f = finding(report)
    assert (
        "Of them, 11 follow your route (key, base URL or parameters), none beyond chance "
        "(p ≤ 0.05, unadjusted); " in f.sentence
    )
    assert f.sentence.endswith("2 vary within one route (the model).")
    assert {b.label: b.tasks for b in f.bars} == {
        "consistent": 17,
        "route, not beyond chance": 11,
        "model": 2,
    }


def test_a_model_task_is_an_observation_not_a_failed_test() -> None:
    # a `model` task carries the q-value of the route factor that did not explain it
    items = [{"task_id": "r", "cause": "route", "q_value": 0.01, "passes": True}] + [
        {"task_id": f"m{i}", "cause": "model", "p_value": 0.4, "q_value": 0.6, "passes": False}
        for i in range(3)
    ]
    f = finding({"tasks_measured": 10, "consistent_tasks": 6, "rounds": 10, "attribution": items})
    assert f.sentence.endswith(
        "Of them, 1 follows your route (key, base URL or parameters), beyond chance (q ≤ 0.05 after FDR); "
        "3 vary within one route (the model)."
    )
    assert [(b.label, b.kind) for b in f.bars] == [
        ("consistent", "consistent"),
        ("route, q ≤ 0.05", "passing"),
        ("model", "untested"),
    ]


def test_the_analysis_own_passes_flag_wins() -> None:
    items = [{"task_id": "a", "cause": "route", "q_value": 0.04, "passes": False}]
    f = finding({"tasks_measured": 2, "consistent_tasks": 1, "rounds": 8, "attribution": items})
    assert (
        "1 follows your route (key, base URL or parameters), not beyond chance (q ≤ 0.05 after FDR)"
        in f.sentence
    )


def test_q_values_are_preferred_and_an_unknown_cause_is_still_counted() -> None:
    report = {
        "tasks_measured": 10,
        "consistent_tasks": 6,
        "rounds": 5,
        "attribution": [
            {"task_id": "a", "cause": "route", "p_value": 0.01, "q_value": 0.03},
            {"task_id": "b", "cause": "route", "p_value": 0.02, "q_value": 0.08},
            {"task_id": "c", "cause": "both", "p_value": None},
            {"task_id": "d", "cause": "novel", "p_value": None},
        ],
    }
    f = finding(report)
    assert (
        "Of them, 2 follow your route (key, base URL or parameters), 1 beyond chance (q ≤ 0.05 after FDR)"
        in f.sentence
    )
    assert "1 varies with the route and within it" in f.sentence
    assert "1 read as novel" in f.sentence
    assert [(b.label, b.tasks) for b in f.bars] == [
        ("consistent", 6),
        ("route, q ≤ 0.05", 1),
        ("route, not beyond chance", 1),
        ("both", 1),
        ("novel", 1),
    ]


def test_agent_log_states_the_tool_call_finding() -> None:
    f = finding(_report("E_agent_tools.altk_runs.json"))
    assert f.sentence.startswith("All 6 tasks give one answer across 8 rounds.")
    assert (
        f.tool_calls == "Tool calls differ in 3 of 6 tasks: 50.0 % (95 % CI 18.8–81.2), first at tool call 2."
    )
    # every answer agrees: the chart is the tool calls', not a bar of six consistent answers
    (chart,) = f.charts()
    assert chart.title == "Agent tasks, by the tool calls of their rounds"
    assert [(b.label, b.tasks) for b in chart.bars] == [("same tool calls", 3), ("tool calls differ", 3)]


def test_the_answers_bar_stays_when_answers_vary_and_both_bars_when_calls_vary_too() -> None:
    calls = {"tasks_measured": 4, "identical": 1, "divergence_histogram": {"1": 3, "none": 1}}
    report = {"tasks_measured": 4, "consistent_tasks": 2, "rounds": 3, "trajectories": calls}
    titles = [c.title for c in finding(report).charts()]
    assert titles == [
        "Measured tasks, by what their answers did",
        "Agent tasks, by the tool calls of their rounds",
    ]
    same_calls = {**calls, "identical": 4, "divergence_histogram": {"none": 4}}
    (only,) = finding({**report, "trajectories": same_calls}).charts()
    assert only.title == "Measured tasks, by what their answers did"
    assert [c.title for c in finding({**report, "trajectories": None}).charts()] == [only.title]


def test_nothing_measured() -> None:
    assert finding({"tasks_measured": 0}).sentence == "No task has two answers to compare."


def test_a_value_at_the_threshold_passes_as_the_analysis_rule_does() -> None:
    # the analysis passes a call at q <= 0.05 (stats.reaches); the sentence says the same rule
    items = [
        {"task_id": "a", "cause": "route", "q_value": 0.05},
        {"task_id": "b", "cause": "route", "q_value": 0.0501},
    ]
    f = finding({"tasks_measured": 4, "consistent_tasks": 2, "rounds": 10, "attribution": items})
    assert (
        "2 follow your route (key, base URL or parameters), 1 beyond chance (q ≤ 0.05 after FDR)"
        in f.sentence
    )
