"""The answers grid: clusters, the route mark of each cell, and the legend of the marks."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.report.answer_grid import answer_grid

SAMPLE_A = Path(__file__).resolve().parents[2] / "sample_runs" / "A_baseline.altk_runs.json"


def test_each_cell_has_its_cluster_and_the_route_that_served_it() -> None:
    a = analyze(load_path(SAMPLE_A).log)
    grid = answer_grid(a, ["shop-002", "shop-001"])
    assert grid.clusters.index.tolist() == ["shop-002", "shop-001"]
    assert grid.clusters.loc["shop-002"].tolist() == [0, 1, 0, 0, 1, 0, 0, 1, 1, 1]
    # shop-002's second answer came on every round served by one backend: answers follow the route
    marks = grid.routes.loc["shop-002"].tolist()
    assert marks == ["R2", "R3", "R1", "R1", "R3", "R1", "R1", "R3", "R3", "R3"]
    rows = a.results[a.results["task_id"] == "shop-002"].sort_values("round")
    backends = rows["system_fingerprint"].tolist()
    assert [m == "R3" for m in marks] == [b == backends[1] for b in backends]
    backend = "backend served_model=gpt-4o-mini-2026-01-15 system_fingerprint="
    assert grid.legend == [  # the factors that differ between the routes shown, nothing else
        ("R1", f"key sha256:632207691254, {backend}fp_sim_w7b2"),
        ("R2", f"key sha256:fb926fb9def9, {backend}fp_sim_w7b2"),
        ("R3", f"key sha256:fb926fb9def9, {backend}fp_sim_e4a1"),
        (
            "R9",
            f"key sha256:fb926fb9def9, {backend.replace('2026-01-15', '2026-03-02')}fp_sim_c9c3",
        ),
    ]
    assert grid.answers.loc["shop-002", 2] == rows["answer"].iloc[1]
