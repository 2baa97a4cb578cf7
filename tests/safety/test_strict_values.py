"""Values in logs are strict: `1`, `"yes"`, `"true"` are not `true`; `"5"` is not a count; a key that
appears twice in one object is refused in every JSON format (the last one would win silently)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.errors import RerunLensError
from analyzer.importers import load_any, load_any_bytes

PINNED = Path("tests/fixtures/app/pinned_v2.json")
TAU = Path("tests/fixtures/foreign/tau_bench/gpt-4o-airline.excerpt.json")
INSPECT = Path("tests/fixtures/foreign/inspect_ai/mock_epochs.json")


def _refused(data: bytes, name: str, *words: str) -> str:
    with pytest.raises(RerunLensError) as refused:
        load_any_bytes(data, name)
    message = str(refused.value)
    assert "\n" not in message and all(w in message for w in words), message
    return message


@pytest.mark.parametrize("value", ["1", '"yes"', '"true"', '"on"', "0"])
def test_a_success_that_is_not_true_or_false_is_refused(value: str) -> None:
    text = PINNED.read_text().replace('"success": true', f'"success": {value}', 1)
    _refused(text.encode(), "lax.json", "success")


@pytest.mark.parametrize("value", ['"yes"', "1"])
def test_a_route_simulator_flag_that_is_not_a_boolean_is_refused(value: str) -> None:
    raw = json.loads(PINNED.read_text())
    raw.setdefault("route", {})["simulator"] = json.loads(value)
    _refused(json.dumps(raw).encode(), "lax.json", "simulator")


def test_a_count_that_is_a_string_is_refused() -> None:
    raw = json.loads(PINNED.read_text())
    raw["runs"][0][0]["total_tokens"] = "12"
    _refused(json.dumps(raw).encode(), "lax.json", "total_tokens")


def test_the_strict_log_still_loads() -> None:
    assert load_any(PINNED).log.runs


@pytest.mark.parametrize(("path", "field"), [(TAU, '"reward"'), (INSPECT, '"status"'), (PINNED, '"task_id"')])
def test_a_key_twice_in_one_object_is_refused_in_every_format(path: Path, field: str) -> None:
    text = path.read_text()
    assert field in text
    doubled = text.replace(field, f"{field}: null, {field}", 1)
    _refused(doubled.encode(), path.name, "duplicate key")
    load_any_bytes(text.encode(), path.name)  # the same file without the repeat loads
