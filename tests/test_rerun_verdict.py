"""The re-run verdict with chance: route only beyond chance and never against the parent's evidence."""

from __future__ import annotations

import pytest

from analyzer.metrics.attribution import Round
from analyzer.rerun_verdict import rerun_verdict
from analyzer.stats import chance_agreement


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
    # 8 agreeing rounds: chance (3/2 parent, Jeffreys) 0.0848, combined with the parent's 0.1 by
    # Fisher: 0.00848 (1 - ln 0.00848) = 0.0489 <= 0.05 -> route
    v = rerun_verdict(BY_KEY, _rounds("P" * 8, "x" * 8))
    assert v.verdict == "route"
    assert v.chance_p == pytest.approx(chance_agreement([3, 2], 8))
    assert v.p_value == pytest.approx(0.0489, abs=5e-4)
    assert v.rounds_needed == 8


def test_too_few_agreeing_rounds_are_inconclusive_with_the_rounds_that_would_decide() -> None:
    v = rerun_verdict(BY_KEY, _rounds("PPPPP", "xxxxx"))
    assert v.verdict == "inconclusive"
    assert v.chance_p == pytest.approx(5630.625 / 30240)  # 0.186: 5 rounds agree by chance that often
    assert v.rounds_needed == 8
    assert "8 agreeing rounds would decide" in v.reason


def test_within_route_disagreement_in_the_parent_is_model_whatever_the_rerun_shows() -> None:
    v = rerun_verdict(WITHIN_KEY, _rounds("P" * 20, "x" * 20))
    assert v.verdict == "model"
    assert "within one route" in v.reason
    assert v.chance_p is not None and v.chance_p < 0.05  # it would have been significant: still model


def test_still_disagreeing_on_the_pinned_route_is_model() -> None:
    v = rerun_verdict(BY_KEY, _rounds("PPPPP", "xxyxx"))
    assert (v.verdict, v.chance_p) == ("model", None)


def test_rounds_spilled_to_another_route_are_left_out_of_k() -> None:
    # 8 rounds on the pinned route agree; one round served elsewhere gave the other answer
    v = rerun_verdict(BY_KEY, _rounds("PPPPQPPPP", "xxxxyxxxx"))
    assert v.verdict == "route"
    assert v.chance_p == pytest.approx(chance_agreement([3, 2], 8))
    assert "1 round(s) served by another route left out" in v.reason


def test_without_route_evidence_in_the_parent_only_chance_counts() -> None:
    # one round per route: the parent says nothing; a 3/2 parent needs 11 agreeing rounds alone
    parent = _rounds("ABCDE", "xyxyx")
    assert rerun_verdict(parent, _rounds("P" * 10, "x" * 10)).verdict == "inconclusive"
    v = rerun_verdict(parent, _rounds("P" * 11, "x" * 11))
    assert v.verdict == "route" and v.p_value == v.chance_p == pytest.approx(chance_agreement([3, 2], 11))


def test_the_other_verdicts() -> None:
    steady = _rounds("AAA", "xxx")
    assert rerun_verdict(steady, _rounds("PP", "xx")).verdict == "stable"
    assert rerun_verdict(steady, _rounds("PP", "xy")).verdict == "regressed"
    assert rerun_verdict(BY_KEY, _rounds("P", "x")).verdict == "unmeasured"
