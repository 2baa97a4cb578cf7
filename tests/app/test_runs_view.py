"""The Runs page: every log as a row (label, date, tasks x rounds, headline, parent), and the logs
picked by label opened with one button."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_kit import assert_clean, open_view, sample_runs, shown_tables

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.report.runs_table import ListedLog, headline, runs_table


def test_the_runs_table_lists_every_log_and_opens_the_picked_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = sample_runs(tmp_path, monkeypatch, logs_only=True)
    at = open_view("views/runs.py", "A_baseline.altk_runs.json", "Runs")
    assert not at.dataframe  # read-only HTML: a selectable grid cost the page a third of a bare one
    [table] = shown_tables(at)
    assert table.columns.tolist() == ["open", "log", "where", "date", "tasks x rounds", "headline", "parent"]
    a = analyze(load_path(runs / "A_baseline.altk_runs.json").log)
    label = a.log.label
    assert label is not None
    [row] = table[(table["log"] == label) & (table["where"] == "runs folder")].to_dict("records")
    assert row["tasks x rounds"] == "30 x 10" and row["open"] == "open"
    assert row["headline"] == headline(a) == "14 of 30 tasks disagree · gap 46.7 pp"
    assert row["date"] == a.log.created_at.strftime("%Y-%m-%d %H:%M")  # type: ignore[union-attr]
    # a copy of a sample reads the same label twice: where each lives tells them apart
    [sample] = table[(table["log"] == label) & (table["where"] == "sample")].to_dict("records")
    assert sample["open"] == ""
    resample = table[table["log"].str.startswith("resample of agent-cheapest-monitor")]
    assert resample["parent"].tolist() == ["resample of E"] * 2  # the parent by its short name
    dated = table.loc[table["date"] != "—", "date"]
    assert dated.tolist() == sorted(dated, reverse=True)  # newest first
    assert table["date"].iloc[-1] == "—"  # a log without a date is listed last
    # pick two logs by label, one button opens exactly those
    wanted = ["B_one_key.altk_runs.json", "C_pinned.altk_runs.json"]
    picker = at.multiselect(key="runs.picked")
    assert picker.format_func("B_one_key.altk_runs.json").startswith(
        "B: one key, max_retries 1 · runs folder · "
    )
    assert at.button(key="runs.open").disabled
    picker.set_value(wanted).run()
    button = at.button(key="runs.open")
    assert button.label == "Open the 2 picked logs" and not button.disabled
    button.click().run()
    assert_clean(at)
    assert sorted(at.query_params["log"]) == wanted
    assert sorted(at.session_state["src.logs"]) == wanted
    [table] = shown_tables(at)
    assert sorted(table.loc[table["open"] == "open", "log"]) == sorted(
        load_path(runs / w).log.label or w for w in wanted
    )


def test_a_log_that_cannot_be_read_is_a_row_named_by_its_file_with_its_problem() -> None:
    [row] = runs_table([ListedLog("runs/bad.altk_runs.json", None, "bad.altk_runs.json: not JSON")]).to_dict(
        "records"
    )
    assert row["file"] == row["log"] == "runs/bad.altk_runs.json"
    assert row["headline"] == "bad.altk_runs.json: not JSON" and row["tasks x rounds"] == ""
