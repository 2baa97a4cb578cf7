"""The statistics module, each figure checked against a value worked out by hand (or by brute force)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from analyzer.metrics.stats import (
    alignment_statistic,
    association_p,
    benjamini_hochberg,
    bootstrap_means,
    chance_agreement,
    contingency,
    mcnemar_exact,
    mcnemar_tasks_needed,
    paired_difference_ci,
    rounds_needed,
    route_alignment_p,
)


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (0, 0, 1.0),  # no discordant task: no evidence either way
        (0, 5, 2 / 32),  # 2 x P(X <= 0), X ~ Bin(5, 1/2) = 2 x 1/32
        (5, 0, 2 / 32),  # symmetric
        (1, 8, 2 * (1 + 9) / 512),  # 2 x (C(9,0) + C(9,1)) / 2^9 = 0.0390625
        (2, 3, 1.0),  # 2 x (1 + 5 + 10) / 32 = 1 (capped)
        (3, 10, 2 * (1 + 13 + 78 + 286) / 8192),  # 0.09228515625
    ],
)
def test_mcnemar_exact_by_hand(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(expected)


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_contingency_and_statistic() -> None:
    table = contingency(list("AAABB"), list("xxyyy"))
    assert table == [[2, 1], [0, 2]]
    assert alignment_statistic(table) == 4  # 2 rounds of A give its usual x, both B rounds give y


def test_permutation_p_by_hand() -> None:
    # keys alternate over 5 rounds, each key always gives its own answer: of the C(5,2) = 10 ways to
    # place the two y's, only the observed one is this pure -> p = 1/10
    assert route_alignment_p(list("ABABA"), list("xyxyx")) == pytest.approx(0.1)
    # 10 rounds, 5 per key: 2 pure arrangements (x on A or x on B) of C(10,5) = 252
    assert route_alignment_p(list("ABABABABAB"), list("xyxyxyxyxy")) == pytest.approx(2 / 252)
    # one round per route: every arrangement is pure, the test cannot tell
    assert route_alignment_p(list("ABCDE"), list("xyxyx")) == 1.0
    # one route: nothing to align with
    assert route_alignment_p(list("AAAA"), list("xyxy")) == 1.0


def _brute_force_p(routes: str, answers: str) -> float:
    observed = alignment_statistic(contingency(list(routes), list(answers)))
    arrangements = set(itertools.permutations(answers))
    hits = sum(alignment_statistic(contingency(list(routes), list(a))) >= observed for a in arrangements)
    return hits / len(arrangements)


@pytest.mark.parametrize(
    ("routes", "answers"),
    [("AAABB", "xxyyy"), ("AABBC", "xxyyz"), ("AAABBBC", "xxyyyzx"), ("ABABAB", "xxyxyy"), ("AABB", "xyxy")],
)
def test_permutation_p_equals_enumerating_every_relabelling(routes: str, answers: str) -> None:
    assert route_alignment_p(list(routes), list(answers)) == pytest.approx(_brute_force_p(routes, answers))


def test_chance_agreement_by_hand() -> None:
    # parent answered x 3 times, y twice; Jeffreys posterior Dirichlet(3.5, 2.5), A = 6, K = 5:
    # E[p_x^5] = 3.5*4.5*5.5*6.5*7.5 / (6*7*8*9*10) = 4222.96875 / 30240
    # E[p_y^5] = 2.5*3.5*4.5*5.5*6.5 / 30240      = 1407.65625 / 30240   -> sum 0.186198
    assert chance_agreement([3, 2], 5) == pytest.approx(5630.625 / 30240)
    # K = 2: E[p_x^2] + E[p_y^2] = (3.5*4.5 + 2.5*3.5) / (6*7) = 24.5 / 42
    assert chance_agreement([3, 2], 2) == pytest.approx(24.5 / 42)
    assert chance_agreement([5], 5) == 1.0  # one answer seen: agreement says nothing
    assert chance_agreement([3, 0, 2], 5) == chance_agreement([3, 2], 5)  # zeros are not answers
    # more rounds make chance agreement less likely; a lopsided parent makes it more likely
    assert chance_agreement([3, 2], 10) < chance_agreement([3, 2], 5) < chance_agreement([4, 1], 5)
    # the posterior predictive is more cautious than plugging in the shares 0.6^5 + 0.4^5 = 0.08800
    assert chance_agreement([3, 2], 5) > 0.6**5 + 0.4**5


def test_rounds_needed_by_hand() -> None:
    # keys alternate and split x/y; k pinned rounds give x (the majority) on a route of their own:
    # answers x: 3 + k, y: 2; the only pure arrangement puts y on key B (or, for k = 2, on the pinned
    # route too): k = 1 -> 1/C(6,2) = 0.067; k = 2 -> 2/C(7,2) = 0.095; k = 3 -> 1/C(8,2) = 0.036
    routes, answers = list("ABABA"), list("xyxyx")
    assert route_alignment_p([*routes, "P"], [*answers, "x"]) == pytest.approx(1 / 15)
    assert route_alignment_p([*routes, "P", "P"], [*answers, "x", "x"]) == pytest.approx(2 / 21)
    assert rounds_needed(routes, answers) == 3
    # one round per route: 2 of the 5 singletons take the y's in C(5,2) = 10 pure arrangements;
    # k = 15 -> 10/C(20,2) = 0.0526, k = 16 -> 10/C(21,2) = 0.0476
    assert rounds_needed(list("ABCDE"), answers) == 16
    assert rounds_needed([None] * 5, answers) == 16  # no route recorded: each round its own route
    assert rounds_needed(list("ABCDE"), answers, cap=15) is None
    assert rounds_needed(routes, list("xxxxx")) is None  # one answer: nothing to explain


def test_bootstrap_is_reproducible_and_brackets_the_mean() -> None:
    rng = np.random.default_rng(1)
    values = (rng.random(200) < 0.3).astype(float)
    first = bootstrap_means(values)
    assert np.array_equal(first, bootstrap_means(values))  # same seed, same interval
    spread = rng.normal(size=50)  # continuous values: another seed moves the interval's ends
    assert not np.array_equal(bootstrap_means(spread), bootstrap_means(spread, seed=7))
    low, high = first[0]
    assert low < values.mean() < high
    # a binomial share of 0.3 over 200 tasks has sd 0.0324: the 95 % interval is about +-0.064
    assert high - low == pytest.approx(
        2 * 1.96 * math.sqrt(values.mean() * (1 - values.mean()) / 200), rel=0.15
    )


def test_bootstrap_shapes_and_edges() -> None:
    both = bootstrap_means(np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 0.5]]))
    assert both.shape == (2, 2)
    assert both[0].tolist() == [1.0, 1.0]  # a constant column has no spread
    assert np.isnan(bootstrap_means(np.array([]))).all()


def test_paired_difference_interval() -> None:
    first = np.array([1.0] * 10 + [0.0] * 10)
    second = np.array([0.0] * 10 + [0.0] * 10)
    low, high = paired_difference_ci(first, second)
    assert low < -0.5 < high < 0  # mean difference -0.5, clearly below zero


def test_mcnemar_tasks_needed_by_hand() -> None:
    # every discordant task flips one way (pi = 1): the exact test needs 6 of them (2 / 2^5 = 0.0625,
    # 2 / 2^6 = 0.031), so N is the smallest with P(Binomial(N, p_d) >= 6) >= 0.8. With p_d = 0.5:
    # N = 14 gives 1 - 3473 / 16384 = 0.788, N = 15 gives 1 - 4944 / 32768 = 0.849
    assert mcnemar_tasks_needed(0, 5, 10) == 15
    assert mcnemar_tasks_needed(0, 6, 6) == 6  # every task discordant: 6 tasks, 6 flips
    assert mcnemar_tasks_needed(3, 3, 30) is None  # no difference to resolve


@pytest.mark.parametrize(("b", "c", "n"), [(0, 5, 10), (1, 10, 30), (2, 9, 40), (0, 3, 20)])
def test_mcnemar_tasks_needed_reaches_its_power_by_simulation(b: int, c: int, n: int) -> None:
    """At the N it names, 80 % of simulated experiments with the observed flip rates reach p <= 0.05
    by the exact test; at N - 1 fewer do (the smallest such N)."""
    need = mcnemar_tasks_needed(b, c, n)
    assert need is not None
    rng = np.random.default_rng(5)
    p_d, pi = (b + c) / n, max(b, c) / (b + c)

    def simulated_power(tasks: int, reps: int = 4000) -> float:
        d = rng.binomial(tasks, p_d, size=reps)
        big = rng.binomial(d, pi)
        return float(
            np.mean([mcnemar_exact(int(x), int(y - x)) <= 0.05 for x, y in zip(big, d, strict=True)])
        )

    se = math.sqrt(0.8 * 0.2 / 4000)
    assert simulated_power(need) >= 0.8 - 3 * se
    assert simulated_power(need - 1) <= 0.8 + 3 * se


def test_benjamini_hochberg_by_hand() -> None:
    # sorted p 0.01, 0.02, 0.03, 0.5 (m = 4): p m / rank = 0.04, 0.04, 0.04, 0.5, then the running
    # minimum from the top; returned in the input order
    assert benjamini_hochberg([0.5, 0.01, 0.03, 0.02]) == pytest.approx([0.5, 0.04, 0.04, 0.04])
    assert benjamini_hochberg([0.2, 0.01]) == pytest.approx([0.2, 0.02])
    assert benjamini_hochberg([]) == []


def _brute_association_p(routes: str, answers: str) -> float:
    def t(a: tuple[str, ...]) -> float:
        cells = Counter(zip(routes, a, strict=True))
        return sum(v * math.log(v) for v in cells.values())

    arrangements = set(itertools.permutations(answers))
    observed = t(tuple(answers))
    return sum(t(a) >= observed - 1e-9 for a in arrangements) / len(arrangements)


@pytest.mark.parametrize(
    ("routes", "answers"),
    [
        ("ABABAB", "xyxyxy"),
        ("AABBB", "xyyyy"),
        ("AAABBB", "xxyxyy"),
        ("ABCABC", "xxyzzz"),
        ("AAAAB", "xyxyx"),
    ],
)
def test_association_p_matches_every_relabelling(routes: str, answers: str) -> None:
    assert association_p(list(routes), list(answers)) == pytest.approx(_brute_association_p(routes, answers))


def test_association_p_keeps_its_level_under_the_null() -> None:
    """Under "the route does not matter" P(p <= a) <= a for every a: exact over every relabelling."""
    routes, answers = list("AAABBBCC"), "xxxxyyzz"
    ps = [association_p(routes, list(a)) for a in set(itertools.permutations(answers))]
    for level in (0.01, 0.05, 0.1, 0.2):
        assert np.mean(np.array(ps) <= level) <= level + 1e-12


def test_large_tables_stay_fast_and_agree_with_the_estimate() -> None:
    # 60 rounds over 6 routes, 6 answers, each route its own answer: counted directly (not enumerated)
    routes = [r for r in "ABCDEF" for _ in range(10)]
    answers = [a for a in "uvwxyz" for _ in range(10)]
    # 6! pure relabellings of 60! / (10!)^6
    expected = math.factorial(6) / (math.factorial(60) / math.factorial(10) ** 6)
    assert route_alignment_p(routes, answers) == pytest.approx(expected)
    # a table too large to enumerate falls back to a seeded estimate: the same 60 rounds with two
    # stray answers; the estimate is (1 + hits) / (1 + draws), so never 0, and the same every time
    stray = [*answers]
    stray[0], stray[10] = "z", "y"
    p = route_alignment_p(routes, stray)
    assert 0 < p < 0.001 and p == route_alignment_p(routes, stray)


def test_paired_difference_of_shares_uses_the_newcombe_interval_by_hand() -> None:
    # 30 tasks: 6 inconsistent in the first group, 4 of those 6 still inconsistent in the second.
    # p1 = 0.2 (Wilson 0.095051 to 0.373057), p2 = 0.133333 (Wilson 0.053097 to 0.296813),
    # phi = (4 x 24 - 2 x 0) / sqrt(6 x 24 x 4 x 26) = 0.784465, D = -0.066667;
    # low = D - sqrt(0.080237^2 - 2 phi 0.080237 x 0.173057 + 0.173057^2) = D - 0.120836 = -0.187503,
    # high = D + sqrt(0.163480^2 - 2 phi 0.163480 x 0.104949 + 0.104949^2) = D + 0.104028 = 0.037361.
    # The bootstrap stops at 0 (no task goes the other way), though McNemar's p is 0.5.
    first = np.array([100.0] * 6 + [0.0] * 24)
    second = np.array([100.0] * 4 + [0.0] * 26)
    assert paired_difference_ci(first, second)[1] == 0.0
    low, high = paired_difference_ci(first, second, upper=100.0)
    assert (low, high) == pytest.approx((-18.7503, 3.7361), abs=1e-3)
    assert mcnemar_exact(2, 0) == 0.5  # the interval now agrees: 0 is inside


def test_paired_difference_without_any_change_is_not_a_point() -> None:
    # 6 tasks consistent in both groups: no correlation to use (no spread), so +- Wilson 0 of 6,
    # z^2 / (6 + z^2) = 3.841459 / 9.841459 = 0.390334
    same = np.zeros(6)
    assert paired_difference_ci(same, same) == (0.0, 0.0)  # the bootstrap alone: a false certainty
    assert paired_difference_ci(same, same, upper=100.0) == pytest.approx((-39.0334, 39.0334), abs=1e-3)


def test_exact_share_interval_by_hand() -> None:
    from analyzer.metrics.stats import exact_share_interval

    # 0 of 5: high = 1 - 0.025^(1/5); 5 of 5 mirrors it
    assert exact_share_interval(0, 5) == pytest.approx((0.0, 1 - 0.025 ** (1 / 5)))
    assert exact_share_interval(5, 5) == pytest.approx((0.025 ** (1 / 5), 1.0))
    # 1 of 2: low solves 1 - (1 - p)^2 = 0.025, high solves 1 - p^2 = 0.025
    assert exact_share_interval(1, 2) == pytest.approx((1 - math.sqrt(0.975), math.sqrt(0.975)))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 10, 15, 20, 30, 50])
def test_exact_share_interval_keeps_its_coverage_at_every_share(n: int) -> None:
    """Exact coverage: sum over k of P(Binomial(n, p) = k) [low_k <= p <= high_k] >= 0.95, over a
    grid of true shares that reaches into the corners (where the Wilson interval fell to 84 %)."""
    from analyzer.metrics.stats import exact_share_interval

    bounds = [exact_share_interval(k, n) for k in range(n + 1)]
    shares = np.concatenate([np.linspace(0.0005, 0.9995, 400), [0.001, 0.01, 0.02, 0.98, 0.99, 0.999]])
    for p in shares:
        pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
        covered = sum(w for w, (lo, hi) in zip(pmf, bounds, strict=True) if lo <= p <= hi)
        assert covered >= 0.95 - 1e-9, (n, p, covered)
