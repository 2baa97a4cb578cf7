"""Route or model from the log alone, on logs whose causes are known, with hand-computed p-values."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from fake_keys import FAKE_KEY, SESSION_KEY

from analyzer.analysis import analyze
from analyzer.log.model import RunLog
from analyzer.metrics.attribution import (
    Attribution,
    Round,
    attribute_rounds,
    attribution_caption,
    decide,
    verdict_counts,
)
from analyzer.safety.keys import key_fingerprint

KEY_A, KEY_B = key_fingerprint(FAKE_KEY), key_fingerprint(SESSION_KEY)
URL = "https://llm.example/v1"


def _result(task: str, answer: str, key: str | None, *, retried: str | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"task_id": task, "answer": answer, "total_tokens": 30}
    if key is None:
        return row
    row["route"] = {"base_url": URL, "key_fingerprint": key, "model": "m"}
    row["served_model"] = "m-2026-01-15"
    attempts = [{"attempt": 0, "retry": 0, "outcome": "ok", "status_code": 200, "key_fingerprint": key}]
    if retried:
        status = {"rate_limited": 429, "server_error": 500, "timeout": None}[retried]
        first = {"attempt": 0, "retry": 0, "outcome": retried, "status_code": status, "key_fingerprint": key}
        attempts = [first, {**attempts[0], "attempt": 1, "retry": 1}]
    row["attempts"] = attempts
    return row


def _log(runs: list[list[dict[str, Any]]]) -> RunLog:
    return RunLog.model_validate({"format": "altk-runs/2", "runs": runs})


def _known_causes_log(rounds: int, seed: int = 7) -> tuple[RunLog, dict[str, list[str]]]:
    """Two keys alternate. 20 tasks answer by key ("a" on key A, "b" on key B); 20 are plain model
    noise, "a" with probability 0.7 whatever the key; 10 tasks are stable."""
    rng = random.Random(seed)
    answers: dict[str, list[str]] = {}
    for i in range(20):
        answers[f"by-key-{i}"] = ["a" if r % 2 == 0 else "b" for r in range(rounds)]
    for i in range(20):
        answers[f"noise-{i}"] = ["a" if rng.random() < 0.7 else "b" for _ in range(rounds)]
    for i in range(10):
        answers[f"stable-{i}"] = ["a"] * rounds
    runs = [
        [_result(t, a[r], KEY_A if r % 2 == 0 else KEY_B) for t, a in answers.items()] for r in range(rounds)
    ]
    return _log(runs), answers


def test_ten_rounds_over_two_keys_tell_route_from_model_with_q_values() -> None:
    log, answers = _known_causes_log(10)
    report = analyze(log).report()
    causes = {a["task_id"]: a for a in report["attribution"]}
    inconsistent = [t for t, a in answers.items() if len(set(a)) > 1]
    assert sorted(causes) == sorted(inconsistent)  # one entry per inconsistent task, no more
    m = len(inconsistent)
    pure = 2 / math.comb(10, 5)  # 2 of the C(10,5) arrangements of 5 a's put one answer on each key
    ranked = sorted(a["p_value"] for a in causes.values())
    for t in (t for t in inconsistent if t.startswith("by-key")):
        item = causes[t]
        assert (item["cause"], item["factor"], item["passes"]) == ("route", "key", True)
        assert item["p_value"] == pytest.approx(pure)
        rank = max(i + 1 for i, p in enumerate(ranked) if p <= pure + 1e-12)
        assert item["q_value"] == pytest.approx(
            min(pure * m / rank, *[p * m / (j + 1) for j, p in enumerate(ranked) if j >= rank])
        )
        assert KEY_A in item["evidence"] and KEY_B in item["evidence"]
    noise = [t for t in inconsistent if t.startswith("noise")]
    called = [causes[t]["cause"] for t in noise]
    assert called.count("model") >= len(noise) - 1  # the keys could have shown a route effect: they did not
    assert all(c in ("model", "inconclusive") for c in called)
    counts = report["attribution_counts"]["counts"]
    assert counts == verdict_counts(analyze(log).headline.attribution)
    assert counts["route"] == 20 and counts["model"] == called.count("model")
    assert report["attribution_counts"]["fdr_q"] == 0.05
    json.dumps(report)


def test_five_rounds_over_two_keys_cannot_call_route_and_say_what_would_decide() -> None:
    log, answers = _known_causes_log(5)
    causes = {a.task_id: a for a in analyze(log).headline.attribution}
    for t in (t for t in causes if t.startswith("by-key")):
        item = causes[t]
        assert item.cause == "inconclusive" and item.p_value == pytest.approx(0.1)
        assert "a pinned re-run may decide" in item.evidence  # the planner names the rounds
    # noise splitting within a key: 3 and 2 rounds could not have shown a key effect (best p 0.1)
    assert {causes[t].cause for t in causes if t.startswith("noise")} == {"inconclusive"}


def test_answers_that_follow_the_retry_state_are_route() -> None:
    runs = [
        [_result("t", "y", KEY_A, retried="rate_limited")]
        if r in (1, 4, 6, 8)
        else [_result("t", "x", KEY_A)]
        for r in range(10)
    ]
    [item] = analyze(_log(runs)).headline.attribution
    assert (item.cause, item.factor) == ("route", "retry state")
    assert item.p_value == pytest.approx(1 / math.comb(10, 4))  # the 4 y's on exactly the 4 retried rounds
    assert "retried after a 429" in item.evidence


def test_three_rounds_with_one_retry_are_inconclusive_not_model() -> None:
    runs = [
        [_result("t", "x", KEY_A)],
        [_result("t", "x", KEY_A)],
        [_result("t", "y", KEY_A, retried="timeout")],
    ]
    [item] = analyze(_log(runs)).headline.attribution
    assert (item.cause, item.factor) == ("inconclusive", "retry state")
    assert item.p_value == pytest.approx(1 / 3)
    assert "retried after a timeout" in item.evidence


def test_a_route_effect_with_noise_on_top_is_both() -> None:
    # key A: a a a a b ; key B: b b b b b (rounds alternate). S = 4 + 5 = 9 of 10.
    a_answers, b_answers = iter("aaaab"), iter("bbbbb")
    runs = [
        [_result("t", next(a_answers) if r % 2 == 0 else next(b_answers), KEY_A if r % 2 == 0 else KEY_B)]
        for r in range(10)
    ]
    [item] = analyze(_log(runs)).headline.attribution
    # P(S >= 9) with rows 5, 5 and answers 4 a, 6 b: tables (4,1 | 0,5) and (0,5 | 4,1) with S = 9,
    # C(5,4) C(5,0) ways each, of C(10,4) = 210: p = 10 / 210
    assert item.p_value == pytest.approx(10 / 210)
    assert (item.cause, item.factor, item.passes) == ("both", "key", True)


def test_a_same_origin_redirect_to_another_path_is_another_base_url() -> None:
    def redirected(answer: str) -> dict[str, Any]:
        row = _result("t", answer, KEY_A)
        hop = {
            "attempt": 0,
            "retry": 0,
            "outcome": "redirect",
            "status_code": 307,
            "key_fingerprint": KEY_A,
            "redirect_to": "https://llm.example/v2/chat/completions",
        }
        row["attempts"] = [hop, {**row["attempts"][0], "attempt": 1}]
        return row

    runs = [[redirected("y")] if r % 2 else [_result("t", "x", KEY_A)] for r in range(10)]
    [item] = analyze(_log(runs)).headline.attribution
    assert (item.cause, item.factor) == ("route", "base URL")
    assert "https://llm.example/v2/chat/completions" in item.evidence


def test_no_route_recorded_is_unmeasured() -> None:
    rounds = [[_result("t", "x", None)], [_result("t", "y", None)]]
    [item] = analyze(_log(rounds)).headline.attribution
    assert (item.cause, item.p_value, item.q_value, item.passes) == ("unmeasured", None, None, False)
    assert "record a key or base URL" in item.evidence


def test_one_round_per_route_is_inconclusive() -> None:
    rounds = [[_result("t", "x", KEY_A)], [_result("t", "y", KEY_B)]]
    [item] = analyze(_log(rounds)).headline.attribution
    assert item.cause == "inconclusive" and item.p_value == pytest.approx(1.0)


def test_a_retry_on_another_key_counts_under_that_key_and_both_partitions_are_corrected() -> None:
    retried = _result("t", "y", KEY_A, retried="rate_limited")
    retried["attempts"][1]["key_fingerprint"] = KEY_B
    rounds = [[_result("t", "x", KEY_A)], [_result("t", "x", KEY_A)], [retried], [_result("t", "y", KEY_B)]]
    [item] = analyze(_log(rounds)).headline.attribution
    # key: x x | y y, 2 pure arrangements of C(4,2) = 6; retry state is a second partition: x 2
    assert item.factor == "key" and item.p_value == pytest.approx(2 * 2 / 6)
    assert item.cause == "inconclusive"


def test_attribute_rounds_is_a_pure_function() -> None:
    noise = [Round(1, "A", "x", False), Round(2, "A", "y", False), Round(3, "B", "x", False)]
    finding = attribute_rounds(noise)
    assert finding.split_route == "A" and finding.test is not None
    assert finding.test.split_within_route and finding.test.best_case == pytest.approx(
        1 / 3
    )  # 2 and 1 rounds
    assert decide(finding, finding.test.p_value) == "inconclusive"
    aligned = [Round(r, "AB"[r % 2], "xy"[r % 2], False) for r in range(1, 7)]
    finding = attribute_rounds(aligned)
    assert finding.test is not None and finding.test.explains
    assert finding.test.p_value == pytest.approx(2 / 20)  # 2 of C(6,3)
    assert decide(finding, 0.04) == "route" and decide(finding, 0.2) == "inconclusive"


def test_the_caption_states_the_share_with_its_interval_and_no_false_calls_when_none_pass() -> None:
    none_pass = [Attribution(task_id=f"t{i}", cause="model", evidence="") for i in range(5)]
    text = attribution_caption(none_pass)
    assert "0 of 5, 0.0 % (95 % CI 0.0–52.2) of such tasks." in text
    assert "may be false" not in text
    some = [Attribution(task_id="r", cause="route", passes=True, evidence=""), *none_pass[:3]]
    assert "1 of 4, 25.0 % (95 % CI " in attribution_caption(some)
    assert attribution_caption(some).endswith("up to about 0.1 of the 1 may be false.")


def test_the_rounds_by_route_are_listed_apart_and_are_exactly_how_the_evidence_ends() -> None:
    log, _ = _known_causes_log(10)
    items = {a.task_id: a for a in analyze(log).headline.attribution}
    route = items["by-key-0"]
    assert len(route.by_route) == 2  # two keys, one line each
    assert route.by_route[0].startswith(f"key {KEY_A}") or route.by_route[0].startswith(f"key {KEY_B}")
    assert f"{route.reason()}: {'; '.join(route.by_route)}" == route.evidence
    assert route.reason().startswith("answers follow the key (p = ")
    # nothing tested (no route recorded on enough rounds): no list, the reason is the whole evidence
    untested = Attribution(task_id="t", cause="unmeasured", evidence="fewer than two answered rounds")
    assert untested.by_route == [] and untested.reason() == untested.evidence
