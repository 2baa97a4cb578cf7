"""Property tests: any valid log analyses, and the metric identities hold on every one."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.analysis import analyze
from analyzer.log.frames import results_frame
from analyzer.log.model import RunLog
from analyzer.metrics.answers import answer_keys
from analyzer.metrics.consistency import assign_clusters, task_consistency

TASK_IDS = st.sampled_from([1, 2, "1", "a", "b", "ü", 10])
ANSWERS = st.sampled_from(["x", "X", " x ", "x.", "y", "yes", "Yes!", "", "no"])


@st.composite
def results(draw: st.DrawFn) -> dict[str, Any]:
    row: dict[str, Any] = {"task_id": draw(TASK_IDS)}
    if draw(st.integers(0, 9)) == 0:
        row |= {"status": "error", "error": {"type": "Timeout"}}
    else:
        row["answer"] = draw(st.one_of(st.none(), ANSWERS))
    tokens = draw(st.one_of(st.none(), st.integers(0, 5000)))
    row["total_tokens"] = tokens
    graded = draw(st.sampled_from(["success", "score", "none"]))
    if graded == "success":
        row["success"] = draw(st.booleans())
    elif graded == "score":
        row["score"] = draw(st.floats(0, 1))
    if draw(st.booleans()):
        n = draw(st.integers(1, 3))
        row["attempts"] = [
            {
                "attempt": i,
                "outcome": "ok" if i == n - 1 else draw(st.sampled_from(["rate_limited", "timeout"])),
                "status_code": draw(st.sampled_from([None, 200, 429])),
                "base_url": draw(st.sampled_from([None, "https://a/v1", "https://b/v1"])),
            }
            for i in range(n)
        ]
    if draw(st.booleans()):
        row["route"] = {"base_url": draw(st.sampled_from(["https://a/v1", "https://b/v1"])), "seed": 42}
    return row


LOGS = st.lists(st.lists(results(), max_size=6), max_size=5).map(
    lambda runs: RunLog.model_validate({"runs": runs})
)
KEYS = st.sampled_from(["exact", "normalized", "fuzzy"])
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(LOGS, KEYS)
def test_any_valid_log_analyses(log: RunLog, key: str) -> None:
    a = analyze(log, key)  # type: ignore[arg-type]
    json.dumps(a.report())
    h = a.headline
    assert h.results == sum(len(r) for r in log.runs)
    assert h.tasks_measured + h.tasks_single == h.tasks == len(a.tasks)
    assert int(a.tasks["n_results"].sum()) == h.results
    rate = h.answer_consistency_rate
    if rate is None:
        assert h.answer_gap_pp is None and h.tasks_measured == 0
    else:
        assert 0.0 <= rate <= 1.0
        assert h.answer_gap_pp == pytest.approx((1 - rate) * 100, abs=1e-9)
    assert a.tasks["entropy"].dropna().between(0, 1 + 1e-12).all()
    assert a.tasks["majority_share"].dropna().between(0, 1).all()
    if h.tokens.total is not None:
        assert h.tokens.total == int(a.results["total_tokens"].sum())


@SETTINGS
@given(LOGS)
def test_pass_hat_identities(log: RunLog) -> None:
    outcome = analyze(log).headline.outcome
    if outcome is None:
        return
    hat = [outcome.pass_hat_k[k] for k in range(1, outcome.n + 1)]
    at = [outcome.pass_at_k[k] for k in range(1, outcome.n + 1)]
    assert hat[0] == outcome.mean_at_n  # Pass^1 = Mean@n
    assert at[0] == pytest.approx(outcome.mean_at_n)  # Pass@1 = Mean@n too
    assert all(later <= earlier + 1e-12 for earlier, later in zip(hat, hat[1:], strict=False))  # never rises
    assert all(later >= earlier - 1e-12 for earlier, later in zip(at, at[1:], strict=False))  # never falls
    assert all(0 <= v <= 1 for v in hat + at)
    if outcome.n == 1:  # one graded run per task: no gap is measured, never a gap of 0
        assert outcome.outcome_gap_pp is None and outcome.outcome_gap_ci is None
    else:
        assert outcome.outcome_gap_pp == pytest.approx((outcome.mean_at_n - hat[-1]) * 100)
        assert outcome.outcome_gap_pp >= -1e-9


@SETTINGS
@given(LOGS)
def test_keys_only_merge_clusters(log: RunLog) -> None:
    # normalized never splits what exact joins, fuzzy never splits what normalized joins
    results = results_frame(log)
    n_clusters = [
        task_consistency(assign_clusters(results.assign(answer_key=answer_keys(results, key))))[
            "n_clusters"
        ].tolist()
        for key in ("exact", "normalized", "fuzzy")
    ]
    exact, normalized, fuzzy = n_clusters
    assert all(e >= n >= f for e, n, f in zip(exact, normalized, fuzzy, strict=True))
    assert n_clusters[0] == analyze(log).tasks["n_clusters"].tolist()
