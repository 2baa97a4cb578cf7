"""Whatever value a foreign file holds in whatever place, reading it ends in a log or in one
`LogError` line, never in another exception (a traceback on the page or the command line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.errors import LogError
from analyzer.importers import load_any_bytes

FOREIGN = Path(__file__).parents[1] / "fixtures" / "foreign"
FILES = {
    "tau": FOREIGN / "tau_bench" / "gpt-4o-airline.excerpt.json",
    "tau2": FOREIGN / "tau2_bench" / "airline_run1.excerpt.json",
    "inspect": FOREIGN / "inspect_ai" / "mock_epochs.json",
    "promptfoo": FOREIGN / "promptfoo" / "results.json",
    "altk": FOREIGN / "altk_evolve" / "consistency_score_card_7f3a9c21.json",
}
ODD_VALUES = [None, True, -1, 1.5, 10**30, "", "x", [], {}, [1], {"a": 1}]


def _places(value: Any, path: tuple = (), depth: int = 0) -> list[tuple]:
    """Paths to every container member, a few levels deep (enough to reach each result's fields)."""
    out = [path] if path else []
    if depth > 5:
        return out
    if isinstance(value, dict):
        for k, v in value.items():
            out += _places(v, (*path, k), depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value[:2]):
            out += _places(v, (*path, i), depth + 1)
    return out


DATA = {name: json.loads(p.read_text(encoding="utf-8")) for name, p in FILES.items()}
PLACES = [(name, place) for name, data in DATA.items() for place in _places(data)]


def _replaced(data: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[path[0]] = _replaced(data[path[0]], path[1:], value)
    return copy


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PLACES), st.sampled_from(ODD_VALUES))
def test_any_odd_value_anywhere_is_a_log_or_one_line(where: tuple, value: Any) -> None:
    name, path = where
    data = json.dumps(_replaced(DATA[name], path, value)).encode()
    try:
        load_any_bytes(data, f"{name}.json")
    except LogError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(f"{name}.json: ")
