"""Outcome metrics: Mean@n, Pass^k, Pass@k and the outcome gap, checked by hand and by math.comb."""

from __future__ import annotations

from math import comb
from typing import Any

import pytest

from analyzer.analysis import analyze
from analyzer.log.model import RunLog


def _graded(per_task: dict[str, list[bool | None]], **extra: Any) -> RunLog:
    """A log where task t's round r result has success per_task[t][r] (None: the result errored)."""
    rounds = max(len(v) for v in per_task.values())
    runs: list[list[dict[str, Any]]] = [[] for _ in range(rounds)]
    for task_id, outcomes in per_task.items():
        for r, ok in enumerate(outcomes):
            if ok is None:
                runs[r].append({"task_id": task_id, "status": "error", "error": {"type": "Timeout"}})
            else:
                runs[r].append({"task_id": task_id, "answer": "yes" if ok else "no", "success": ok, **extra})
    return RunLog.model_validate({"format": "altk-runs/2", "runs": runs})


def _seq(n: int, c: int) -> list[bool | None]:
    return [True] * c + [False] * (n - c)


def test_pass_hat_k_matches_the_unbiased_estimator_with_uneven_successes() -> None:
    # n = 5 runs each; successes c = 3, 5, 1
    # Pass^1 = (3/5 + 5/5 + 1/5) / 3 = 1.8 / 3 = 0.6 (= Mean@n)
    # Pass^2 = (C(3,2)/C(5,2) + 1 + C(1,2)/C(5,2)) / 3 = (3/10 + 1 + 0) / 3 = 0.433333
    # Pass^3 = (1/10 + 1 + 0) / 3 = 0.366667
    # Pass^4 = Pass^5 = (0 + 1 + 0) / 3 = 0.333333
    # Pass@2 = mean of 1 - C(n-c,2)/C(5,2) = (1 - 1/10, 1 - 0, 1 - 6/10) / 3 = 2.3 / 3 = 0.766667
    # outcome gap = (0.6 - 0.333333) x 100 = 26.67 points
    outcome = analyze(_graded({"a": _seq(5, 3), "b": _seq(5, 5), "c": _seq(5, 1)})).headline.outcome
    assert outcome is not None
    assert outcome.mean_at_n == pytest.approx(0.6)
    assert outcome.pass_hat_k == pytest.approx({1: 0.6, 2: 1.3 / 3, 3: 1.1 / 3, 4: 1 / 3, 5: 1 / 3})
    for k in range(1, 6):
        unbiased = sum(comb(c, k) / comb(5, k) for c in (3, 5, 1)) / 3
        at_k = sum(1 - comb(5 - c, k) / comb(5, k) for c in (3, 5, 1)) / 3
        assert outcome.pass_hat_k[k] == pytest.approx(unbiased, abs=1e-12)
        assert outcome.pass_at_k[k] == pytest.approx(at_k, abs=1e-12)
    assert outcome.pass_at_k[2] == pytest.approx(2.3 / 3)
    assert outcome.outcome_gap_pp == pytest.approx(26.6667, abs=1e-4)
    assert outcome.n == 5
    assert outcome.uneven_n is False


def test_the_77_4_versus_53_0_gap() -> None:
    # 100 tasks x 5 runs: 53 tasks succeed 5/5, 28 succeed 3/5, 19 succeed 2/5.
    # Mean@5 = (53*5 + 28*3 + 19*2) / 500 = (265 + 84 + 38) / 500 = 387 / 500 = 0.774
    # Pass^5 = only 5/5 tasks count: 53 / 100 = 0.530; gap = 77.4 - 53.0 = 24.4 points
    per_task = {f"t{i}": _seq(5, 5) for i in range(53)}
    per_task |= {f"u{i}": _seq(5, 3) for i in range(28)}
    per_task |= {f"v{i}": _seq(5, 2) for i in range(19)}
    outcome = analyze(_graded(per_task)).report()["outcome"]
    assert outcome["mean_at_n"] == pytest.approx(0.774)
    assert outcome["pass_hat_k"]["5"] == pytest.approx(0.530)
    assert outcome["outcome_gap_pp"] == pytest.approx(24.4)


def test_uneven_n_uses_each_tasks_own_n_and_says_so() -> None:
    # a: 3 graded runs (2 errored), 3 successes; b: 5 runs, 4 successes. n = 5 (largest).
    # Pass^4: a uses k = min(4, 3) = 3 -> C(3,3)/C(3,3) = 1; b: C(4,4)/C(5,4) = 1/5 -> mean 0.6
    # Pass^5: a again 1; b: C(4,5) = 0 -> 0.5. Mean@n = (3/3 + 4/5) / 2 = 0.9; gap = 40 points
    a = analyze(_graded({"a": [True, True, True, None, None], "b": _seq(5, 4)}))
    outcome = a.headline.outcome
    assert outcome is not None
    assert outcome.uneven_n is True
    assert (outcome.n_min, outcome.n) == (3, 5)
    assert outcome.pass_hat_k[4] == pytest.approx(0.6)
    assert outcome.pass_hat_k[5] == pytest.approx(0.5)
    assert outcome.mean_at_n == pytest.approx(0.9)
    assert outcome.outcome_gap_pp == pytest.approx(40.0)
    assert any("different numbers of graded runs (3 to 5)" in w for w in a.headline.warnings)


def test_score_with_a_threshold_when_success_is_absent() -> None:
    runs = [
        [{"task_id": 1, "answer": "a", "score": 0.9}, {"task_id": 2, "answer": "b", "score": 0.5}],
        [{"task_id": 1, "answer": "a", "score": 0.6}, {"task_id": 2, "answer": "b", "score": 0.1}],
    ]
    log = RunLog.model_validate({"runs": runs})
    # threshold 0.5: task 1 passes 2/2, task 2 passes 1/2 (0.5 >= 0.5) -> Mean@2 = (1 + 0.5) / 2 = 0.75
    assert analyze(log).headline.outcome.mean_at_n == pytest.approx(0.75)  # type: ignore[union-attr]
    # threshold 0.7: task 1 1/2, task 2 0/2 -> 0.25; Pass^2 = 0 -> gap 25 points
    outcome = analyze(log, score_threshold=0.7).headline.outcome
    assert outcome is not None
    assert outcome.mean_at_n == pytest.approx(0.25)
    assert outcome.outcome_gap_pp == pytest.approx(25.0)


def test_success_wins_over_score() -> None:
    runs = [[{"task_id": 1, "answer": "a", "success": False, "score": 1.0}]]
    outcome = analyze(RunLog.model_validate({"runs": runs})).headline.outcome
    assert outcome is not None and outcome.mean_at_n == 0.0


def test_no_grading_means_no_outcome() -> None:
    log = RunLog.model_validate({"runs": [[{"task_id": 1, "answer": "a"}], [{"task_id": 1, "answer": "a"}]]})
    a = analyze(log)
    assert a.headline.outcome is None
    assert a.report()["outcome"] is None
    assert a.tasks["successes"].isna().all()


def test_per_task_success_rate() -> None:
    tasks = analyze(_graded({"a": _seq(4, 3), "b": [True, None, False, False]})).tasks.set_index("task_id")
    assert tasks.loc["a", "successes"] == 3
    assert tasks.loc["a", "success_rate"] == 0.75
    # the errored run of b is not graded: 1 of 3
    assert tasks.loc["b", "graded"] == 3
    assert tasks.loc["b", "success_rate"] == pytest.approx(1 / 3)
