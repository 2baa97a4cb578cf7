"""Another tool's log may hold a key (in the base URL it records, or quoted in an error): an import
keeps none of it, and no report of the imported log shows it (only the URL's host and a mask)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_keys import SHOWN_KEY

from analyzer.analysis import analyze
from analyzer.importers import import_to_file, load_any
from analyzer.report.html import ReportEntry, render_report_html
from analyzer.report.text import render_report

FOREIGN = Path(__file__).resolve().parents[1] / "fixtures" / "foreign"


def _inspect_with_a_key_in_its_url(tmp_path: Path) -> Path:
    log = json.loads((FOREIGN / "inspect_ai" / "mock_epochs.json").read_text(encoding="utf-8"))
    log["eval"]["model_base_url"] = f"https://user:{SHOWN_KEY}@gw.example.com/v1?api-key={SHOWN_KEY}"
    path = tmp_path / "inspect_keyurl.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def _tau_with_a_key_in_an_error(tmp_path: Path) -> Path:
    log = json.loads((FOREIGN / "tau_bench" / "gpt-4o-airline.excerpt.json").read_text(encoding="utf-8"))
    log[0]["info"]["error"] = f"openai.AuthenticationError: Incorrect API key provided: {SHOWN_KEY}"
    path = tmp_path / "tau_errkey.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def _everything_shown(path: Path) -> list[str]:
    loaded = load_any(path)
    analysis = analyze(loaded.log, "normalized")
    return [
        render_report(analysis, path.name),
        json.dumps(analysis.report()),
        render_report_html([ReportEntry(path.name, str(path), analysis)]),
        analysis.results.to_csv(),
        analysis.attempts.to_csv(),
    ]


@pytest.mark.parametrize(
    ("planted", "masked"),
    [
        (_inspect_with_a_key_in_its_url, "https://user:REDACTED@gw.example.com/v1?api-key=REDACTED"),
        (_tau_with_a_key_in_an_error, "Incorrect API key provided: [redacted]"),
    ],
    ids=["key in the base URL", "key quoted in an error"],
)
def test_a_key_in_an_imported_log_is_kept_nowhere(
    planted: Callable[[Path], Path], masked: str, tmp_path: Path
) -> None:
    source = planted(tmp_path)
    written = import_to_file(source, tmp_path / "out.altk_runs.json").read_text(encoding="utf-8")
    assert SHOWN_KEY not in written
    assert masked in written
    for text in _everything_shown(source):
        assert SHOWN_KEY not in text


def test_the_host_of_a_masked_url_still_shows(tmp_path: Path) -> None:
    source = _inspect_with_a_key_in_its_url(tmp_path)
    assert "gw.example.com" in render_report(analyze(load_any(source).log), "x")
