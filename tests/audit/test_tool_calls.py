"""Tool-call checks: valid JSON, a declared tool, arguments on its JSON Schema (jsonschema)."""

from __future__ import annotations

from analyzer.audit.tool_calls import _check, _validator, fisher_lower

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city"],
    "additionalProperties": False,
}


def test_each_kind_of_broken_call_is_told_apart() -> None:
    tools = {"get_weather": _validator(WEATHER)}
    assert _check("get_weather", '{"city": "Lisbon", "days": 2}', tools) == (True, True, True)
    assert _check("get_weather", '{"city": "Lisbon"', tools) == (False, True, False)
    assert _check("get_forecast", '{"city": "Lisbon"}', tools) == (True, False, False)
    assert _check("get_weather", '{"days": 0}', tools) == (True, True, False)
    assert _check("get_weather", '{"city": "Lisbon", "extra": 1}', tools) == (True, True, False)


def test_a_tool_whose_schema_is_broken_matches_no_call() -> None:
    tools = {"t": _validator({"type": "no-such-type"})}
    assert _check("t", "{}", tools) == (True, True, False)


def test_fisher_one_sided_tail() -> None:
    # 10 of 10 valid against 5 of 10: P(candidate <= 5 | 15 valid of 20) = C(15,5)C(5,5)/C(20,10)
    assert abs(fisher_lower(10, 10, 5, 10) - 3003 / 184756) < 1e-12
    assert fisher_lower(5, 10, 10, 10) == 1.0
