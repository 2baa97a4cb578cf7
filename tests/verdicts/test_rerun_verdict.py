"""The re-run verdict: parent and re-run tested together, route only beyond chance, the parent's
within-route split overturned only by a re-run that agrees beyond chance."""

from __future__ import annotations

import math
import random
from itertools import combinations

import pytest

from analyzer.metrics.attribution import Round
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


def _selected(n: int, x: int) -> float:
    """P(S): the parent's 5 rounds of n hold two answers, x rounds of n giving x (the rest y)."""
    return 1 - math.comb(x, 5) / math.comb(n, 5) - math.comb(n - x, 5) / math.comb(n, 5)


def test_route_needs_agreement_beyond_chance_with_both_partitions_and_the_selection_counted() -> None:
    # routes A(3 x) B(2 y) P(k x): only y on B is as extreme, 1 / C(5 + k, 2); the re-run factor is a
    # second partition (x 2); the parent was chosen for disagreeing, so divide by P(S)
    for k, verdict in ((5, "inconclusive"), (20, "route")):
        v = rerun_verdict(BY_KEY, _rounds("P" * k, "x" * k))
        assert v.p_value == pytest.approx(2 / math.comb(5 + k, 2) / _selected(5 + k, 3 + k))
        assert (v.verdict, v.factor) == (verdict, "route")
    assert (
        v.chance_p == pytest.approx(chance_agreement([3, 2], 20)) and "by chance 1% of the time" in v.reason
    )


def test_too_few_agreeing_rounds_are_inconclusive_with_the_rounds_that_would_decide() -> None:
    v = rerun_verdict(BY_KEY, _rounds("PPP", "xxx"))
    assert v.verdict == "inconclusive"
    assert v.p_value == pytest.approx(2 / 28 / _selected(8, 6))
    # 2 / C(23, 2) / P(S) = 0.0079 / 0.3953 = 0.0200 first reaches 0.02 at 18 rounds
    assert v.rounds_needed == 18
    assert "18 agreeing pinned rounds decide" in v.reason


def test_the_parents_own_route_again_counts_as_that_route() -> None:
    # re-run on key A's route: A(5 + k) x, B(2) y -> 1 / C(7 + k... ) with n = 5 + k: 1 / C(5 + k, 2)
    v = rerun_verdict(BY_KEY, _rounds("A" * 20, "x" * 20))
    assert v.verdict == "route" and v.p_value == pytest.approx(2 / math.comb(25, 2) / _selected(25, 23))


def test_a_pinned_rerun_that_agrees_beyond_chance_overturns_a_split_within_one_route() -> None:
    # the parent split 2 / 3 on its one route; 30 agreeing rounds on the pinned route. One route in
    # the parent and another in the re-run: route and re-run are one partition. The 3 y's all in the
    # parent: C(5,3) of C(35,3) placements; divided by P(S) = 1 - C(32,5) / C(35,5)
    parent = _rounds("AAAAA", "xxyyy")
    rerun = _rounds("P" * 30, "x" * 30)
    v = rerun_verdict(parent, rerun)
    answers = [r.answer for r in [*parent, *rerun]]
    raw = _brute_p(["parent"] * 5 + ["re-run"] * 30, answers)
    assert raw == pytest.approx(10 / math.comb(35, 3))
    assert v.p_value == pytest.approx(raw / (1 - math.comb(32, 5) / math.comb(35, 5)))
    assert (v.verdict, v.factor) == ("route", "route and re-run")
    # a parent that split 3 / 2 may just have been unlucky: 30 clean rounds do not overturn it
    assert rerun_verdict(WITHIN_KEY, rerun).verdict == "inconclusive"


def test_still_disagreeing_on_the_pinned_route_is_model_and_keeps_its_chance() -> None:
    v = rerun_verdict(BY_KEY, _rounds("PPPPP", "xxyxx"))
    assert v.verdict == "model"
    assert v.chance_p == pytest.approx(chance_agreement([3, 2], 5))  # given whatever the re-run showed


def test_a_round_spilled_to_another_route_is_named_and_counts_as_that_route() -> None:
    # routes A(3 x) B(2 y) P(4 x) Q(1 y): y on B+Q or on A are as extreme -> 2 / C(10,3); two
    # partitions; P(S) = 1 - C(7,5) / C(10,5)
    v = rerun_verdict(BY_KEY, _rounds("PPPPQ", "xxxxy"))
    assert v.p_value == pytest.approx(2 * 2 / 120 / (1 - 21 / 252))
    assert v.verdict == "inconclusive"
    assert v.chance_p == pytest.approx(chance_agreement([3, 2], 4))  # K counts the pinned route only
    assert "1 round served by another route" in v.reason


def test_without_route_evidence_in_the_parent_only_the_rerun_counts() -> None:
    # one round per route: 10 placements of the y's among 5 + k rounds keep them off P, in both
    # partitions, so p = 2 x 10 / C(5 + k, 2) / P(S): past 30 rounds before it reaches 0.02
    parent = _rounds("ABCDE", "xyxyx")
    v = rerun_verdict(parent, _rounds("P" * 23, "x" * 23))
    assert v.p_value == pytest.approx(20 / math.comb(28, 2) / _selected(28, 26))
    assert v.verdict == "inconclusive" and v.rounds_needed is None


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
