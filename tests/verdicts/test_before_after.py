"""The before/after of a re-run: verdicts with chance, the rounds that would decide, the headline."""

from __future__ import annotations

import math
from typing import Any

import pytest
from fake_keys import FAKE_KEY, SESSION_KEY

from analyzer.analysis import analyze
from analyzer.log.model import RunLog
from analyzer.metrics.stats import chance_agreement
from analyzer.safety.keys import key_fingerprint
from analyzer.verdicts.before_after import (
    chance_headline,
    compare_before_after,
    rerun_plan_of,
    rounds_to_decide,
)
from analyzer.verdicts.rerun_sentences import before_after_lines

KEY_A, KEY_B = key_fingerprint(FAKE_KEY), key_fingerprint(SESSION_KEY)


def _row(task: str, answer: str, key: str | None) -> dict[str, Any]:
    route = {"base_url": "https://llm.example/v1", "key_fingerprint": key, "model": "m"}
    return {"task_id": task, "answer": answer, "route": route, "total_tokens": 10}


def _log(answers: dict[str, str], keys: str) -> RunLog:
    """One round per character of `keys` (A or B); answers[t][r] is task t's answer in round r."""
    runs = [
        [_row(t, a[r], KEY_A if k == "A" else KEY_B) for t, a in answers.items()] for r, k in enumerate(keys)
    ]
    return RunLog.model_validate({"format": "altk-runs/2", "runs": runs})


# by-key: each key its own answer (p = 0.1 alone); noise: key A disagrees with itself; steady: always x
PARENT = _log({"by-key": "xyxyx", "noise": "xyyxx", "steady": "xxxxx"}, "ABABA")


def _selected(n: int, x: int) -> float:
    """P(S): the parent's 5 rounds of n hold two answers, x of the n rounds giving x (the rest y)."""
    return 1 - math.comb(x, 5) / math.comb(n, 5) - math.comb(n - x, 5) / math.comb(n, 5)


def test_rounds_to_decide_count_the_other_tasks_of_the_rerun() -> None:
    # alone, k agreeing rounds on a new route, tested with the key and the re-run as two partitions,
    # the p-value divided by the chance the parent was chosen: 2 / C(5 + k, 2) / P(S) <= 0.02 at k = 18
    assert rounds_to_decide(analyze(PARENT), ["by-key", "steady"]) == {"by-key": 18, "steady": None}
    # beside the noise task (split 3 / 2 within key A, which no number of rounds decides),
    # Benjamini-Hochberg asks by-key for p <= 0.02 x 1 / 2, which 30 rounds do not reach either
    plan = rerun_plan_of(analyze(PARENT), ["by-key", "noise", "steady"])
    assert plan.by_task() == {"by-key": None, "noise": None} and plan.level == pytest.approx(0.01)
    assert plan.rounds == 5  # nothing to decide: as many rounds as the parent, not 30 for nothing
    by_key = plan.tasks[0]  # what can: rounds on the parent's own rotation beside the pinned ones
    assert by_key.more_parent_rounds is not None and by_key.with_pinned is not None


def test_before_after_carries_chance_q_values_and_the_headline_counts_every_inconsistent_task() -> None:
    after = _log({"by-key": "x" * 20, "noise": "x" * 20, "steady": "x" * 20}, "A" * 20)
    frame = compare_before_after(PARENT, after, ["by-key", "steady"]).set_index("task_id")
    # by-key on key A's own route again: A(23) x vs B(2) y -> 1 / C(25,2); key and re-run partitions
    by_key = 2 / math.comb(25, 2) / _selected(25, 23)
    assert frame.loc["by-key", "p_value"] == pytest.approx(by_key)  # 0.018
    assert frame.loc["by-key", "q_value"] == pytest.approx(by_key)  # one task tested
    assert (frame.loc["by-key", "verdict"], frame.loc["by-key", "factor"]) == ("route", "key")
    assert frame.loc["steady", "verdict"] == "stable"
    chance = chance_agreement([3, 2], 20)
    assert frame.loc["by-key", "chance_p"] == pytest.approx(chance)
    headline = chance_headline(frame.reset_index())
    assert headline.startswith("1 of 1 inconsistent tasks turned consistent on the pinned route; by chance")
    assert f"by chance alone about {chance:.1f} would have" in headline
    assert "1 route and 0 both (a route factor beyond chance, false discovery rate 2 %), 0 model" in headline
    assert f"{headline} (route pinned.)" in before_after_lines(frame.reset_index())
    # with the noise task too, Benjamini-Hochberg over 2: q = min(p x 2 / 1, p_noise x 2 / 2)
    both = compare_before_after(PARENT, after, ["by-key", "noise"]).set_index("task_id")
    noise = 20 / math.comb(25, 2) / _selected(25, 23)  # the re-run partition: its 2 y's in the parent
    assert both.loc["noise", "p_value"] == pytest.approx(noise)
    assert both.loc["by-key", "q_value"] == pytest.approx(min(2 * by_key, noise))
    assert both.loc["by-key", "verdict"] == "inconclusive"  # 0.036 > 0.02: the rate, not the task, decides


def test_the_chance_headline_counts_tasks_that_did_not_agree_too() -> None:
    after = _log({"by-key": "xyxyx", "noise": "xxxxx"}, "AAAAA")
    frame = compare_before_after(PARENT, after, ["by-key", "noise"])
    assert frame["chance_p"].notna().all()
    expected = 2 * chance_agreement([3, 2], 5)
    assert f"by chance alone about {expected:.1f} would have" in chance_headline(frame)


def test_two_agreeing_rounds_on_a_new_route_are_inconclusive() -> None:
    other = "https://other.example/v1"
    after = _log({"by-key": "xx"}, "AA")
    for rnd in after.runs:
        for result in rnd:
            result.route.base_url = other  # type: ignore[union-attr]
    frame = compare_before_after(PARENT, after, ["by-key"])
    row = frame.iloc[0]
    assert row["verdict"] == "inconclusive" and row["rounds_needed"] == 18
    assert "18 agreeing pinned rounds decide" in row["reason"]
    lines = before_after_lines(frame)
    assert any(line.startswith("  by-key: 2 rounds agree") for line in lines)
