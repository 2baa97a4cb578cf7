"""The smaller things a reader catches: drift is defined beside the counts, the Tokens histogram's
title says what its axis counts, a warning that comes back is said once with its count, and the
README says the test command needs Node and npm."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import app_kit
import pandas as pd
import pytest
from app_kit import ROOT, plain

from analyzer.analysis import analyze
from analyzer.importers import load_any
from analyzer.report.html import ReportEntry, render_report_html
from analyzer.report.said_once import said_once
from analyzer.report.text import render_report
from app import charts

TAU = ROOT / "tests" / "fixtures" / "foreign" / "tau_bench" / "gpt-4o-airline.excerpt.json"


def test_drift_is_defined_beside_the_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    at = app_kit.open_view("views/overview.py", "A_baseline.altk_runs.json", "Overview")
    captions = [plain(c.value) for c in at.caption]
    assert any(
        c.startswith("Drifted: a task whose own runs did not all go through one route") for c in captions
    )


def test_the_tokens_histogram_title_matches_its_axis() -> None:
    fig = charts.tokens_per_task(pd.DataFrame({"tokens_mean": [10.0, 20.0, 20.0]}))
    assert fig.layout.title.text == "Tasks by their mean tokens per result"
    assert fig.layout.xaxis.title.text == "mean tokens per result"


def test_a_repeated_warning_is_said_once_with_its_count() -> None:
    analysis = analyze(load_any(TAU).log)
    a = replace(analysis, headline=analysis.headline.model_copy(update={"warnings": ["the same thing"] * 20}))
    text = render_report(a, "x")
    assert text.count("the same thing") == 1 and "the same thing (said 20 times)" in text
    page = render_report_html([ReportEntry("x", "x", a)])
    assert page.count("the same thing") == 1 and "the same thing (said 20 times)" in page
    assert said_once(["a", "b", "a"]) == ["a (said 2 times)", "b"]


def test_the_readme_says_the_tests_need_node_and_npm() -> None:
    assert "It needs Node.js and npm on the PATH" in (ROOT / "README.md").read_text()
