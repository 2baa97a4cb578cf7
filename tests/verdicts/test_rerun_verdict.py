"""The re-run verdict with chance: route only beyond chance and never against the parent's evidence."""

from __future__ import annotations

import pytest

from analyzer.metrics.attribution import Round
from analyzer.metrics.stats import chance_agreement
from analyzer.verdicts.rerun_verdict import rerun_verdict


def _rounds(routes: str, answers: str) -> list[Round]:
    return [
        Round(i, route, answer, False)
        for i, (route, answer) in enumerate(zip(routes, answers, strict=True), 1)
    ]


# two keys alternate; each key gives its own answer: permutation p = 1/10 (see test_stats)
BY_KEY = _rounds("ABABA", "xyxyx")
# one key disagrees with itself: model noise, whatever a re-run shows
WITHIN_KEY = _rounds("ABABA", "xyyxx")


def test_route_needs_agreement_beyond_chance() -> None:
    # parent and re-run together: routes A(3) B(2) P(3), answers x 6, y 2; only y on B is pure:
    # p = 1 / C(8,2) = 1/28 = 0.036 <= 0.05 -> route
    v = rerun_verdict(BY_KEY, _rounds("PPP", "xxx"))
    assert v.verdict == "route"
    assert v.p_value == pytest.approx(1 / 28)
    # 3 rounds alone agree by chance (3/2 parent, Jeffreys): (3.5*4.5*5.5 + 2.5*3.5*4.5) / (6*7*8) = 0.375
    assert v.chance_p == pytest.approx(126 / 336)
    assert v.rounds_needed == 3
    assert "by chance 38% of the time" in v.reason


def test_too_few_agreeing_rounds_are_inconclusive_with_the_rounds_that_would_decide() -> None:
    # 2 pinned rounds: y on B or y on P are both pure -> p = 2 / C(7,2) = 0.095
    v = rerun_verdict(BY_KEY, _rounds("PP", "xx"))
    assert v.verdict == "inconclusive"
    assert v.p_value == pytest.approx(2 / 21)
    assert v.rounds_needed == 3
    assert "3 agreeing rounds would decide" in v.reason


def test_the_parents_own_route_again_counts_as_that_route() -> None:
    # re-run on key A's route: A(5) x, B(2) y -> 1 / C(7,2) = 0.048 -> route with 2 rounds
    v = rerun_verdict(BY_KEY, _rounds("AA", "xx"))
    assert v.verdict == "route" and v.p_value == pytest.approx(1 / 21)


def test_within_route_disagreement_in_the_parent_is_model_whatever_the_rerun_shows() -> None:
    v = rerun_verdict(WITHIN_KEY, _rounds("P" * 20, "x" * 20))
    assert v.verdict == "model"
    assert "within one route" in v.reason
    assert v.chance_p is not None and v.chance_p < 0.05  # alone it would have looked significant


def test_still_disagreeing_on_the_pinned_route_is_model() -> None:
    v = rerun_verdict(BY_KEY, _rounds("PPPPP", "xxyxx"))
    assert (v.verdict, v.chance_p) == ("model", None)


def test_a_round_spilled_to_another_route_is_named_and_counts_as_that_route() -> None:
    # routes A(3) B(2) P(4) Q(1), answers x 7, y 3: pure with y on B+Q or on A -> 2 / C(10,3) = 0.0167
    v = rerun_verdict(BY_KEY, _rounds("PPPPQ", "xxxxy"))
    assert v.verdict == "route"
    assert v.p_value == pytest.approx(2 / 120)
    assert v.chance_p == pytest.approx(chance_agreement([3, 2], 4))  # K counts the pinned route only
    assert "1 round(s) served by another route" in v.reason


def test_without_route_evidence_in_the_parent_only_the_rerun_counts() -> None:
    # one round per route: 10 pure arrangements; 11 rounds -> 10/C(16,2) = 0.083, 16 -> 10/C(21,2) = 0.048
    parent = _rounds("ABCDE", "xyxyx")
    v = rerun_verdict(parent, _rounds("P" * 11, "x" * 11))
    assert v.verdict == "inconclusive" and v.rounds_needed == 16
    v = rerun_verdict(parent, _rounds("P" * 16, "x" * 16))
    assert v.verdict == "route" and v.p_value == pytest.approx(10 / 210)


def test_the_other_verdicts() -> None:
    steady = _rounds("AAA", "xxx")
    assert rerun_verdict(steady, _rounds("PP", "xx")).verdict == "stable"
    assert rerun_verdict(steady, _rounds("PP", "xy")).verdict == "regressed"
    assert rerun_verdict(BY_KEY, _rounds("P", "x")).verdict == "unmeasured"
