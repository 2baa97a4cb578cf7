"""The analyze() contract that the CLI, the dashboard and the runner rely on."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest

from analyzer.analysis import Analysis, analyze
from analyzer.log.frames import RESULT_COLUMNS
from analyzer.log.model import RunLog

ROUTE = {
    "base_url": "https://a/v1",
    "key_fingerprint": "sha256:0123456789ab",
    "model": "m",
    "temperature": 0.0,
}


def _r(task_id: str | int, answer: str | None, **extra: Any) -> dict[str, Any]:
    row = {
        "task_id": task_id,
        "answer": answer,
        "prompt_tokens": 40,
        "completion_tokens": 10,
        "total_tokens": 50,
        "route": ROUTE,
        "attempts": [{"attempt": 0, "outcome": "ok", "status_code": 200}],
    }
    return row | extra


# Format 2, 3 rounds, rounds list the tasks in different orders; ids mix int and str.
# task 1: 4, 4, 4 (success each time); task "q": yes, no, yes (success, fail, success);
# task "z": errors in rounds 2 and 3.
LOG = RunLog.model_validate(
    {
        "format": "altk-runs/2",
        "run_id": "run-1",
        "label": "A: default",
        "summary": {"repeat": 3, "task_count": 3, "consistency_gap_pp": 50.0, "total_tokens": 350},
        "runs": [
            [_r(1, "4", success=True), _r("q", "yes", success=True), _r("z", "z")],
            [
                _r("q", "no", success=False),
                _r("z", None, status="error", error={"type": "Timeout"}),
                _r("1", "4", success=True),
            ],
            [
                _r("z", None, status="error", error={"type": "Timeout"}),
                _r(1, "4", success=True),
                _r("q", "yes", success=True),
            ],
        ],
    }
)


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    return analyze(LOG)


def test_headline(analysis: Analysis) -> None:
    h = analysis.headline
    assert (h.tasks, h.rounds, h.results, h.errors) == (3, 3, 9, 2)
    # measured: 1 (consistent), q (inconsistent); z has one answer -> apart. rate 1/2, gap 50
    assert (h.tasks_measured, h.tasks_single, h.consistent_tasks) == (2, 1, 1)
    assert h.answer_consistency_rate == 0.5
    assert h.answer_gap_pp == 50.0
    # outcome over graded tasks 1 (3/3) and q (2/3): Mean@3 = (1 + 2/3) / 2 = 0.8333;
    # Pass^3 = (1 + 0) / 2 = 0.5 -> gap 33.33 points
    assert h.outcome is not None
    assert h.outcome.mean_at_n == pytest.approx(5 / 6)
    assert h.outcome.pass_hat_k[3] == pytest.approx(0.5)
    assert h.outcome.outcome_gap_pp == pytest.approx(100 / 3)
    # 7 ok results x 50 tokens + 2 errors x 50 = 450 tokens; the stored 350 is wrong
    assert h.tokens.total == 450
    assert [m.field for m in h.summary_mismatches] == ["total_tokens"]
    assert h.route.pinned is True
    assert {f.task_id: f.reasons for f in h.flagged} == {"q": ["inconsistent"], "z": ["errored"]}
    assert any("errored" in w for w in h.warnings)  # the loader's structural warnings are included


def test_report_is_json_with_the_keys_the_cli_promises(analysis: Analysis) -> None:
    report = json.loads(json.dumps(analysis.report()))
    for key in (
        "tasks",
        "rounds",
        "answer_key",
        "answer_consistency_rate",
        "answer_gap_pp",
        "outcome",
        "tokens",
        "retries",
        "route",
        "summary_mismatches",
        "warnings",
        "flagged",
    ):
        assert key in report
    assert report["answer_key"] == "exact"
    assert 0 <= report["answer_consistency_rate"] <= 1
    assert set(report["outcome"]) >= {"mean_at_n", "pass_hat_k", "outcome_gap_pp"}
    assert set(report["outcome"]["pass_hat_k"]) == {"1", "2", "3"}
    assert {"total", "per_task_mean"} <= set(report["tokens"])
    assert report["route"]["pinned"] is True and report["route"]["drifted_fields"] == []
    assert report["flagged"][0] == {"task_id": "q", "reasons": ["inconsistent"]}
    assert report["run_id"] == "run-1"


def test_results_frame_is_aligned_by_task_id(analysis: Analysis) -> None:
    results = analysis.results
    assert list(results.columns[: len(RESULT_COLUMNS)]) == list(RESULT_COLUMNS)
    assert {"answer_key", "cluster", "passed", "retries"} <= set(results.columns)
    assert len(results) == 9
    q = results[results["task_id"] == "q"]
    assert q["round"].tolist() == [1, 2, 3]
    assert q["answer"].tolist() == ["yes", "no", "yes"]
    assert q["cluster"].tolist() == [0, 1, 0]
    assert str(results["total_tokens"].dtype) == "Int64"
    assert str(results["success"].dtype) == "boolean"
    assert str(results["task_id"].dtype).startswith("str")


def test_tasks_frame_in_first_appearance_order(analysis: Analysis) -> None:
    tasks = analysis.tasks
    assert tasks["task_id"].tolist() == ["1", "q", "z"]
    expected = {
        "task_id",
        "n_results",
        "n_ok",
        "n_errors",
        "n_clusters",
        "consistent",
        "majority_share",
        "entropy",
        "successes",
        "success_rate",
        "tokens_total",
        "tokens_mean",
        "tokens_std",
        "tokens_unknown",
        "retries",
        "drifted",
        "drift",
        "flagged",
        "flag_reasons",
    }
    assert expected <= set(tasks.columns)
    assert tasks["consistent"].tolist()[:2] == [True, False]
    assert pd.isna(tasks["consistent"].iloc[2])


def test_other_frames(analysis: Analysis) -> None:
    assert list(analysis.clusters.columns) == [
        "task_id",
        "cluster",
        "size",
        "share",
        "representative",
        "rounds",
        "tokens_mean",
        "successes",
    ]
    q = analysis.clusters[analysis.clusters["task_id"] == "q"]
    assert q[["representative", "rounds", "successes"]].values.tolist() == [
        ["yes", "1, 3", 2],
        ["no", "2", 0],
    ]
    assert len(analysis.routes) == 1
    assert analysis.routes.loc[0, "results"] == 9
    assert list(analysis.attempts.columns)[:4] == ["task_id", "round", "result_row", "attempt"]
    assert analysis.token_outliers.empty


def test_analysis_is_frozen(analysis: Analysis) -> None:
    with pytest.raises(AttributeError):
        analysis.key = "fuzzy"  # type: ignore[misc]


@pytest.mark.parametrize("runs", [[], [[]], [[], []]])
def test_a_log_with_no_results_still_analyses(runs: list[list[Any]]) -> None:
    a = analyze(RunLog(runs=runs))
    assert a.headline.tasks == 0
    assert a.headline.answer_consistency_rate is None
    assert a.headline.outcome is None
    assert a.tasks.empty and a.clusters.empty
    json.dumps(a.report())


def test_the_shipped_format1_sample() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "sample_runs" / "format1_plain_script.json"
    if not path.exists():
        pytest.skip("sample log not shipped yet")
    log = RunLog.model_validate_json(path.read_bytes())
    report = analyze(log).report()
    assert report["rounds"] == 5 and report["tasks"] == 12
    gap = [m for m in report["summary_mismatches"] if m["field"] == "consistency_gap_pp"]
    # the sample's script stored a wrong gap; ours is recomputed from the answers
    assert gap and gap[0]["stored"] != gap[0]["recomputed"] == report["answer_gap_pp"]


def test_frame_helpers_never_change_their_input(analysis: Analysis) -> None:
    from analyzer.metrics import consistency, flags, outcome, retries, route_drift, tokens

    results = analysis.results
    tasks = analysis.tasks
    before_results, before_tasks = results.copy(), tasks.copy()
    consistency.assign_clusters(results)
    consistency.task_consistency(results)
    consistency.cluster_table(results)
    outcome.passed(results)
    outcome.graded_counts(results)
    tokens.task_tokens(results)
    tokens.round_tokens(results)
    tokens.token_outliers(results)
    retries.task_retries(results)
    usage = route_drift.route_usage(results, analysis.attempts)
    route_drift.task_drift(results, usage)
    flags.flag_tasks(tasks)
    pd.testing.assert_frame_equal(results, before_results)
    pd.testing.assert_frame_equal(tasks, before_tasks)


def test_a_log_whose_tasks_lost_rounds_to_errors_says_how_many_and_what_that_does() -> None:

    error = {"status": "error", "error": {"type": "RateLimitError"}}
    runs = [
        [{"task_id": "a", "answer": "x"}, {"task_id": "b", "answer": "x"}],
        [{"task_id": "a", "answer": "x"}, {"task_id": "b", **error}],
        [{"task_id": "a", "answer": "x"}, {"task_id": "b", **error}],
    ]
    warnings = analyze(RunLog.model_validate({"runs": runs})).headline.warnings
    assert (
        "2 errored results took rounds from 1 task (as few as 1 answer left): their consistency is "
        "measured on fewer answers, and fewer answers agree more easily, so they look more consistent than a "
        "full run would"
    ) in warnings
