"""One task followed across logs: each log's rounds, answers, consistency and cause."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.report.task_history import task_history

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def test_a_task_reads_across_the_logs_that_hold_it() -> None:
    logs = [
        (
            analyze(load_path(SAMPLES / f"{n}.altk_runs.json").log).log.label or n,
            analyze(load_path(SAMPLES / f"{n}.altk_runs.json").log),
        )
        for n in ("A_baseline", "E_agent_tools", "C_pinned")
    ]
    table = task_history(logs, "shop-002")
    assert table["log"].tolist() == ["A", "C"]  # E does not hold it
    a = logs[0][1]
    row = table.iloc[0]
    assert row["rounds"] == 10 and row["clusters"] == 2 and not row["consistent"]
    assert row["cause"] == next(x.cause for x in a.headline.attribution if x.task_id == "shop-002")
    top = a.clusters[a.clusters["task_id"] == "shop-002"].sort_values("size", ascending=False).iloc[0]
    assert row["most common answer"] == top["representative"] and row["its share"] == 0.5
