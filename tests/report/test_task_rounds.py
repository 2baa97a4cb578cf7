"""One task's rounds: the route fields that changed as columns, the ones every round shared once."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.report.task_rounds import round_table

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "app" / "drift_v2.json"


def test_fields_that_vary_are_columns_and_the_rest_are_said_once() -> None:
    a = analyze(load_path(FIXTURE).log)
    same = round_table(a.results, "html")
    assert same.shared["key"] == "sha256:1a2b3c4d5e6f"
    assert "base_url" not in same.rows.columns and len(same.rows) == 5
    drifted = round_table(a.results, "refund")
    refund = a.results[a.results["task_id"] == "refund"]
    varying = [c for c in ("key_fingerprint", "base_url", "system_fingerprint") if refund[c].nunique() > 1]
    assert varying  # this task's route changed between rounds
    assert set(varying) <= set(drifted.rows.columns)
    assert not set(varying) & {k for k in drifted.shared}
