"""Property tests: any valid log loads, survives a save-load round trip, and bad numbers never pass."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.errors import LogError
from analyzer.log.loader import load_bytes, load_path, save_log

task_ids = st.one_of(st.integers(min_value=-5, max_value=10**6), st.text(min_size=1, max_size=12))
tokens = st.one_of(st.none(), st.integers(min_value=0, max_value=10**6))
results = st.fixed_dictionaries(
    {
        "task_id": task_ids,
        "answer": st.one_of(st.none(), st.text(max_size=40)),
        "prompt_tokens": tokens,
        "completion_tokens": tokens,
        "total_tokens": tokens,
    },
    optional={
        "success": st.booleans(),
        "score": st.floats(allow_nan=False, allow_infinity=False),
        "latency_ms": st.floats(min_value=0, max_value=1e7),
        "status": st.sampled_from(["ok", "error"]),
        "attempts": st.lists(
            st.fixed_dictionaries(
                {
                    "attempt": st.integers(min_value=0, max_value=9),
                    "outcome": st.sampled_from(["ok", "rate_limited", "timeout", "server_error"]),
                    "status_code": st.one_of(st.none(), st.sampled_from([200, 429, 500])),
                }
            ),
            max_size=3,
        ),
    },
)
logs = st.fixed_dictionaries(
    {"runs": st.lists(st.lists(results, max_size=6), min_size=1, max_size=5).filter(lambda r: any(r))},
    optional={
        "summary": st.fixed_dictionaries(
            {"repeat": st.integers(0, 20), "consistency_gap_pp": st.floats(0, 100)}
        )
    },
)


@settings(max_examples=60, deadline=None)
@given(logs)
def test_any_valid_log_loads_and_round_trips(raw: dict) -> None:
    loaded = load_bytes(json.dumps(raw).encode(), "gen.json")
    assert sum(len(r) for r in loaded.log.runs) == sum(len(r) for r in raw["runs"])
    with tempfile.TemporaryDirectory() as tmp:
        again = load_path(save_log(loaded.log, Path(tmp) / "out.json")).log
    assert again == loaded.log


@settings(max_examples=40, deadline=None)
@given(
    logs, st.sampled_from(["prompt_tokens", "completion_tokens", "total_tokens"]), st.integers(max_value=-1)
)
def test_negative_tokens_always_named(raw: dict, field: str, value: int) -> None:
    round_index = next(i for i, r in enumerate(raw["runs"]) if r)
    raw["runs"][round_index][0][field] = value
    try:
        load_bytes(json.dumps(raw).encode(), "gen.json")
    except LogError as exc:
        assert f"runs[{round_index}][0].{field}: must not be negative" in str(exc)
    else:
        raise AssertionError("a negative token count loaded")
