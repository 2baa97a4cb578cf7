"""Attempts and retries: counts by outcome and status code, retries per result, Retry-After."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analyzer.analysis import analyze
from analyzer.log.model import RunLog
from analyzer.metrics.retries import attempts_by_route


def _attempt(n: int, outcome: str, code: int | None, retry_after: float | None = None) -> dict[str, Any]:
    return {"attempt": n, "outcome": outcome, "status_code": code, "retry_after_s": retry_after}


RETRIED = RunLog.model_validate(
    {
        "format": "altk-runs/2",
        "runs": [
            [
                # one 429 with Retry-After 2 s, then ok
                {
                    "task_id": 1,
                    "answer": "a",
                    "attempts": [_attempt(0, "rate_limited", 429, 2.0), _attempt(1, "ok", 200)],
                },
                # a timeout (no response), a 500, then ok
                {
                    "task_id": 2,
                    "answer": "b",
                    "attempts": [
                        _attempt(0, "timeout", None),
                        _attempt(1, "server_error", 500),
                        _attempt(2, "ok", 200),
                    ],
                },
            ],
            [
                {"task_id": 1, "answer": "a", "attempts": [_attempt(0, "ok", 200)]},
                {"task_id": 2, "answer": "b"},  # attempts not recorded
            ],
        ],
    }
)


def test_attempt_counts_by_outcome_and_status() -> None:
    r = analyze(RETRIED).headline.retries
    # attempts: 2 + 3 + 1 = 6; retries: 1 + 2 + 0 = 3
    assert r.attempts_total == 6
    assert r.results_with_attempts == 3
    assert r.results_with_retry == 2
    assert r.extra_attempts == 3
    assert r.retries_per_result == {0: 1, 1: 1, 2: 1}
    assert r.by_outcome == {"ok": 3, "rate_limited": 1, "timeout": 1, "server_error": 1}
    assert r.by_status == {"200": 3, "429": 1, "none": 1, "500": 1}
    assert r.retry_after_seen == 1
    assert r.retry_after_max_s == 2.0


def test_retries_per_task_and_result() -> None:
    a = analyze(RETRIED)
    assert a.tasks["retries"].tolist() == [1, 2]
    assert a.results["retries"].tolist() == [1, 2, 0, 0]
    assert a.results["retried"].tolist() == [True, True, False, False]
    assert a.results["n_attempts"].isna().tolist() == [False, False, False, True]


def test_attempts_frame_rows() -> None:
    attempts = analyze(RETRIED).attempts
    assert len(attempts) == 6
    assert attempts["task_id"].tolist() == ["1", "1", "2", "2", "2", "1"]
    assert attempts["round"].tolist() == [1, 1, 1, 1, 1, 2]
    assert attempts["result_row"].tolist() == [0, 0, 1, 1, 1, 2]
    assert attempts["status_code"].isna().tolist() == [False, False, True, False, False, False]


def test_attempt_duration_from_its_times() -> None:
    log = RunLog.model_validate(
        {
            "runs": [
                [
                    {
                        "task_id": 1,
                        "answer": "a",
                        "attempts": [
                            {
                                "attempt": 0,
                                "outcome": "ok",
                                "started_at": "2026-01-01T10:00:00Z",
                                "ended_at": "2026-01-01T10:00:01.250Z",
                            }
                        ],
                    }
                ]
            ]
        }
    )
    assert analyze(log).attempts.loc[0, "duration_ms"] == 1250.0


def test_a_log_without_attempts_claims_no_retries() -> None:
    r = analyze(RunLog.model_validate({"runs": [[{"task_id": 1, "answer": "a"}]]})).headline.retries
    # not recorded is None (the JSON's null, "not recorded" on a page), never a count of 0
    assert (r.attempts_total, r.extra_attempts, r.results_with_retry) == (None, None, None)
    assert r.by_outcome == {}


def test_attempts_by_route_counts_each_route_and_outcome() -> None:
    # key A: ok, ok, 429 (3 attempts); key B: ok, timeout (2); one attempt with no key recorded: ok.
    attempts = pd.DataFrame(
        {
            "base_url": pd.array(["u", "u", "u", "u", "u", "u"], dtype="string"),
            "key_fingerprint": pd.array(["A", "A", "A", "B", "B", None], dtype="string"),
            "outcome": pd.array(["ok", "ok", "rate_limited", "ok", "timeout", "ok"], dtype="string"),
        }
    )
    table = attempts_by_route(attempts)
    rows = [
        (r.key_fingerprint if not pd.isna(r.key_fingerprint) else None, r.outcome, r.attempts)
        for r in table.itertuples()
    ]
    assert rows == [
        ("A", "ok", 2),
        ("A", "rate_limited", 1),
        ("B", "ok", 1),
        ("B", "timeout", 1),
        (None, "ok", 1),
    ]
    assert table["attempts"].sum() == len(attempts)
    assert attempts_by_route(attempts.iloc[0:0]).empty


def test_an_agents_several_calls_are_not_retries() -> None:
    """An executor that calls the model three times for one result makes three first tries (retry 0);
    only a repeated call is a retry. Hand count: task a 3 calls, one of them retried once -> 1 retry;
    task b 2 calls, none retried -> 0; task c (no retry numbers recorded) 3 attempts -> 2, as before."""

    def call(n: int, retry: int | None, outcome: str = "ok", code: int = 200) -> dict[str, Any]:
        return {**_attempt(n, outcome, code), **({"retry": retry} if retry is not None else {})}

    log = RunLog.model_validate(
        {
            "runs": [
                [
                    {
                        "task_id": "a",
                        "answer": "x",
                        "attempts": [call(0, 0), call(1, 0, "rate_limited", 429), call(2, 1), call(3, 0)],
                    },
                    {"task_id": "b", "answer": "x", "attempts": [call(0, 0), call(1, 0)]},
                    {"task_id": "c", "answer": "x", "attempts": [call(n, None) for n in range(3)]},
                ]
            ]
        }
    )
    analysis = analyze(log)
    assert analysis.results["retries"].tolist() == [1, 0, 2]
    assert analysis.results["retried"].tolist() == [True, False, True]
    figures = analysis.headline.retries
    assert figures.extra_attempts == 3 and figures.results_with_retry == 2
