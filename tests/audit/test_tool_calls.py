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


def test_the_ledger_interval_covers_a_known_billing_factor() -> None:
    import numpy as np

    from analyzer.audit.ledger import sum_ratio, t_quantile

    assert t_quantile(4) == 2.776 and t_quantile(4.7) == 2.776
    assert abs(t_quantile(10) - 2.228) < 0.001 and abs(t_quantile(29) - 2.045) < 0.001
    rng = np.random.default_rng(1)
    hits = 0
    for _ in range(1000):
        counted = rng.integers(5, 200, size=25).astype(np.float64) * 10
        reported = counted * 1.1 * np.exp(rng.normal(0, 0.1, size=25))
        r = sum_ratio(reported, counted, np.arange(25))
        assert r.interval is not None
        hits += r.interval[0] <= 1.1 * np.exp(0.005) <= r.interval[1]
    assert hits >= 930  # stated 95 %; 1,000 draws give about +-14 around the true coverage
