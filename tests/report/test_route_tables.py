"""The Routes page's tables: human headers, only the fields that tell routes apart."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis import analyze
from analyzer.log.field_labels import field_label as label
from analyzer.log.loader import load_path
from analyzer.report.route_tables import drift_by_field, route_tuples

SAMPLE_A = Path(__file__).resolve().parents[2] / "sample_runs" / "A_baseline.altk_runs.json"


def test_route_tuples_keep_what_differs_and_say_the_rest_once() -> None:
    a = analyze(load_path(SAMPLE_A).log)
    table = route_tuples(a.routes)
    assert list(table.rows.columns) == ["key", "results", "HTTP attempts"]  # two keys, all else shared
    assert table.shared["base URL"] == "http://127.0.0.1:8765/v1"
    assert table.shared["model"] == "gpt-4o-mini"
    assert "seed" not in table.shared  # never sent: not a shared value
    assert table.rows["results"].sum() == a.headline.results


def test_a_single_route_comes_as_its_fields_down_the_page() -> None:
    c = analyze(load_path(SAMPLE_A.with_name("C_pinned.altk_runs.json")).log)
    (route,) = c.routes.to_dict("records")
    table = route_tuples(c.routes)
    assert list(table.rows.columns) == ["field", "value"] and not table.shared
    shown = dict(table.rows.values.tolist())
    assert list(shown) == [label(f) for f in route] and shown["key"] == route["key_fingerprint"]
    assert shown["results"] == route["results"]


def test_drift_by_field_lists_each_changed_fields_values_per_task() -> None:
    a = analyze(load_path(SAMPLE_A).log)
    drift = drift_by_field(a)
    assert drift["task"].tolist() == a.headline.route.drifted_tasks
    assert set(drift.columns) <= {"task", *[label(f) for f in a.headline.route.drifted_fields]}
    assert list(drift.columns) == ["task", "key", "served model", "backend"]
    assert drift["served model"].astype(bool).any()  # a column is kept only when some task saw two
    first = drift.iloc[0]
    assert sorted(first["key"].split(", ")) == sorted(a.routes["key_fingerprint"].tolist())
