"""One task's test of "the answers follow a route factor", tolerant of noise within a route.

For each factor that takes more than one value over the task's rounds, the test is the exact
permutation test of the likelihood-ratio statistic of the factor x answer table
(`stats.association_p`: under "this factor does not matter" every relabelling of the answers over
the rounds is equally likely). It does not need one answer per level: a level that mostly gives one
answer, or gives its answers in other shares, still counts, so a route effect with model noise on
top is seen. The task's p-value is the smallest factor p-value times the number of distinct partitions
of the rounds the varying factors make (Bonferroni within the task; two factors that split the
rounds the same way, such as a key and a base URL rotated together, are one test and are named
together). Tasks are then held to a false discovery rate (`stats.benjamini_hochberg`).

The result depends only on the pattern of levels and answers, so it is cached on that pattern:
thousands of tasks with the same shape cost one computation.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from functools import lru_cache
from typing import NamedTuple

from analyzer.metrics.stats import alignment_p_from_margins, association_p_from_margins


class FactorTest(NamedTuple):
    """What one task's rounds say about its route factors."""

    p_value: float
    """The task's p-value: the best factor's, times the distinct partitions tested (1 when none varies)."""
    factors: tuple[str, ...]
    """The factor(s) with the best p-value (several when they split the rounds alike); empty: none varies."""
    explains: bool
    """Every level of the best factor gave one answer (no noise within it)."""
    split_within_route: bool
    """Two answers differ on rounds whose factors are all alike (one route): the model varied there."""
    best_case: float
    """The task's p-value had each level of its best-placed factor given an answer of its own (times
    the partitions): the smallest a route effect could have shown. 0 when no factor varies (nothing
    of the recorded route changed, so a split is the model's)."""
    varying: int
    """Distinct partitions of the rounds made by the varying factors (the within-task correction)."""


def factor_test(
    answers: Sequence[Hashable], levels: Sequence[Sequence[Hashable]], names: Sequence[str]
) -> FactorTest:
    """The test of one task from its answered rounds (a pure function).

    Args:
        answers: The answer cluster of each round.
        levels: Per factor, the level of each round (one sequence per name).
        names: The factor names, one per sequence in `levels`.
    """
    answer_pattern = _pattern(answers)
    flat = tuple(0 for _ in answers)  # a factor with one level: no need to relabel it
    patterns = tuple(_pattern(col) if len(set(col)) > 1 else flat for col in levels)
    return _cached(answer_pattern, patterns, tuple(names))


def selection_adjusted(p_value: float, answers: Sequence[Hashable], parent_rounds: int) -> float:
    """The p-value of a test over a parent's rounds and its re-run's, given that the parent was re-run
    because it was inconsistent: p / P(S), capped at 1.

    A re-run is chosen after the parent gave two answers, so its rounds are more varied than a fresh
    sample's and a permutation test that mixes them with the re-run's overstates the evidence
    (regression to the mean looks like "the re-run changed something"). Conditioning on S, "the
    parent's rounds hold two answers or more", gives P(T >= t | S) <= P(T >= t) / P(S), where under
    relabelling P(S) = 1 - sum_a C(n_a, m) / C(n, m) (m parent rounds of n, n_a rounds of answer a).
    """
    n, m = len(answers), parent_rounds
    if m < 2 or m >= n:
        return p_value
    counts = Counter(answers).values()
    all_alike = sum(math.comb(c, m) for c in counts) / math.comb(n, m)
    chosen = 1.0 - all_alike
    return 1.0 if chosen <= 0 else min(1.0, p_value / chosen)


def _pattern(values: Sequence[Hashable]) -> tuple[int, ...]:
    """Values relabelled 0, 1, ... by first appearance (the test depends on nothing else)."""
    seen: dict[Hashable, int] = {}
    return tuple(seen.setdefault(v, len(seen)) for v in values)


@lru_cache(maxsize=65536)
def _cached(
    answers: tuple[int, ...], patterns: tuple[tuple[int, ...], ...], names: tuple[str, ...]
) -> FactorTest:
    whole = _pattern(list(zip(*patterns, strict=True))) if patterns else tuple(0 for _ in answers)
    split = _split(whole, answers)
    distinct: dict[tuple[int, ...], list[str]] = {}
    for name, pat in zip(names, patterns, strict=True):
        if len(set(pat)) > 1:
            distinct.setdefault(pat, []).append(name)
    if not distinct or len(set(answers)) < 2:
        return FactorTest(1.0, (), False, split, 0.0, 0)
    m = len(distinct)
    cols = tuple(sorted(Counter(answers).values()))
    tested = [(_pattern_p(pat, answers, cols), pat, tuple(ns)) for pat, ns in distinct.items()]
    p, pat, best = min(tested, key=lambda t: t[0])
    explains = not _split(pat, answers)
    best_case = min(1.0, min(_best_case(tuple(sorted(_sizes(q)))) for q in distinct) * m)
    return FactorTest(min(1.0, p * m), best, explains, split, best_case, m)


def _pattern_p(levels: tuple[int, ...], answers: tuple[int, ...], cols: tuple[int, ...]) -> float:
    """`stats.association_p` of two integer patterns, without building the table as lists."""
    cells = Counter(zip(levels, answers, strict=True)).values()
    rows = tuple(sorted(Counter(levels).values()))
    return association_p_from_margins(rows, cols, sum(n * math.log(n) for n in cells if n > 1))


def _split(groups: tuple[int, ...], answers: tuple[int, ...]) -> bool:
    """Whether some group's rounds gave more than one answer."""
    first: dict[int, int] = {}
    return any(first.setdefault(g, a) != a for g, a in zip(groups, answers, strict=True))


def _sizes(pattern: tuple[int, ...]) -> list[int]:
    return list(Counter(pattern).values())


@lru_cache(maxsize=4096)
def _best_case(rows: tuple[int, ...]) -> float:
    """The p-value if every level had given an answer of its own. With the margins fixed, T (and G) is
    at its largest exactly on the tables where every level keeps one answer, so the p-value is the
    share of such relabellings, which `stats.alignment_p_from_margins` counts directly."""
    return alignment_p_from_margins(rows, rows, sum(rows))
