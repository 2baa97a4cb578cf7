"""The trend's interval and the gate's band keep their stated 95 % by simulation."""

from __future__ import annotations

import numpy as np

from analyzer.history.render import trend_phrase
from analyzer.history.trend import band, trend


def test_the_slope_interval_covers_the_true_slope_at_least_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(7)
    trials, covered = 600, 0
    for i in range(trials):
        runs = (5, 8, 20)[i % 3]
        noise = rng.standard_t(3, size=runs) if i % 2 else rng.normal(size=runs)  # heavy tails too
        values = 0.7 * np.arange(runs) + 3.0 * noise
        t = trend(values.tolist())
        assert t.low is not None and t.high is not None
        covered += t.low <= 0.7 <= t.high
    assert covered / trials >= 0.95 - 2.33 * np.sqrt(0.95 * 0.05 / trials)


def test_the_slope_is_the_figure_s_change_per_run() -> None:
    t = trend([10.0, 12.0, None, 16.0, 18.0, 20.0])
    assert t.slope == 2.0 and t.runs == 5
    assert trend([1.0, 2.0, 3.0]).slope is None  # fewer than five runs: no trend


def test_a_new_run_of_the_same_figure_falls_above_the_band_at_most_2_5_percent_of_the_time() -> None:
    rng = np.random.default_rng(11)
    trials, above = 4000, 0
    for i in range(trials):
        earlier = rng.normal(20, 4, size=3 + i % 10)
        bounds = band(earlier.tolist())
        assert bounds is not None
        above += rng.normal(20, 4) > bounds[1]
    assert above / trials <= 0.025 + 2.33 * np.sqrt(0.025 * 0.975 / trials)


def test_a_figure_no_log_records_reads_not_recorded_never_zero() -> None:
    assert trend_phrase(trend([None] * 8)) == "not recorded by these logs"
    assert trend_phrase(trend([1.0, None, 2.0])) == "too few runs for a trend (5 needed)"
