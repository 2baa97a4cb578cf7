"""The log's verdicts, p and q are the same as before the analysis was made faster.

`tests/fixtures/attribution/expected.json` was written by the code before the change (see its README):
every inconsistent task of the shipped samples and of a generated 1,500-task log with route causes.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.importers import load_any
from analyzer.log.loader import load_bytes
from scripts.bench_analyzer import make_log

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = json.loads((ROOT / "tests" / "fixtures" / "attribution" / "expected.json").read_text())
GENERATED = "generated 1500x10 mixed"


def _rows(path_or_bytes: Path | bytes) -> list[list[object]]:
    loaded = load_bytes(path_or_bytes) if isinstance(path_or_bytes, bytes) else load_any(path_or_bytes)
    attribution = analyze(loaded.log, "exact").headline.attribution
    return [[a.task_id, a.cause, a.factor, a.p_value, a.q_value] for a in attribution]


def _same(got: list[list[object]], want: list[list[object]]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g[:3] == w[:3], (g, w)
        for a, b in zip(g[3:], w[3:], strict=True):
            assert (a is None and b is None) or math.isclose(a, b, rel_tol=1e-9), (g, w)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", [n for n in EXPECTED if n != GENERATED])
def test_every_sample_task_keeps_its_cause_p_and_q(name: str) -> None:
    _same(_rows(ROOT / "sample_runs" / name), EXPECTED[name])


def test_a_generated_log_with_route_causes_keeps_every_task_s_cause_p_and_q() -> None:
    got = _rows(json.dumps(make_log(1500, 10, mixed=True)).encode())
    causes = {row[1] for row in got}
    assert {"route", "both", "model", "inconclusive"} <= causes  # the log exercises every call
    _same(got, EXPECTED[GENERATED])
