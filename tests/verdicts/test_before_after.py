"""The before/after of a re-run: verdicts with chance, the rounds that would decide, the headline."""

from __future__ import annotations

from typing import Any

import pytest
from fake_keys import FAKE_KEY, SESSION_KEY

from analyzer.analysis import analyze
from analyzer.log.model import RunLog
from analyzer.safety.keys import key_fingerprint
from analyzer.verdicts.before_after import (
    before_after_lines,
    chance_headline,
    compare_before_after,
    default_rounds,
    rounds_to_decide,
)

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


# by-key: each key its own answer (route, p = 0.1); noise: key A disagrees with itself (model);
# steady: always x
PARENT = _log({"by-key": "xyxyx", "noise": "xyyxx", "steady": "xxxxx"}, "ABABA")


def test_rounds_to_decide_and_the_default() -> None:
    needed = rounds_to_decide(analyze(PARENT), ["by-key", "noise", "steady"])
    # by-key: 3 agreeing rounds (1 / C(8,2) = 0.036, see test_stats); noise: the parent already proves
    # model noise, no re-run can make it `route`; steady: nothing to decide
    assert needed == {"by-key": 3, "noise": None, "steady": None}
    assert default_rounds({"a": 3, "b": None}) == 3
    assert default_rounds({"a": None}) == 30


def test_before_after_carries_chance_and_the_headline_counts_it() -> None:
    after = _log({"by-key": "xxx", "noise": "xxx", "steady": "xxx"}, "AAA")
    frame = compare_before_after(PARENT, after, ["by-key", "noise", "steady"]).set_index("task_id")
    assert frame.loc["by-key", "verdict"] == "route"
    # on key A's own route again: A(6) x vs B(2) y -> 1 / C(8,2) = 1/28
    assert frame.loc["by-key", "p_value"] == pytest.approx(1 / 28)
    assert frame.loc["by-key", "chance_p"] == pytest.approx(126 / 336)  # 3 rounds, 3/2 parent
    assert frame.loc["by-key", "rounds_needed"] == 3
    assert frame.loc["noise", "verdict"] == "model"  # the parent disagreed within key A
    assert frame.loc["steady", "verdict"] == "stable"
    headline = chance_headline(frame.reset_index())
    # 2 inconsistent tasks turned consistent; by chance alone 0.375 + 0.375 = 0.75 of them would have
    assert headline.startswith("2 of 2 inconsistent tasks turned consistent on the pinned route; by chance")
    assert "by chance alone about 0.8 would have" in headline
    assert "1 route (one answer per route, beyond chance at 5 %), 1 model, 0 inconclusive" in headline
    assert headline in before_after_lines(frame.reset_index())


def test_two_agreeing_rounds_on_a_new_route_are_inconclusive() -> None:
    other = "https://other.example/v1"
    after = _log({"by-key": "xx"}, "AA")
    for rnd in after.runs:
        for result in rnd:
            result.route.base_url = other  # type: ignore[union-attr]
    frame = compare_before_after(PARENT, after, ["by-key"])
    row = frame.iloc[0]
    assert row["verdict"] == "inconclusive" and row["rounds_needed"] == 3
    assert "3 agreeing rounds would decide" in row["reason"]
    lines = before_after_lines(frame)
    assert any(line.startswith("  by-key: 2 rounds agree") for line in lines)
