"""The History view on a runs folder of eight nightly logs where the base URL moved at the fifth: the
first sentence names the change, the heat-map marks it, the figures open over the runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app_kit import MAIN, assert_clean, plain, shown_tables
from history_kit import Nightly
from streamlit.testing.v1 import AppTest

from app import log_folders


def _story(task: str, run: int, r: int) -> bool:
    return {"breaks": run < 4, "fixed": run >= 4, "alternates": run % 2 == 0}.get(task, True)


def test_the_history_view_states_the_change_and_marks_it_on_the_heat_map(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "runs"
    Nightly(
        ["breaks", "fixed", "alternates", *[f"steady-{i}" for i in range(5)]],
        _story,
        base_url=lambda run: "https://api.openai.com/v1" if run < 4 else "https://gateway.example/v1",
    ).save(folder)
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(folder))
    monkeypatch.delenv("RERUNLENS_DB_URL", raising=False)
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.run()
    at.switch_page("views/history.py").run()
    assert_clean(at)
    assert [t.value for t in at.title] == ["History"]
    assert plain(at.markdown[0].value) == (
        "**1 task regressed and 1 fixed at nightly-05, when the base URL changed from "
        "https://api.openai.com/v1 to https://gateway.example/v1.**"
    )
    [heat] = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    assert heat["data"][0]["type"] == "heatmap"
    assert heat["data"][0]["y"][:3] == ["breaks", "fixed", "alternates"]  # moved tasks first
    assert [a["text"] for a in heat["layout"]["annotations"]] == ["nightly-05"]
    [moved] = shown_tables(at)
    assert dict(zip(moved["task"], moved["label"], strict=True)) == {
        "alternates": "flaky",
        "breaks": "regressed since nightly-05",
        "fixed": "fixed since nightly-05",
    }
    at.session_state["history_figures"] = True
    at.run()
    assert_clean(at)
    charts = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    assert len(charts) == 2
    names = [trace.get("name") for trace in charts[1]["data"]]
    assert "95 % interval" in names and "trend (Theil-Sen)" in names
    assert (folder / "rerunlens-history.sqlite3").is_file()


def test_the_history_view_says_why_there_is_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(tmp_path / "empty"))
    monkeypatch.delenv("RERUNLENS_DB_URL", raising=False)
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.run()
    at.switch_page("views/history.py").run()
    assert_clean(at)
    assert "No history yet" in plain(at.info[0].value)
