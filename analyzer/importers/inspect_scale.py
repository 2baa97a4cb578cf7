"""The scale of an Inspect log's headline score, read from the log itself.

Inspect's letter grades (C/I/P/N) and booleans are pass/fail; numbers in [0, 1] are taken as a
share (an F1, a partial credit), passed at the score threshold as before. A scorer whose values
go beyond [0, 1] (`model_graded_fact` with a `GRADE: (\\d+)` pattern grading 0-10: its values are
the digits as text, and Inspect's `accuracy` takes their mean through `value_to_float`) is a
rubric: there is no pass mark in the log, so no pass/fail is derived and only the mean is shown.
"""

from __future__ import annotations

from typing import Any

from analyzer.importers.common import member_obj


def numeric_value(value: Any) -> float | None:
    """A score value as a number: a number, or text that is one (`"7"`); None for letters, booleans,
    lists and objects."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and value.strip() not in ("C", "I", "P", "N"):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def rubric_scale(log: dict[str, Any], samples: list[Any], scorer: str | None) -> dict[str, Any] | None:
    """`{"scorer", "metric", "low", "high", "pass_fail": False, "phrase"}` for a rubric, else None."""
    values = []
    for sample in samples:
        scores = sample.get("scores") if isinstance(sample, dict) else None
        if not isinstance(scores, dict) or not scores:
            continue
        name = scorer if scorer in scores else next(iter(scores))
        score = scores[name]
        value = numeric_value(score.get("value")) if isinstance(score, dict) else None
        if value is not None:
            values.append(value)
    if not values or all(0.0 <= v <= 1.0 for v in values):
        return None
    headline = member_obj(member_obj(log, "results"), "headline")
    metric = headline.get("metric") if isinstance(headline.get("metric"), str) else None
    low, high = min(values), max(values)
    return {
        "scorer": scorer,
        "metric": metric,
        "low": low,
        "high": high,
        "pass_fail": False,
        "phrase": f"{scorer or 'the scorer'}'s grades, {low:g} to {high:g} seen",
    }
