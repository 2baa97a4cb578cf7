"""The re-run verdict: parent and re-run tested together, route only beyond chance, the parent's
within-route split overturned only by a re-run that agrees beyond chance."""

from __future__ import annotations

import math
import random
from itertools import combinations

import pytest

from analyzer.metrics.attribution import Round, rounds_to_decide_rounds
from analyzer.metrics.stats import chance_agreement
from analyzer.verdicts.rerun_verdict import rerun_verdict


def _rounds(routes: str, answers: str) -> list[Round]:
    return [
        Round(i, route, answer, False)
        for i, (route, answer) in enumerate(zip(routes, answers, strict=True), 1)
    ]


def _t(levels: list[str], answers: list[str]) -> float:
    cells: dict[tuple[str, str], int] = {}
    for cell in zip(levels, answers, strict=True):
        cells[cell] = cells.get(cell, 0) + 1
    return sum(n * math.log(n) for n in cells.values())


def _brute_p(levels: list[str], answers: list[str]) -> float:
    """P(G >= observed) over every placement of the rarer of two answers (an independent count)."""
    rare = min(set(answers), key=answers.count)
    common = next(a for a in set(answers) if a != rare)
    k, n = answers.count(rare), len(answers)
    observed = _t(levels, answers)
    hits = 0
    for spots in combinations(range(n), k):
        placed = [rare if i in spots else common for i in range(n)]
        hits += _t(levels, placed) >= observed - 1e-9
    return hits / math.comb(n, k)


# two keys alternate; each key gives its own answer (p = 1/10 from the parent alone)
BY_KEY = _rounds("ABABA", "xyxyx")
# one key disagrees with itself
WITHIN_KEY = _rounds("ABABA", "xyyxx")


def test_route_needs_agreement_beyond_chance_with_both_partitions_counted() -> None:
    # routes A(3 x) B(2 y) P(5 x): only y on B is as extreme, 1 / C(10,2); the re-run factor (parent
    # against re-run) is a second partition: p = 2 / 45 = 0.044 -> route
    v = rerun_verdict(BY_KEY, _rounds("PPPPP", "xxxxx"))
    assert (v.verdict, v.factor) == ("route", "route")
    assert v.p_value == pytest.approx(2 / 45)
    # 5 rounds alone agree by chance (3/2 parent, Jeffreys) 0.186
    assert (
        v.chance_p == pytest.approx(chance_agreement([3, 2], 5)) and "by chance 19% of the time" in v.reason
    )


def test_too_few_agreeing_rounds_are_inconclusive_with_the_rounds_that_would_decide() -> None:
    v = rerun_verdict(BY_KEY, _rounds("PPP", "xxx"))
    assert v.verdict == "inconclusive"
    assert v.p_value == pytest.approx(2 / 28)  # 2 x 1 / C(8,2)
    assert v.rounds_needed == 5 == rounds_to_decide_rounds(BY_KEY)
    assert "5 agreeing rounds would decide" in v.reason


def test_the_parents_own_route_again_counts_as_that_route() -> None:
    # re-run on key A's route: A(8 x), B(2 y) -> 1 / C(10,2), two partitions -> 2 / 45
    v = rerun_verdict(BY_KEY, _rounds("AAAAA", "xxxxx"))
    assert v.verdict == "route" and v.p_value == pytest.approx(2 / 45)
    assert rerun_verdict(BY_KEY, _rounds("AAAA", "xxxx")).verdict == "inconclusive"  # 2 / 36 = 0.056


def test_a_pinned_rerun_that_agrees_beyond_chance_overturns_a_split_within_one_route() -> None:
    for k in (20, 30):
        rerun = _rounds("P" * k, "x" * k)
        v = rerun_verdict(WITHIN_KEY, rerun)
        routes = [r.route for r in [*WITHIN_KEY, *rerun]]
        runs = ["parent"] * 5 + ["re-run"] * k
        answers = [r.answer for r in [*WITHIN_KEY, *rerun]]
        expected = 2 * min(_brute_p(routes, answers), _brute_p(runs, answers))
        assert v.p_value == pytest.approx(expected)
        # the two y's sat in the parent: 10 of C(5 + k, 2) placements are as extreme
        assert expected == pytest.approx(2 * 10 / math.comb(5 + k, 2))
    assert rerun_verdict(WITHIN_KEY, _rounds("P" * 20, "x" * 20)).verdict == "inconclusive"  # 20 / 300
    v = rerun_verdict(WITHIN_KEY, _rounds("P" * 30, "x" * 30))  # 20 / 595 = 0.034
    assert (v.verdict, v.factor) == ("route", "route")


def test_still_disagreeing_on_the_pinned_route_is_model_and_keeps_its_chance() -> None:
    v = rerun_verdict(BY_KEY, _rounds("PPPPP", "xxyxx"))
    assert v.verdict == "model"
    assert v.chance_p == pytest.approx(chance_agreement([3, 2], 5))  # given whatever the re-run showed


def test_a_round_spilled_to_another_route_is_named_and_counts_as_that_route() -> None:
    # routes A(3 x) B(2 y) P(4 x) Q(1 y): y on B+Q or on A are as extreme -> 2 / C(10,3); two partitions
    v = rerun_verdict(BY_KEY, _rounds("PPPPQ", "xxxxy"))
    assert v.verdict == "route"
    assert v.p_value == pytest.approx(2 * 2 / 120)
    assert v.chance_p == pytest.approx(chance_agreement([3, 2], 4))  # K counts the pinned route only
    assert "1 round(s) served by another route" in v.reason


def test_without_route_evidence_in_the_parent_only_the_rerun_counts() -> None:
    # one round per route: 10 placements of the y's among 5 + k rounds keep them off P, in both
    # partitions, so p = 2 x 10 / C(5 + k, 2): k = 23 gives 0.053, k = 24 gives 0.049
    parent = _rounds("ABCDE", "xyxyx")
    v = rerun_verdict(parent, _rounds("P" * 23, "x" * 23))
    assert v.verdict == "inconclusive" and v.rounds_needed == 24
    v = rerun_verdict(parent, _rounds("P" * 24, "x" * 24))
    assert v.verdict == "route" and v.p_value == pytest.approx(20 / math.comb(29, 2))


def test_the_other_verdicts() -> None:
    steady = _rounds("AAA", "xxx")
    assert rerun_verdict(steady, _rounds("PP", "xx")).verdict == "stable"
    assert rerun_verdict(steady, _rounds("PP", "xy")).verdict == "regressed"
    assert rerun_verdict(BY_KEY, _rounds("P", "x")).verdict == "unmeasured"


def test_the_verdict_never_calls_route_on_pure_noise_more_than_its_level() -> None:
    """Nothing changed: parent and re-run draw from one distribution. Over 400 seeded tasks the share
    called route or both stays under 5 % (the exact test's level), whatever the parent's split."""
    rng = random.Random(11)
    called = 0
    for _ in range(400):
        draw = lambda n: "".join("x" if rng.random() < 0.7 else "y" for _ in range(n))  # noqa: E731
        parent = draw(5)
        if len(set(parent)) < 2:
            parent = "xyxxx"
        v = rerun_verdict(_rounds("ABABA", parent), _rounds("P" * 10, draw(10)))
        called += v.verdict in ("route", "both")
    assert called / 400 <= 0.05
