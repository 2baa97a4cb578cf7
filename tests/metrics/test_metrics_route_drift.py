"""Route drift: distinct route tuples, the pinned verdict, per-task drift and the inconsistent split."""

from __future__ import annotations

from typing import Any

from analyzer.analysis import analyze
from analyzer.log.model import RunLog
from analyzer.metrics.route_drift import verdict_sentence

A = "https://a.example/v1"
B = "https://b.example/v1"
KEY1 = "sha256:0123456789ab"
KEY2 = "sha256:ba9876543210"


def _route(base_url: str = A, key: str = KEY1, **params: Any) -> dict[str, Any]:
    return {
        "base_url": base_url,
        "key_fingerprint": key,
        "model": "m",
        "temperature": 0.0,
        "seed": 42,
        **params,
    }


def _r(task_id: str | int, answer: str, route: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    attempts = extra.pop("attempts", [{"attempt": 0, "outcome": "ok", "status_code": 200}])
    return {
        "task_id": task_id,
        "answer": answer,
        "route": route or _route(),
        "served_model": "m-2026-01",
        "system_fingerprint": "fp_1",
        "attempts": attempts,
        **extra,
    }


def _log(*rounds: list[dict[str, Any]]) -> RunLog:
    return RunLog.model_validate({"format": "altk-runs/2", "runs": list(rounds)})


def test_one_route_tuple_is_pinned() -> None:
    a = analyze(_log([_r(1, "x"), _r(2, "y")], [_r(1, "x"), _r(2, "z")]))
    route = a.headline.route
    assert route.pinned is True
    assert route.tuples == 1
    assert route.drifted_tasks == []
    assert a.routes[["base_url", "results", "attempts"]].values.tolist() == [[A, 4, 4]]
    # task 2 is inconsistent on one route with no retries: the model itself varies
    assert route.inconsistent_clean == ["2"]
    assert route.verdict.startswith("Route pinned")
    assert "1 varies within one route, no factor explaining it (model)" in route.verdict


def test_one_model_without_key_or_url_is_not_called_pinned() -> None:
    """Another tool's log that records only the model and its settings: a key or endpoint change
    would not show, so neither the pinned verdict nor a `model` cause is stated."""
    settings = {"model": "m", "temperature": 0.0, "seed": 42}
    rounds = [[_r(1, "x", route=settings, attempts=[]), _r(2, y, route=settings, attempts=[])] for y in "yz"]
    a = analyze(_log(*rounds))
    route = a.headline.route
    assert (route.pinned, route.tuples, route.identity_recorded) == (None, 1, False)
    assert route.verdict.startswith(
        "This log records the model and its settings but no key or base URL, so a change of key or "
        "endpoint cannot be ruled out."
    )
    assert route.inconsistent_clean == [] and route.inconsistent_unknown == ["2"]
    assert [(c.task_id, c.cause) for c in a.headline.attribution] == [("2", "unmeasured")]
    # two models recorded are a recorded change, key or no key
    other = [[_r(1, "x", route={**settings, "model": m}, attempts=[])] for m in ("m", "n")]
    assert analyze(_log(*other)).headline.route.pinned is False


def test_a_failover_seen_only_in_the_attempts_is_drift() -> None:
    # round 2, task 1: the first attempt went to B and timed out, the SDK retried on A
    failover = [
        {"attempt": 0, "outcome": "timeout", "base_url": B},
        {"attempt": 1, "outcome": "ok", "status_code": 200, "base_url": A},
    ]
    a = analyze(_log([_r(1, "x"), _r(2, "y")], [_r(1, "w", attempts=failover), _r(2, "y")]))
    route = a.headline.route
    assert route.pinned is False
    assert route.tuples == 2
    assert route.drifted_fields == ["base_url"]
    assert route.drifted_tasks == ["1"]
    tasks = a.tasks.set_index("task_id")
    assert tasks.loc["1", "drift"] == f"base URL: {A}, {B}"
    assert not tasks.loc["2", "drifted"]
    # task 1 is inconsistent and drifted, yet both its answers came from A: drift alone is no evidence
    # that the route explains it; but the answer "w" came after a timeout, so the retry state differs
    # between the two rounds, and one round per retry state cannot tell route from model
    assert route.inconsistent_drifted_or_retried == ["1"]
    assert route.inconsistent_clean == []
    assert "Route not pinned: 2 different routes (base URL changed)" in route.verdict
    assert "1 cannot be told apart from this log alone (inconclusive" in route.verdict
    routes = a.routes.set_index("base_url")
    assert routes.loc[A, "results"] == 4 and routes.loc[A, "attempts"] == 4
    assert routes.loc[B, "results"] == 0 and routes.loc[B, "attempts"] == 1


def test_key_and_parameter_drift_across_results() -> None:
    a = analyze(
        _log(
            [_r(1, "x"), _r(2, "y")],
            [_r(1, "x", _route(key=KEY2)), _r(2, "y", _route(temperature=0.7))],
        )
    )
    tasks = a.tasks.set_index("task_id")
    assert tasks.loc["1", "drift"] == f"key: {KEY1}, {KEY2}"
    assert tasks.loc["2", "drift"] == "temperature: 0.0, 0.7"
    assert tasks.loc["1", "drift_fields"] == "key"
    assert a.headline.route.drifted_fields == ["key_fingerprint", "temperature"]
    assert a.headline.route.tuples == 3
    # both drifted but both consistent: nothing to split
    assert a.headline.route.inconsistent_drifted_or_retried == []


def test_a_backend_change_drifts_the_task_but_not_the_pin() -> None:
    a = analyze(_log([_r(1, "x")], [_r(1, "y", system_fingerprint="fp_2")]))
    route = a.headline.route
    assert route.pinned is True
    assert route.drifted_tasks == ["1"]
    assert a.tasks.loc[0, "drift"] == "backend: fp_1, fp_2"
    assert "different backend" in route.verdict
    assert route.inconsistent_drifted_or_retried == ["1"]


def test_a_retried_inconsistent_task_counts_as_route_explained() -> None:
    retried = [{"attempt": 0, "outcome": "rate_limited", "status_code": 429}, {"attempt": 1, "outcome": "ok"}]
    route = analyze(_log([_r(1, "x")], [_r(1, "y", attempts=retried)])).headline.route
    assert route.pinned is True
    assert route.inconsistent_drifted_or_retried == ["1"]
    assert route.inconsistent_clean == []


def test_an_errored_result_without_served_model_is_not_drift() -> None:
    error = {"task_id": 1, "status": "error", "route": _route(), "error": {"type": "APITimeoutError"}}
    a = analyze(_log([_r(1, "x")], [error], [_r(1, "x")]))
    assert a.headline.route.drifted_tasks == []
    assert a.headline.route.pinned is True


def test_a_log_without_routes_cannot_say() -> None:
    log = RunLog.model_validate({"runs": [[{"task_id": 1, "answer": "x"}], [{"task_id": 1, "answer": "y"}]]})
    route = analyze(log).headline.route
    assert route.pinned is None
    assert route.tuples == 0
    assert route.unrecorded_results == 2
    assert route.verdict == (
        "This log does not record routes, so route drift cannot be ruled out. 1 of 1 measured tasks gave "
        "inconsistent answers; without route records, route and model cannot be told apart."
    )
    # no route evidence: the inconsistency is not put on the model either
    assert route.inconsistent_clean == []
    assert route.inconsistent_unknown == ["1"]


def test_all_consistent_verdict() -> None:
    route = analyze(_log([_r(1, "x"), _r(2, "y")], [_r(1, "x"), _r(2, "y")])).headline.route
    assert route.verdict == (
        "Route pinned: every result and attempt went through one route. "
        "All 2 measured tasks gave consistent answers."
    )


def test_a_task_missing_route_records_is_set_apart_not_called_clean() -> None:
    bare = {"task_id": 2, "answer": "q"}  # round 2 of task 2 records no route
    route = analyze(_log([_r(1, "x"), _r(2, "y")], [_r(1, "w"), bare])).headline.route
    assert route.inconsistent_clean == ["1"]
    assert route.inconsistent_unknown == ["2"]
    assert route.unrecorded_results == 1
    assert route.verdict.endswith(
        "Of 2 inconsistent tasks, 1 varies within one route, no factor explaining it (model) "
        "and 1 records no route (unmeasured)."
    )
    assert "1 result did not record a key or base URL." in route.verdict


def test_a_per_task_max_tokens_is_the_tasks_setting_not_route_drift() -> None:
    # task 1 always asks for 50 tokens, task 2 for 256: one route, two task settings -> pinned
    capped = _log(
        [_r(1, "x", _route(max_tokens=50)), _r(2, "y", _route(max_tokens=256))],
        [_r(1, "x", _route(max_tokens=50)), _r(2, "y", _route(max_tokens=256))],
    )
    route = analyze(capped).headline.route
    assert route.pinned is True and route.tuples == 1
    assert route.drifted_fields == []
    # but a cap that changes between a task's own rounds is drift
    changed = _log(
        [_r(1, "x", _route(max_tokens=50)), _r(2, "y", _route(max_tokens=256))],
        [_r(1, "x", _route(max_tokens=60)), _r(2, "y", _route(max_tokens=256))],
    )
    route = analyze(changed).headline.route
    assert route.pinned is False and route.drifted_fields == ["max_tokens"]
    assert route.drifted_tasks == ["1"]


def test_without_attribution_drift_is_not_called_a_cause() -> None:
    """The drift-only split (no attribution at hand) never says the route explains a task."""
    failover = [
        {"attempt": 0, "outcome": "timeout", "base_url": B},
        {"attempt": 1, "outcome": "ok", "status_code": 200, "base_url": A},
    ]
    route = analyze(
        _log([_r(1, "x"), _r(2, "y")], [_r(1, "w", attempts=failover), _r(2, "y")])
    ).headline.route
    sentence = verdict_sentence(route, 2)
    assert "1 saw route drift or retries (which alone does not show the route is to blame)" in sentence
    assert "may explain" not in sentence
