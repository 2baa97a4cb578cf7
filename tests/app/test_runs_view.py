"""The Runs page: every log as a row (label, date, tasks x rounds, headline, parent), and ticked rows
opened with one button."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_kit import assert_clean, open_view, sample_runs

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.report.runs_table import ListedLog, headline, runs_table


def test_the_runs_table_lists_every_log_and_opens_the_ticked_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = sample_runs(tmp_path, monkeypatch, logs_only=True)
    at = open_view("views/runs.py", "A_baseline.altk_runs.json", "Runs")
    table = at.dataframe[0].value
    assert at.dataframe[0].proto.column_order == [
        "open",
        "log",
        "where",
        "date",
        "tasks x rounds",
        "headline",
        "parent",
    ]
    a = analyze(load_path(runs / "A_baseline.altk_runs.json").log)
    row = table.set_index("file").loc["A_baseline.altk_runs.json"]
    assert row["log"] == a.log.label and row["tasks x rounds"] == "30 x 10"
    assert row["headline"] == headline(a) == "14 of 30 tasks disagree · gap 46.7 pp"
    assert bool(row["open"]) is True
    # a copy of a sample reads the same label twice: where each lives tells them apart
    wheres = table.set_index("file")["where"]
    assert wheres["A_baseline.altk_runs.json"] == "runs folder"
    assert wheres["sample_runs/A_baseline.altk_runs.json"] == "sample"
    resample = table.set_index("file").loc["E_agent_tools.resample-agent-cheapest-monitor.altk_runs.json"]
    assert resample["parent"] == "resample of E"  # the parent by its short name
    dates = table["date"].dropna()
    assert dates.is_monotonic_decreasing  # newest first
    # tick two rows, one button opens exactly those
    wanted = ["B_one_key.altk_runs.json", "C_pinned.altk_runs.json"]
    rows = [table["file"].tolist().index(w) for w in wanted]
    at.session_state["runs.table"] = {"selection": {"rows": rows, "columns": []}}
    at.run()
    button = at.button(key="runs.open")
    assert button.label == "Open the 2 ticked logs"
    button.click().run()
    assert_clean(at)
    assert sorted(at.query_params["log"]) == wanted
    assert sorted(at.session_state["src.logs"]) == wanted


def test_a_log_that_cannot_be_read_is_a_row_named_by_its_file_with_its_problem() -> None:
    [row] = runs_table([ListedLog("runs/bad.altk_runs.json", None, "bad.altk_runs.json: not JSON")]).to_dict(
        "records"
    )
    assert row["file"] == row["log"] == "runs/bad.altk_runs.json"
    assert row["headline"] == "bad.altk_runs.json: not JSON" and row["tasks x rounds"] == ""
