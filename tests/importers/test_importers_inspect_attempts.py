"""Inspect model events become attempts: one per model call with SDK retry 0 (an agent's many calls
are not retries), the call's own API retries and the sample's error retries counted as retries.
Checked against the events in the real logs inspect-ai 0.3.285 wrote (fixtures/foreign/inspect_ai)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from analyzer.analysis import analyze
from analyzer.importers import load_any, load_any_bytes
from analyzer.importers.common import Source, parse_time
from analyzer.importers.inspect_archive import read_eval_archive

HERE = Path(__file__).parents[1] / "fixtures" / "foreign" / "inspect_ai"
TOOLS = HERE / "mock_tools.eval"
EPOCHS = HERE / "mock_epochs.json"


def _model_events(sample: dict) -> list[dict]:
    return [e for e in sample["events"] if e.get("event") == "model"]


def test_each_model_call_is_a_first_try_not_a_retry() -> None:
    raw = read_eval_archive(TOOLS.read_bytes(), Source("mock_tools.eval"))
    events = {(s["id"], s["epoch"]): _model_events(s) for s in raw["samples"]}
    log = load_any(TOOLS).log
    for run in log.runs:
        for r in run:
            calls = events[(r.task_id, r.round)]
            assert len(calls) == 2  # the mock agent calls the model, runs `add`, calls it again
            assert [(a.retry, a.outcome) for a in r.attempts] == [(0, "ok"), (0, "ok")]
            assert [a.started_at for a in r.attempts] == [parse_time(e["timestamp"]) for e in calls]
            assert [a.ended_at for a in r.attempts] == [parse_time(e["completed"]) for e in calls]
            assert r.retries == 0
    figures = analyze(log).headline.retries
    assert figures.attempts_total == 12 and figures.extra_attempts == 0 and figures.results_with_retry == 0


def _edited(edit) -> tuple:  # noqa: ANN001
    data = json.loads(EPOCHS.read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    sample = next(s for s in data["samples"] if s["id"] == "capital" and s["epoch"] == 1)
    edit(_model_events(sample)[0], sample)
    loaded = load_any_bytes(json.dumps(data).encode(), "edited.json")
    result = next(r for r in loaded.log.runs[0] if r.task_id == "capital")
    return loaded, result


def test_a_call_inspect_retried_twice_is_three_attempts_and_two_retries() -> None:
    loaded, r = _edited(lambda event, sample: event.update(retries=2))
    assert [(a.retry, a.outcome) for a in r.attempts] == [(0, "server_error"), (1, "server_error"), (2, "ok")]
    assert r.retries == 2
    assert any("retried 1 model call" in w and "server_error" in w for w in loaded.warnings)
    figures = analyze(loaded.log).headline.retries
    # the edited call's 2 retries; the planet epoch Inspect re-ran after a RuntimeError made no request
    assert figures.extra_attempts == 2 and figures.results_with_retry == 1


def test_a_failed_call_gives_its_outcome_and_a_cache_read_is_no_request() -> None:
    def fail(event: dict, sample: dict) -> None:
        event["error"] = "RateLimitError('Error code: 429 - rate limit reached')"
        sample["events"].append({**event, "error": None, "cache": "read"})

    _, r = _edited(fail)
    assert [(a.retry, a.outcome) for a in r.attempts] == [(0, "rate_limited")]


def test_an_error_in_the_agents_code_is_the_results_error_not_http_attempts() -> None:
    loaded = load_any(EPOCHS)
    planet3 = next(r for r in loaded.log.runs[2] if r.task_id == "planet")
    # retry_on_error=1: the solver raised RuntimeError before calling the model in both tries
    assert planet3.status == "error" and planet3.error is not None and planet3.error.type == "RuntimeError"
    assert planet3.attempts is None and planet3.retries == 0
    figures = analyze(loaded.log).headline.retries
    assert figures.results_with_retry == 0 and figures.extra_attempts == 0
    assert any("re-ran a sample 1 time" in w and "no model API error" in w for w in loaded.warnings)


def _planet3_failing_with(message: str) -> object:
    data = json.loads(EPOCHS.read_text(encoding="utf-8"))
    planet3 = next(s for s in data["samples"] if s["id"] == "planet" and s["epoch"] == 3)
    planet3["error"]["message"] = message
    for retry in planet3["error_retries"]:
        retry["message"] = message
    log = load_any_bytes(json.dumps(data).encode(), "edited.json").log
    return next(r for r in log.runs[2] if r.task_id == "planet")


def test_a_sample_that_failed_with_a_model_api_error_keeps_its_attempts_and_retry() -> None:
    r = _planet3_failing_with("RateLimitError('Error code: 429 - rate limit reached')")
    assert [(a.attempt, a.retry, a.outcome) for a in r.attempts] == [
        (0, 0, "rate_limited"),
        (1, 1, "rate_limited"),
    ]
    assert r.retries == 1
    r = _planet3_failing_with("APIStatusError('Error code: 503 - upstream unavailable')")
    assert [(a.retry, a.outcome) for a in r.attempts] == [(0, "server_error"), (1, "server_error")]
    r = _planet3_failing_with("BadRequestError(\"Error code: 400 - {'message': 'context too long'}\")")
    assert len(r.attempts) == 2 and r.retries == 1
