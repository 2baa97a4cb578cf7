"""What a log does not record reads "not recorded" on every page and report, never 0: real logs of
tau-bench (no attempts, no key or base URL) and tau2-bench (one round), beside a sample that records
them all, whose figures stay counts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from app_kit import MAIN, ROOT, SAMPLES, plain, shown_figures
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.importers import load_any
from analyzer.report.html import ReportEntry, render_report_html
from analyzer.report.text import render_report
from app import log_folders

FOREIGN = ROOT / "tests" / "fixtures" / "foreign"
TAU = "tau_bench/gpt-4o-airline.excerpt.json"
TAU2_ONE_ROUND = "tau2_bench/airline_run1.excerpt.json"
SAMPLE_A = "A_baseline.altk_runs.json"


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "runs"
    shutil.copytree(FOREIGN, folder)
    shutil.copy(SAMPLES / SAMPLE_A, folder / SAMPLE_A)
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(folder))
    return folder


def _open(name: str, view: str = "overview") -> AppTest:
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params["log"] = name
    at.run()
    at.switch_page(f"views/{view}.py").run()
    assert not at.exception and not at.error
    return at


def test_a_log_without_attempts_or_routes_shows_not_recorded(runs: Path) -> None:
    overview = _open(TAU)
    shown = shown_figures(overview)
    assert shown["Drifted tasks"] == "not recorded"
    assert shown["Inconsistent tasks"] == "5"  # what the log records stays a count
    assert any("retries not recorded" in plain(c.value) for c in overview.caption)

    routes = _open(TAU, "routes")
    assert shown_figures(routes)["Drifted tasks"] == "not recorded"
    texts = [t.value for t in routes.text]
    assert not any("No task changed" in t for t in texts)
    assert any(t.startswith("Drifted tasks not recorded: 5 of 5 tasks record no key") for t in texts)

    retries = shown_figures(_open(TAU, "retries"))
    assert retries["Retries"] == retries["HTTP attempts"] == retries["Results retried"] == "not recorded"


def test_the_reports_and_json_say_the_same(runs: Path) -> None:
    analysis = analyze(load_any(runs / TAU).log)
    report = json.loads(json.dumps(analysis.report()))
    assert report["retries"]["extra_attempts"] is None and report["route"]["drifted_count"] is None
    page = render_report_html([ReportEntry("tau", TAU, analysis)])
    assert "<div class='l'>Retries</div><div class='v'>not recorded</div>" in page
    assert "Drifted tasks not recorded" in page and "0 tasks drifted" not in page
    assert "no HTTP attempts recorded" in render_report(analysis, TAU)


def test_a_one_round_log_has_no_outcome_gap(runs: Path) -> None:
    shown = shown_figures(_open(TAU2_ONE_ROUND))
    assert shown["Outcome gap"] == "not recorded"
    analysis = analyze(load_any(runs / TAU2_ONE_ROUND).log)
    assert analysis.headline.outcome is not None and analysis.headline.outcome.outcome_gap_pp is None
    text = render_report(analysis, TAU2_ONE_ROUND)
    assert "outcome gap not recorded" in text and "0.0 pp (95 % CI 0.0" not in text
    assert "<div class='v'>not recorded</div>" in render_report_html([ReportEntry("t", "t", analysis)])


def test_a_log_that_records_them_keeps_its_counts(runs: Path) -> None:
    h = analyze(load_any(runs / SAMPLE_A).log).headline
    shown = shown_figures(_open(SAMPLE_A))
    assert shown["Drifted tasks"] == f"{h.route.drifted_count:,}" and h.route.drifted_count
    assert shown["Outcome gap"] != "not recorded"
    assert shown_figures(_open(SAMPLE_A, "retries"))["Retries"] == f"{h.retries.extra_attempts:,}"


def test_a_graded_log_of_another_tool_leads_with_its_outcome(runs: Path) -> None:
    overview = _open(TAU)
    heading = plain(overview.markdown[0].value)
    outcome = analyze(load_any(runs / TAU).log).headline.outcome
    assert outcome is not None
    assert heading.startswith(f"#### Pass^{outcome.n} 20.0 % (95 % CI ")  # tau-bench's own pass^k
    assert "mean reward 0.500" in heading
    answers = [plain(m.value) for m in overview.markdown if "tasks disagree" in m.value]
    assert answers and "have no measured cause: their rounds record no key or base URL" in answers[0]
    assert "were not measured" not in " ".join(answers)
