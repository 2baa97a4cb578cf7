"""A figure's trend over the runs: the Theil-Sen slope per run with its distribution-free 95 % interval,
and the band a new run is judged against.

The slope is the median of the slopes between every pair of runs; its interval comes from Kendall's
S (Sen 1968), which holds its coverage for any continuous noise independent from run to run, with no
normality assumed. The band is the 95 % prediction interval of one more run from the earlier runs
(mean +- t x sd x sqrt(1 + 1/n)), assuming the earlier runs are independent draws of one figure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
MIN_TREND_RUNS = 5
MIN_BAND_RUNS = 3
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)  # fmt: skip
"""Student's t 97.5 % quantiles for 1..30 degrees of freedom (beyond: the normal's 1.96)."""


@dataclass(frozen=True)
class Trend:
    """Slope per run and its 95 % interval; None where fewer than `MIN_TREND_RUNS` runs record it."""

    runs: int
    slope: float | None
    low: float | None
    high: float | None

    @property
    def interval(self) -> list[float] | None:
        return [self.low, self.high] if self.low is not None and self.high is not None else None


def trend(values: list[float | None]) -> Trend:
    """Theil-Sen slope over run positions 0, 1, 2, ... of the runs that record the figure."""
    points = [(i, v) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    if len(points) < MIN_TREND_RUNS:
        return Trend(len(points), None, None, None)
    x = np.array([p[0] for p in points], dtype=np.float64)
    y = np.array([p[1] for p in points], dtype=np.float64)
    i, j = np.triu_indices(len(x), k=1)
    slopes = np.sort((y[j] - y[i]) / (x[j] - x[i]))
    n, pairs = len(x), len(slopes)
    spread = Z95 * math.sqrt(n * (n - 1) * (2 * n + 5) / 18)
    lower = max(int(math.floor((pairs - spread) / 2)) - 1, 0)
    upper = min(int(math.ceil((pairs + spread) / 2)), pairs - 1)
    return Trend(n, float(np.median(slopes)), float(slopes[lower]), float(slopes[upper]))


def t975(df: int) -> float:
    return _T975[df - 1] if df <= len(_T975) else Z95


def band(earlier: list[float | None]) -> tuple[float, float] | None:
    """The 95 % prediction interval of one more run from the earlier ones; None under `MIN_BAND_RUNS`."""
    known = [v for v in earlier if v is not None and math.isfinite(v)]
    if len(known) < MIN_BAND_RUNS:
        return None
    mean = float(np.mean(known))
    half = t975(len(known) - 1) * float(np.std(known, ddof=1)) * math.sqrt(1 + 1 / len(known))
    return mean - half, mean + half
