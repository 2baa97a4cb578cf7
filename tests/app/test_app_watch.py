"""The Watch a run page on a real `rerunlens run` in a subprocess: live progress, then the finished log."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from app_kit import MAIN, assert_clean, plain, shown_figures, wait_for
from run_kit import journal_of, start_cli_run
from streamlit.testing.v1 import AppTest

from analyzer.log.loader import load_path
from app import log_folders


def metrics(at: AppTest) -> dict[str, str]:
    return shown_figures(at)


def test_a_cli_run_is_followed_live_and_opens_when_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(tmp_path / "runs"))
    proc, out = start_cli_run(tmp_path)
    try:
        deadline = time.monotonic() + 60
        while not journal_of(out).exists():
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)
        at = AppTest.from_file(str(MAIN), default_timeout=60).run()
        at.switch_page("views/watch.py").run()
        assert_clean(at)
        assert at.selectbox(key="watch.journal").value == str(journal_of(out))
        wait_for(at, lambda a: 0 < int(metrics(a)["Results"].split(" / ")[0]) < 60, timeout=60)
        assert metrics(at)["Results"].endswith(" / 60")
        assert any("tasks started have given different answers so far" in c.value for c in at.caption)
        table = at.dataframe[0].value
        assert table["rounds_done"].sum() == int(metrics(at)["Results"].split(" / ")[0])
    finally:
        proc.communicate(timeout=120)
    assert proc.returncode == 0

    at.text_input(key="watch.path").input(str(out)).run()  # the journal is gone: the log is read
    assert_clean(at)
    log = load_path(out).log
    assert metrics(at)["Results"] == "60 / 60"
    assert metrics(at)["Tokens"] == f"{sum(r.total_tokens or 0 for _, r in log.results()):,}"
    assert any(plain(s.value).startswith(f"Finished: {out} is written") for s in at.success)
    at.button(key="watch.open").click().run()
    assert_clean(at)
    assert out.name in at.query_params["log"]
