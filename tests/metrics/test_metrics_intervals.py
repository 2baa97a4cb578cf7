"""Headline intervals never state a certainty the tasks do not support (hand-computed cases).

Shares of tasks get the exact (Clopper-Pearson) interval:
- 0 of 5: the upper end solves (1 - p)^5 = 0.025: 1 - 0.025^(1/5) = 0.521824;
- 1 of 2: the ends solve 1 - (1 - p)^2 = 0.025 and 1 - p^2 = 0.025: 1 - sqrt(0.975) = 0.012579 and
  sqrt(0.975) = 0.987421;
- 0 of 2: 1 - sqrt(0.025) = 0.841886.

Other means keep the Wilson interval of the mean as a floor. Wilson 95 %, z = 1.959964, z^2 = 3.841459:
- 0 of 5: the upper end is z^2 / (5 + z^2) = 3.841459 / 8.841459 = 0.434482; the lower end is 0.
- 1 of 2: centre (0.5 + z^2 / 4) / (1 + z^2 / 2) = 0.5, half-width
  z sqrt(0.5 x 0.5 / 2 + z^2 / 16) / (1 + z^2 / 2) = 1.959964 x 0.604228 / 2.920729 = 0.405468,
  so 0.094532 to 0.905468.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzer.cli import main
from analyzer.metrics.intervals import answer_intervals, outcome_intervals
from analyzer.metrics.outcome import outcome_figures
from analyzer.metrics.stats import bootstrap_grouped_means, bounded_mean_intervals, wilson_interval

TAU = (
    Path(__file__).resolve().parents[1] / "fixtures" / "foreign" / "tau_bench" / "gpt-4o-airline.excerpt.json"
)
ZERO_OF_FIVE_HIGH = 0.434482
"""Wilson 0 of 5."""
ONE_OF_TWO = (0.094532, 0.905468)
"""Wilson 1 of 2 (the Wilson interval of a mean of 0.5 over 2 tasks)."""
EXACT_ZERO_OF_FIVE_HIGH = 0.521824
EXACT_ONE_OF_TWO = (0.012579, 0.987421)
EXACT_ZERO_OF_TWO_HIGH = 0.841886


def _tasks(consistent: list[bool | None]) -> pd.DataFrame:
    return pd.DataFrame({"consistent": pd.array(consistent, dtype="boolean")})


def _results(successes_per_task: list[list[bool]]) -> pd.DataFrame:
    rows = [(f"t{i}", ok) for i, runs in enumerate(successes_per_task) for ok in runs]
    return pd.DataFrame(
        {
            "task_id": [t for t, _ in rows],
            "status": ["ok"] * len(rows),
            "passed": pd.array([ok for _, ok in rows], dtype="boolean"),
        }
    )


def test_wilson_by_hand() -> None:
    assert wilson_interval(0, 5) == (0.0, pytest.approx(ZERO_OF_FIVE_HIGH, abs=1e-6))
    assert wilson_interval(5, 5) == (pytest.approx(1 - ZERO_OF_FIVE_HIGH, abs=1e-6), 1.0)
    assert wilson_interval(1, 2) == pytest.approx(ONE_OF_TWO, abs=1e-6)
    assert all(np.isnan(wilson_interval(0, 0)))


def test_none_of_five_consistent_is_not_a_point() -> None:
    gap, rate = answer_intervals(_tasks([False] * 5 + [None]))  # the task with one answer is not measured
    assert gap == pytest.approx([100 * (1 - EXACT_ZERO_OF_FIVE_HIGH), 100.0], abs=1e-4)  # 47.8 to 100.0 pp
    assert rate == pytest.approx([0.0, EXACT_ZERO_OF_FIVE_HIGH], abs=1e-6)


def test_one_of_two_consistent() -> None:
    gap, rate = answer_intervals(_tasks([True, False]))
    assert rate == pytest.approx(list(EXACT_ONE_OF_TWO), abs=1e-6)
    assert gap == pytest.approx([100 * EXACT_ONE_OF_TWO[0], 100 * EXACT_ONE_OF_TWO[1]], abs=1e-4)
    assert answer_intervals(_tasks([None, None])) == (None, None)


def test_all_runs_pass_on_five_tasks_is_not_certain() -> None:
    results = _results([[True] * 3] * 5)
    o = outcome_intervals(results, outcome_figures(results))
    assert o is not None
    assert (o.mean_at_n, o.pass_hat_k[3], o.outcome_gap_pp) == (1.0, 1.0, 0.0)
    assert o.mean_at_n_ci == pytest.approx([1 - EXACT_ZERO_OF_FIVE_HIGH, 1.0], abs=1e-6)
    assert o.pass_hat_k_ci == pytest.approx([1 - EXACT_ZERO_OF_FIVE_HIGH, 1.0], abs=1e-6)
    # a task's gap is 0 when all 3 runs pass, else c/3 <= 2/3: the exact 0 of 5 scaled by 200/3 points
    assert o.outcome_gap_ci == pytest.approx([0.0, EXACT_ZERO_OF_FIVE_HIGH * 200 / 3], abs=1e-4)  # 0 to 34.8


def test_uniform_fractional_tasks_get_the_wilson_interval_of_the_mean_and_shares_the_exact_one() -> None:
    # two tasks, each 1 of 2 runs passes: every task has Mean@n 0.5, so the bootstrap has no spread;
    # Mean@n gets Wilson of 0.5 over 2 tasks, Pass^2 (a share) the exact 0 of 2, and the gap (50 pp
    # per task, the most a task of 2 runs can have, so a share too) the exact 2 of 2 scaled by 50 pp
    results = _results([[True, False]] * 2)
    o = outcome_intervals(results, outcome_figures(results))
    assert o is not None
    assert (o.mean_at_n, o.pass_hat_k[2], o.outcome_gap_pp) == (0.5, 0.0, 50.0)
    assert o.mean_at_n_ci == pytest.approx(list(ONE_OF_TWO), abs=1e-6)
    assert o.pass_hat_k_ci == pytest.approx([0.0, EXACT_ZERO_OF_TWO_HIGH], abs=1e-6)
    assert o.outcome_gap_ci == pytest.approx([50 * (1 - EXACT_ZERO_OF_TWO_HIGH), 50.0], abs=1e-4)  # 7.9 to 50


def test_a_wider_bootstrap_is_kept() -> None:
    # tasks worth 0, 0.5 and 1: a resample is all the 0 task (or all the 1 task) with chance
    # 1/27 = 3.7 % > 2.5 %, so the bootstrap runs 0 to 1, wider than Wilson of 0.5 over 3 tasks:
    # z sqrt(0.25 / 3 + z^2 / 36) / (1 + z^2 / 3) = 1.959964 x 0.435936 / 2.280486 = 0.374665
    rows, counts = np.array([[0.0], [0.5], [1.0]]), np.array([1, 1, 1])
    assert bootstrap_grouped_means(rows, counts)[0].tolist() == [0.0, 1.0]
    assert wilson_interval(1.5, 3) == pytest.approx((0.125335, 0.874665), abs=1e-6)
    assert bounded_mean_intervals(rows, counts)[0].tolist() == [0.0, 1.0]


def test_union_takes_the_wider_end_on_each_side() -> None:
    rng = np.random.default_rng(3)
    values = np.round(rng.random(40), 2)
    rows, counts = np.unique(values, return_counts=True)
    boot = bootstrap_grouped_means(rows[:, None], counts)[0]
    wilson = wilson_interval(float(values.sum()), len(values))
    low, high = bounded_mean_intervals(rows[:, None], counts)[0]
    assert (low, high) == pytest.approx((min(boot[0], wilson[0]), max(boot[1], wilson[1])))
    assert low < values.mean() < high
    assert np.array_equal(
        bounded_mean_intervals(rows[:, None], counts), bounded_mean_intervals(rows[:, None], counts)
    )


def test_tau_bench_report_prints_no_point_interval(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(TAU)]) == 0
    text = capsys.readouterr().out
    assert "answer gap 100.0 pp (95 % CI 47.8–100.0)" in text
    assert "100.0 to 100.0" not in text
    assert " 0.0 to 0.0" not in text
