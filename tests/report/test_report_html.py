"""The HTML report: self-contained, escaped, and showing the figures (and intervals) a reader needs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.cli.main import main
from analyzer.importers import load_any
from analyzer.log.loader import load_path
from analyzer.metrics.attribution import attribution_caption
from analyzer.metrics.route_factors import side_counts
from analyzer.report.html import ReportEntry, _interval, esc, render_report_html

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_A = ROOT / "sample_runs" / "A_baseline.altk_runs.json"
FORMAT1 = ROOT / "sample_runs" / "format1_plain_script.json"


def entry(path: Path, label: str | None = None) -> ReportEntry:
    log = load_path(path).log
    return ReportEntry(label or log.display_label(path.stem), str(path), analyze(log))


def test_the_report_is_one_file_that_fetches_nothing() -> None:
    page = render_report_html([entry(SAMPLE_A)])
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)  # nothing loaded from outside
    assert "Plotly.newPlot" in page and page.count("Plotly.newPlot") == 2  # both charts, drawn inline


def test_figures_flagged_tasks_clusters_retries_and_drift_are_shown() -> None:
    a = analyze(load_path(SAMPLE_A).log)
    page = render_report_html([ReportEntry("A", "A.json", a)])
    h = a.headline
    assert f"{h.answer_gap_pp:.1f} pp" in page  # 46.7 pp: 14 of 30 tasks inconsistent
    assert "46.7 pp" in page
    assert f"Flagged tasks ({len(h.flagged)})" in page
    assert "Answer clusters of the 14 inconsistent tasks" in page
    assert f"{h.retries.attempts_total} HTTP attempts; {h.retries.extra_attempts} retries" in page
    assert "Route drift" in page and "fields that changed: key" in page and "key_fingerprint" not in page


def test_every_label_and_answer_is_escaped() -> None:
    log = json.loads(FORMAT1.read_text(encoding="utf-8"))
    log["runs"][0][0]["answer"] = "<img src=x onerror=alert(1)>"
    log["runs"][1][0]["answer"] = "<b>other</b>"
    path_label = "<script>alert('label')</script>"
    a = analyze(load_path(FORMAT1).log.model_validate(log))
    page = render_report_html([ReportEntry(path_label, "x.json", a)])
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<script>alert(" not in page and "&lt;script&gt;alert(&#x27;label&#x27;)" in page


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ([21.5, 63.25], "95 % CI 21.5–63.2"),
        ({"low": 0.2, "high": 0.6, "level": 0.9}, "90 % CI 0.2–0.6"),
        (None, ""),
    ],
)
def test_an_interval_is_shown_when_the_analysis_has_one(value: object, shown: str) -> None:
    assert _interval({"answer_gap_pp": 40.0, "answer_gap_ci": value}, "answer_gap", "pp") == shown


def test_the_analyzers_intervals_are_shown_beside_their_figures() -> None:
    a = analyze(load_path(SAMPLE_A).log)
    report = a.report()
    page = render_report_html([ReportEntry("A", "A.json", a)])
    low, high = report["answer_gap_ci"]
    assert f"95 % CI {low:.1f}–{high:.1f}" in page
    low, high = report["outcome"]["outcome_gap_ci"]
    assert f"95 % CI {low:.1f}–{high:.1f}" in page
    low, high = report["answer_consistency_rate_ci"]
    assert f"95 % CI {100 * low:.1f}–{100 * high:.1f}" in page


def test_report_command_writes_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.html"
    code = main(["report", str(SAMPLE_A), str(FORMAT1), "--label", "A", "--label", "plain", "-o", str(out)])
    assert code == 0
    assert f"wrote {out} (2 logs" in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    assert "Side by side" in page and ">plain</h2>" in page and ">A</h2>" in page
    assert main(["report", str(SAMPLE_A), "--label", "a", "--label", "b", "-o", str(out)]) == 2


def test_no_answer_is_a_figure() -> None:
    path = ROOT / "tests" / "fixtures" / "foreign" / "inspect_ai" / "versions_0.3.100.json"
    page = render_report_html([ReportEntry("old", str(path), analyze(load_any(path).log))])
    assert "<div class='l'>No answer</div><div class='v'>1</div>" in page


def test_mean_score_is_a_figure_with_its_interval() -> None:
    path = ROOT / "tests" / "fixtures" / "foreign" / "inspect_ai" / "scores_0.3.285.json"
    page = render_report_html([ReportEntry("f1", str(path), analyze(load_any(path).log))])
    assert "<div class='l'>Mean score</div><div class='v'>0.618</div>" in page
    assert "95 % CI 0.139–0.942" in page


def test_the_route_or_model_section_carries_the_shared_counts_and_each_tasks_test() -> None:
    a = analyze(load_path(SAMPLE_A).log)
    page = render_report_html([ReportEntry("A", "A.json", a)])
    items = a.headline.attribution
    assert "<h3>Route or model, from the log</h3>" in page
    assert " · ".join(f"<b>{n}</b> {c}" for c, n in side_counts(items).items()) in page
    assert esc(attribution_caption(items)) in page
    first = items[0]
    assert f"<td>{esc(first.task_id)}</td><td>{first.cause}</td>" in page
    assert f"<td>{first.p_value:.3g}</td><td>{first.q_value:.3g}</td>" in page
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)  # still offline
