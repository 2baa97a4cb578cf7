"""The token ledger's 95 % ratio interval keeps its coverage with few prompts whose billing factors
spread widely (lognormal sigma 0.8, prompts of 50 to 2,000 tokens), where the jackknife interval it
replaced covered about 90 % and called an honest route `underbilled` one time in 14 (these tests
fail on it). The full table of regimes, with those still short of 95 %, is scripts/bench_audit.py's
(`--ledger-only`) in BENCHMARKS.md."""

from __future__ import annotations

import numpy as np

from analyzer.audit.ledger import OVERBILLED, UNDERBILLED, sum_ratio

DRAWS = 2000


def _route(rng: np.random.Generator, prompts: int, sigma: float, mean: float) -> tuple[np.ndarray, ...]:
    """Reported and counted tokens, one result per prompt, of a route whose ratio of sums over
    prompts from this source is `mean` (each prompt's factor lognormal with mean 1, times `mean`)."""
    counted = rng.integers(5, 200, size=prompts).astype(np.float64) * 10
    factor = np.exp(rng.normal(0, sigma, size=prompts) - sigma**2 / 2)
    return counted * mean * factor, counted, np.arange(prompts)


def test_interval_covers_95_percent_with_five_widely_spread_prompts() -> None:
    rng = np.random.default_rng(43)
    hits = 0
    for _ in range(DRAWS):
        interval = sum_ratio(*_route(rng, 5, 0.8, 1.1)).interval
        assert interval is not None
        hits += interval[0] <= 1.1 <= interval[1]
    assert hits / DRAWS >= 0.95, f"coverage {hits / DRAWS:.3f}"


def test_an_honest_route_is_rarely_called_over_or_underbilled() -> None:
    """At a true ratio of 1.0 each false verdict stays within 2.5 % (four prompts, sigma 0.8)."""
    rng = np.random.default_rng(44)
    verdicts = [sum_ratio(*_route(rng, 4, 0.8, 1.0)).verdict for _ in range(DRAWS)]
    assert verdicts.count(OVERBILLED) / DRAWS <= 0.025
    assert verdicts.count(UNDERBILLED) / DRAWS <= 0.025


def test_interval_never_reaches_below_zero_and_holds_the_ratio() -> None:
    rng = np.random.default_rng(45)
    for prompts in (2, 3, 25):
        ratio = sum_ratio(*_route(rng, prompts, 0.8, 1.0))
        assert ratio.interval is not None and ratio.ratio is not None
        assert 0 < ratio.interval[0] <= ratio.ratio <= ratio.interval[1]
    nothing = sum_ratio(np.zeros(3), np.full(3, 100.0), np.arange(3))
    assert nothing.ratio == 0 and nothing.interval == (0.0, 0.0)
