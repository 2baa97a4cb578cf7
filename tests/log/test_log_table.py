"""The log table's derived columns, read the fast way, equal what the result objects say.

A fast load keeps retries, the `actions` signature and the tool calls' tokens as columns built
with whole-array code and caches; each is checked here against a plain computation on the result
objects of the same log (the pydantic reader's).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from analyzer.errors import LogError
from analyzer.log.call_tokens import call_token
from analyzer.log.loader import load_bytes
from analyzer.log.model import RunLog, ToolCallStep
from analyzer.log.table import log_table
from analyzer.metrics.answers import action_signature

ARGUMENTS: list[Any] = [
    {"q": "desk", "limit": 5},
    '{"limit": 5, "q": "desk"}',  # the same call, sent as JSON text
    "not json",
    {"say": 'he wrote "k": v', "path": "C:\\temp\\"},  # quotes and a trailing backslash in values
    {"key\\": 1},  # a key ending in a backslash: the cheap key count is unsure, the walk decides
    {"nested": {"a": [{"b": 1}, {}], "é": "ü"}},
    None,
]


def _random_log(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    rounds: list[list[dict[str, Any]]] = [[] for _ in range(4)]
    for task in range(40):
        for rnd in rounds:
            result: dict[str, Any] = {"task_id": f"t{task}", "answer": "x"}
            if rng.random() < 0.8:
                result["attempts"] = [
                    {
                        "attempt": a,
                        "outcome": "ok",
                        **({"retry": rng.randint(0, 2)} if rng.random() < 0.7 else {}),
                    }
                    for a in range(rng.randint(0, 3))
                ]
            if rng.random() < 0.7:
                steps: list[dict[str, Any]] = []
                for _ in range(rng.randint(0, 6)):
                    name = rng.choice(["search", "open"])
                    steps.append({"type": "tool_call", "name": name, "arguments": rng.choice(ARGUMENTS)})
                    steps.append({"type": "message", "role": "tool", "content": "ok"})
                result["trajectory"] = steps
            rnd.append(result)
    return {"format": "altk-runs/2", "runs": rounds}


def _plain_retries(attempts: list[Any] | None) -> int | None:
    """Retries as the model's own `Result.retries` defines them, None without attempts."""
    if attempts is None:
        return None
    if attempts and all(a.retry is not None for a in attempts):
        return sum(1 for a in attempts if a.retry)
    return max(len(attempts) - 1, 0)


def test_fast_columns_equal_the_result_objects() -> None:
    for seed in range(5):
        raw = json.dumps(_random_log(seed)).encode()
        loaded = load_bytes(raw, "random.json").log
        assert loaded._table is not None  # read the fast way
        table = log_table(loaded)  # the fast reader's columns
        objects = RunLog.model_validate_json(raw)  # the pydantic reader's objects
        results = [r for rnd in objects.runs for r in rnd]
        assert table.results["n_retries"] == [_plain_retries(r.attempts) for r in results]
        assert table.results["actions"] == [action_signature(r.trajectory) for r in results]
        expected_calls = [
            None
            if r.trajectory is None
            else tuple(
                (s.name, call_token(s.name, s.arguments)) for s in r.trajectory if isinstance(s, ToolCallStep)
            )
            for r in results
        ]
        assert table.results["tool_calls"] == expected_calls
        assert any(c for c in expected_calls)  # the random logs do record calls


def test_a_repeated_key_inside_a_trajectory_is_still_found() -> None:
    log = _random_log(1)
    text = json.dumps(log).replace('"q": "desk"', '"q": "desk", "q": "chair"', 1)
    with pytest.raises(LogError, match=r'^dup\.json: duplicate key "q" at line 1 column \d+'):
        load_bytes(text.encode(), "dup.json")
