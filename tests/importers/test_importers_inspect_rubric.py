"""An Inspect log graded on a 0-10 rubric (`model_graded_fact` with `GRADE: (\\d+)`), written by
inspect-ai 0.3.285 (tests/fixtures/foreign/inspect_ai/SOURCE.md, `graded_0_10.json`).

Inspect's own figure is its `accuracy` metric: the mean of `value_to_float(value)` over samples
(inspect_ai/scorer/_metrics/accuracy.py lines 29-38), where a numeric string such as "7" is
`float("7")` (inspect_ai/scorer/_metric.py lines 315-337): a mean grade, not a share passed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.importers import load_any
from analyzer.report.text import outcome_section

INSPECT = Path(__file__).parents[1] / "fixtures" / "foreign" / "inspect_ai"
GRADED = INSPECT / "graded_0_10.json"


def _inspect_accuracy(log: dict) -> float:
    """Inspect's accuracy(): the mean of value_to_float over the scored samples."""
    values = [float(s["scores"]["model_graded_fact"]["value"]) for s in log["samples"]]
    return sum(values) / len(values)


def test_a_0_10_rubric_is_no_pass_fail_and_its_mean_is_inspects_figure() -> None:
    raw = json.loads(GRADED.read_text(encoding="utf-8"))
    own = raw["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    assert _inspect_accuracy(raw) == pytest.approx(own)
    assert own == pytest.approx(6.0)  # grades 7, 10, 6 and 1
    loaded = load_any(GRADED)
    h = analyze(loaded.log).headline
    assert h.outcome is None  # a grade of 1 of 10 is no pass, nor is a 6: no Mean@n, no Pass^k
    assert h.score is not None
    assert h.score.mean == pytest.approx(own)
    assert h.score.name == "grade" and h.score.scale == [1.0, 10.0]
    assert h.score.no_pass_fail == "model_graded_fact's grades, 1 to 10 seen"
    assert loaded.log.imported_from["score_scale"]["metric"] == "accuracy"
    lines = outcome_section(h)
    assert lines[0].startswith("Outcome: no pass/fail in model_graded_fact's grades, 1 to 10 seen")
    assert not any("mean@" in line or "pass^" in line for line in lines)
    assert any("no pass/fail is derived" in w for w in loaded.warnings)


def test_scores_within_0_1_still_pass_at_the_threshold() -> None:
    log = load_any(INSPECT / "scores_0.3.285.json").log
    assert "score_scale" not in log.imported_from
    assert analyze(log).headline.outcome is not None
