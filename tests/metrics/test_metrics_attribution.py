"""Route or model from the log alone, on a log whose causes are known."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from fake_keys import FAKE_KEY, SESSION_KEY

from analyzer.analysis import analyze
from analyzer.log.model import RunLog
from analyzer.metrics.attribution import Round, attribute_rounds
from analyzer.safety.keys import key_fingerprint

KEY_A, KEY_B = key_fingerprint(FAKE_KEY), key_fingerprint(SESSION_KEY)
ROUNDS = 5


def _result(task: str, answer: str, key: str | None, *, retried: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {"task_id": task, "answer": answer, "total_tokens": 30}
    if key is None:
        return row
    row["route"] = {"base_url": "https://llm.example/v1", "key_fingerprint": key, "model": "m"}
    row["served_model"] = "m-2026-01-15"
    attempts = [{"attempt": 0, "outcome": "ok", "status_code": 200, "key_fingerprint": key}]
    if retried:
        first = {"attempt": 0, "outcome": "rate_limited", "status_code": 429, "key_fingerprint": key}
        attempts = [first, {**attempts[0], "attempt": 1}]
    row["attempts"] = attempts
    return row


def _known_causes_log(seed: int = 7) -> tuple[RunLog, dict[str, list[str]]]:
    """Two keys alternate over 5 rounds. 20 tasks answer by key ("a" on key A, "b" on key B); 20 are
    plain model noise, "a" with probability 0.7 whatever the key; 10 tasks are stable."""
    rng = random.Random(seed)
    answers: dict[str, list[str]] = {}
    for i in range(20):
        answers[f"by-key-{i}"] = ["a" if r % 2 == 0 else "b" for r in range(ROUNDS)]
    for i in range(20):
        answers[f"noise-{i}"] = ["a" if rng.random() < 0.7 else "b" for _ in range(ROUNDS)]
    for i in range(10):
        answers[f"stable-{i}"] = ["a"] * ROUNDS
    runs = [
        [_result(t, a[r], KEY_A if r % 2 == 0 else KEY_B) for t, a in answers.items()] for r in range(ROUNDS)
    ]
    return RunLog.model_validate({"format": "altk-runs/2", "runs": runs}), answers


def _splits_within_a_key(answers: list[str]) -> bool:
    return len(set(answers[0::2])) > 1 or len(set(answers[1::2])) > 1


def test_known_causes_are_attributed() -> None:
    log, answers = _known_causes_log()
    report = analyze(log).report()
    causes = {a["task_id"]: a for a in report["attribution"]}
    inconsistent = [t for t, a in answers.items() if len(set(a)) > 1]
    assert sorted(causes) == sorted(inconsistent)  # one entry per inconsistent task, no more
    by_key = [t for t in inconsistent if t.startswith("by-key")]
    noise = [t for t in inconsistent if t.startswith("noise")]
    assert len(by_key) == 20 and len(noise) >= 12
    for t in by_key:
        # each key always gives its own answer: only 1 of the C(5,2) = 10 arrangements is this pure
        assert causes[t]["cause"] == "route"
        assert causes[t]["p_value"] == pytest.approx(0.1)
        assert "each of 2 routes gave one answer" in causes[t]["evidence"]
        assert KEY_A in causes[t]["evidence"] and KEY_B in causes[t]["evidence"]
    proven = [t for t in noise if _splits_within_a_key(answers[t])]
    assert len(proven) >= 10
    for t in proven:  # a disagreement within one key proves model noise
        assert causes[t]["cause"] == "model", t
        assert causes[t]["p_value"] is None
        assert "within one route" in causes[t]["evidence"] and "on first attempts" in causes[t]["evidence"]
    for t in set(noise) - set(proven):  # noise that happened to line up with the keys looks like route
        assert causes[t]["cause"] == "route" and causes[t]["p_value"] == pytest.approx(0.1)
    json.dumps(report)


def test_disagreement_only_on_retried_results_says_so() -> None:
    rounds = [
        [_result("t", "x", KEY_A)],
        [_result("t", "x", KEY_A)],
        [_result("t", "y", KEY_A, retried=True)],
    ]
    [item] = analyze(RunLog.model_validate({"runs": rounds})).headline.attribution
    assert item.cause == "model"
    assert "involving retried results" in item.evidence
    assert "rounds 1, 2 gave 'x'; round 3 gave 'y'" in item.evidence


def test_no_route_recorded_is_unclear() -> None:
    rounds = [[_result("t", "x", None)], [_result("t", "y", None)]]
    [item] = analyze(RunLog.model_validate({"runs": rounds})).headline.attribution
    assert (item.cause, item.p_value) == ("unclear", None)
    assert "records no key or base URL" in item.evidence


def test_one_round_per_route_is_unclear() -> None:
    rounds = [[_result("t", "x", KEY_A)], [_result("t", "y", KEY_B)]]
    [item] = analyze(RunLog.model_validate({"runs": rounds})).headline.attribution
    assert item.cause == "unclear"
    assert "one round per route" in item.evidence


def test_a_retry_that_landed_on_another_key_counts_under_that_key() -> None:
    # round 3 was sent with key A but its answer came from a retry on key B: by key, the answers align
    retried = _result("t", "y", KEY_A, retried=True)
    retried["attempts"][1]["key_fingerprint"] = KEY_B
    rounds = [[_result("t", "x", KEY_A)], [_result("t", "x", KEY_A)], [retried], [_result("t", "y", KEY_B)]]
    [item] = analyze(RunLog.model_validate({"runs": rounds})).headline.attribution
    assert item.cause == "route"
    # 2 x on A, 2 y on B: 2 pure arrangements of C(4,2) = 6
    assert item.p_value == pytest.approx(2 / 6)


def test_attribute_rounds_is_a_pure_function() -> None:
    noise = [Round(1, "A", "x", False), Round(2, "A", "y", False), Round(3, "B", "x", False)]
    assert attribute_rounds(noise).cause == "model"
    assert attribute_rounds(noise).split_route == "A"
    aligned = [Round(r, "AB"[r % 2], "xy"[r % 2], False) for r in range(1, 7)]
    finding = attribute_rounds(aligned)
    assert finding.cause == "route" and finding.p_value == pytest.approx(2 / 20)  # 2 of C(6,3)
