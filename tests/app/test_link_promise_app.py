"""A link does exactly what it says: Overview's "Re-run the 2 inconclusive tasks" opens Re-run with
those two tasks ticked, not every flagged one, and the plan beside the button is theirs."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

import app_kit
import pytest
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.report.finding import finding
from analyzer.verdicts.default_rerun import default_rerun

SAMPLE_A = "A_baseline.altk_runs.json"


def test_the_inconclusive_link_ticks_exactly_its_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    monkeypatch.setenv("RERUNLENS_ALLOW_REMOTE_RUNS", "1")
    undecided = finding(analyze(load_path(runs / SAMPLE_A).log).report()).undecided_ids()
    assert len(undecided) == 2

    at = app_kit.open_view("views/overview.py", SAMPLE_A, "Overview")
    [link] = [x for x in at.get("page_link") if x.proto.label.startswith("Re-run the")]
    assert link.proto.label.startswith("Re-run the 2 inconclusive tasks")
    query = parse_qs(link.proto.query_string)
    assert query == {"rerun": undecided}

    rerun = AppTest.from_file(str(app_kit.MAIN), default_timeout=60)
    rerun.query_params.update({"log": [SAMPLE_A], **query})
    rerun.run()
    rerun.switch_page("views/rerun.py").run()
    app_kit.assert_clean(rerun)
    assert rerun.radio(key="rerun.selection").value == "pick"
    assert rerun.button(key="rerun.start").label.startswith("Re-run 2 tasks x ")
    plan = next(df.value for df in rerun.dataframe if "needs" in df.value.columns)  # beside the button
    planned = default_rerun(analyze(load_path(runs / SAMPLE_A).log), undecided)  # the CLI's `--only` plan
    assert dict(zip(plan["task_id"], plan["rounds"].astype(int), strict=True)) == planned.rounds()
