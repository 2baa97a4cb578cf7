"""Token figures: unknown stays unknown, per task and per round sums, outliers, retry tokens."""

from __future__ import annotations

from typing import Any

import pytest

from analyzer.analysis import analyze
from analyzer.log.model import RunLog
from analyzer.metrics.tokens import token_outliers


def _log(*rounds: list[dict[str, Any]]) -> RunLog:
    return RunLog.model_validate({"format": "altk-runs/2", "runs": list(rounds)})


def _r(task_id: str | int, tokens: int | None, attempts: int = 1, **extra: Any) -> dict[str, Any]:
    tries = [{"attempt": i, "outcome": "rate_limited" if i < attempts - 1 else "ok"} for i in range(attempts)]
    return {"task_id": task_id, "answer": "x", "total_tokens": tokens, "attempts": tries, **extra}


def test_unknown_tokens_are_not_counted_as_zero() -> None:
    # task a: 100, unknown, 300 -> sum 400, mean over the 2 known = 200 (not 400 / 3 = 133.3)
    a = analyze(_log([_r("a", 100)], [_r("a", None)], [_r("a", 300)]))
    task = a.tasks.iloc[0]
    assert task["tokens_total"] == 400
    assert task["tokens_mean"] == 200.0
    assert task["tokens_unknown"] == 1
    # sample standard deviation of 100, 300 = sqrt(((-100)^2 + 100^2) / 1) = 141.42
    assert task["tokens_std"] == pytest.approx(141.4214, abs=1e-4)
    t = a.headline.tokens
    assert (t.total, t.known_results, t.unknown_results) == (400, 2, 1)
    assert t.per_round_total == {1: 100, 2: None, 3: 300}


def test_a_log_without_any_token_counts_has_unknown_totals() -> None:
    a = analyze(_log([_r(1, None)], [_r(1, None)]))
    assert a.headline.tokens.total is None
    assert a.headline.tokens.per_task_mean is None
    assert a.tasks["tokens_total"].isna().all()
    assert a.report()["tokens"]["total"] is None


def test_total_falls_back_to_prompt_plus_completion() -> None:
    row = {"task_id": 1, "answer": "x", "prompt_tokens": 30, "completion_tokens": 12}
    assert analyze(_log([row])).headline.tokens.total == 42


def test_per_task_mean_is_a_tasks_cost_over_its_runs() -> None:
    # a: 10 + 20 = 30, b: 50 + 50 = 100 -> per task mean (30 + 100) / 2 = 65; per result 130 / 4 = 32.5
    t = analyze(_log([_r("a", 10), _r("b", 50)], [_r("b", 50), _r("a", 20)])).headline.tokens
    assert t.total == 130
    assert t.per_task_mean == 65.0
    assert t.per_result_mean == 32.5
    assert t.per_round_total == {1: 60, 2: 70}


def test_outliers_are_judged_against_the_tasks_own_runs() -> None:
    # a: 100, 102, 98, 100, 1000. median 100, MAD = median(|0|,2,2,0,900) = 2 -> 1.4826 x 2 = 2.97,
    #    floored at 10% of the median = 10; z(1000) = 900 / 10 = 90 > 3.5 -> outlier (high)
    # b: 1000, 1100, 1200, 1000, 1100 -> median 1100, MAD 100 -> s = 148.3; max z = 100/148.3 -> none
    # c: 5, 500 -> only 2 known runs, not judged
    rounds = [
        [_r("a", a), _r("b", b), _r("c", c)]
        for a, b, c in [
            (100, 1000, 5),
            (102, 1100, 500),
            (98, 1200, None),
            (100, 1000, None),
            (1000, 1100, None),
        ]
    ]
    a = analyze(_log(*rounds))
    out = a.token_outliers
    assert out[["task_id", "round", "total_tokens", "direction"]].values.tolist() == [["a", 5, 1000, "high"]]
    assert out.loc[0, "robust_z"] == pytest.approx(90.0)
    assert a.headline.tokens.outliers == 1


def test_near_identical_runs_do_not_flag_a_few_tokens() -> None:
    # MAD = 0; spread floor 10% of 100 = 10; 104 is 0.4 spreads away
    rounds = [[_r("a", t)] for t in (100, 100, 100, 104)]
    assert token_outliers(analyze(_log(*rounds)).results).empty


def test_tokens_of_results_that_needed_a_retry() -> None:
    # two results retried (2 and 3 attempts): 40 + 60 = 100 retry tokens of 150
    t = analyze(_log([_r(1, 40, attempts=2), _r(2, 50)], [_r(1, 60, attempts=3), _r(2, None, attempts=2)]))
    assert t.headline.tokens.retry_tokens == 100
    assert t.headline.tokens.total == 150


def test_per_round_frame() -> None:
    rounds = analyze(_log([_r(1, 10), _r(2, None)], [_r(1, 30), _r(2, 5)])).per_round
    assert rounds["round"].tolist() == [1, 2]
    assert rounds["tokens_total"].tolist() == [10, 35]
    assert rounds["tokens_unknown"].tolist() == [1, 0]
