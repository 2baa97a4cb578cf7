"""Inspect logs written by inspect-ai 0.3.285 against the simulator (tests/fixtures/foreign/inspect_ai/
SOURCE.md): a call retried after two 500s, a call that failed in the client before any request,
and an eval that stopped part-way.

Inspect's own record of a retried call is one `model` event with `retries` (the API retries taken)
and `request_ids`, each request's id and HTTP status (inspect_ai/event/_model.py `ModelEvent`,
fields `retries` and `request_ids`, lines 120-124): attempts = retries + 1.
"""

from __future__ import annotations

import json
from pathlib import Path

from analyzer.analysis import analyze
from analyzer.importers import load_any, load_any_bytes

INSPECT = Path(__file__).parents[1] / "fixtures" / "foreign" / "inspect_ai"


def _model_events(sample: dict) -> list[dict]:
    return [e for e in sample["events"] if e["event"] == "model"]


def test_a_retried_call_is_one_call_with_its_attempts_and_their_statuses() -> None:
    raw = json.loads((INSPECT / "retried_calls.json").read_text(encoding="utf-8"))
    (event,) = _model_events(raw["samples"][0])
    own_attempts = event["retries"] + 1
    statuses = [r["status"] for r in event["request_ids"]]
    assert own_attempts == 3 and statuses == [500, 500, 200]
    log = load_any(INSPECT / "retried_calls.json").log
    flaky = next(r for r in log.runs[0] if r.task_id == "flaky")
    assert [a.status_code for a in flaky.attempts] == statuses
    assert [a.outcome for a in flaky.attempts] == ["server_error", "server_error", "ok"]
    assert flaky.retries == 2
    retries = analyze(log).headline.retries
    assert retries.results_with_retry == 1 and retries.attempts_total == own_attempts + 1


def test_one_event_per_attempt_is_still_one_call() -> None:
    """The shape of versions that write each attempt as its own event (a shared `call_id` and an
    `attempt` number, inspect_ai pull request #3860's `ModelEvent` fields; older ones with no call id):
    the real retried event split into its three attempts, the first two failed, the last with
    `retries: 2`."""
    raw = json.loads((INSPECT / "retried_calls.json").read_text(encoding="utf-8"))
    sample = raw["samples"][0]
    (event,) = _model_events(sample)
    split = []
    for number, status in enumerate([500, 500, 200], start=1):
        attempt = {key: value for key, value in event.items() if key not in ("retries", "request_ids")}
        attempt |= {"call_id": "call-1", "attempt": number}
        if status != 200:
            attempt["error"] = f"InternalServerError('Error code: {status}')"
        else:
            attempt["retries"] = 2
        split.append(attempt)
    sample["events"] = [e for e in sample["events"] if e["event"] != "model"] + split
    # with a call id, attempts 1-3 and `retries: 2` on the last; then the older shape: no call id
    for shape in ("call_id", "no call id", "no call id, no retries"):
        if shape != "call_id":
            for attempt in split:
                attempt.pop("call_id", None)
                attempt.pop("attempt", None)
        if shape.endswith("no retries"):
            split[-1].pop("retries")
        flaky = load_any_bytes(json.dumps(raw).encode(), "log.json").log.runs[0][0]
        assert [a.retry for a in flaky.attempts] == [0, 1, 2]
        assert [a.outcome for a in flaky.attempts] == ["server_error", "server_error", "ok"]
        assert flaky.retries == 2


def test_a_client_error_before_any_request_is_not_a_provider_attempt() -> None:
    raw = json.loads((INSPECT / "client_type_error.json").read_text(encoding="utf-8"))
    (event,) = _model_events(raw["samples"][0])
    assert event["error"].startswith("TypeError(") and "request_ids" not in event  # nothing was sent
    loaded = load_any(INSPECT / "client_type_error.json")
    for result in loaded.log.runs[0]:
        assert result.status == "error" and result.error.type == "TypeError"
        assert result.error.client_side is True
        assert not result.attempts
    retries = analyze(loaded.log).headline.retries
    assert retries.attempts_total == 0 and "server_error" not in retries.by_outcome
    assert any("failed in the client before any request was sent" in w for w in loaded.warnings)
    assert not any("epoch" in w for w in loaded.warnings)  # a one-epoch log: no reducer talk


def test_a_run_that_stopped_part_way_names_what_never_ran_and_why() -> None:
    raw = json.loads((INSPECT / "stopped_part_way.json").read_text(encoding="utf-8"))
    planned = raw["eval"]["dataset"]["sample_ids"]
    logged = {s["id"] for s in raw["samples"]}
    never = [i for i in planned if i not in logged]
    assert raw["status"] == "error" and len(planned) == 51 and len(never) == 22
    loaded = load_any(INSPECT / "stopped_part_way.json")
    headline = analyze(loaded.log).headline
    assert headline.never_ran == never
    (line,) = [w for w in loaded.warnings if w.startswith("the eval stopped part-way")]
    assert "29 of 51 samples logged, 22 samples never ran (s30," in line
    assert "the grader's sandbox went away at sample s28" in line
    assert sum(w.startswith("the eval stopped part-way") for w in headline.warnings) == 1
