"""The shared HTML report in headless Chromium: it opens from a file with the network cut off, draws
its charts, shows the figures a reader looks for, and fetches nothing from anywhere.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from browser_kit import ROOT, browser_marks, shot

from analyzer.analysis import analyze
from analyzer.log.loader import load_path

pytestmark = browser_marks()
SAMPLES = ROOT / "sample_runs"
HOSTILE = "</script><script>window.__pwned=1</script><b>bold</b>"


def test_the_report_opens_offline_with_its_charts(page: object, tmp_path: Path) -> None:
    log = json.loads((SAMPLES / "A_baseline.altk_runs.json").read_text(encoding="utf-8"))
    log["label"] = HOSTILE
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(log), encoding="utf-8")
    out = tmp_path / "report.html"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "analyzer.cli",
            "report",
            str(hostile),
            str(SAMPLES / "C_pinned.altk_runs.json"),
            "-o",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr

    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))  # type: ignore[attr-defined]
    page.route(
        "**/*",
        lambda route: route.abort() if not route.request.url.startswith("file:") else route.continue_(),
    )  # type: ignore[attr-defined]
    page.set_viewport_size({"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    page.goto(out.as_uri())  # type: ignore[attr-defined]
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4")  # type: ignore[attr-defined]
    assert [u for u in requests if not u.startswith("file:")] == []
    assert page.evaluate("window.__pwned") is None  # type: ignore[attr-defined]

    text = page.inner_text("body")  # type: ignore[attr-defined]
    a = analyze(load_path(hostile).log)
    assert HOSTILE in text  # shown literally, never run or rendered
    assert f"{a.headline.answer_gap_pp:.1f} pp" in text
    assert f"Flagged tasks ({len(a.headline.flagged)})" in text
    assert "Side by side" in text and "Route drift" in text and "Retries" in text
    shot(page, "report-1400")
    page.set_viewport_size({"width": 1024, "height": 900})  # type: ignore[attr-defined]
    shot(page, "report-1024")
