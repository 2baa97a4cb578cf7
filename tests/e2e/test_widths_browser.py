"""Every view at 1400 px and at 1024 px: drawn without exception, nothing cut off on the right (wide
tables scroll inside their frame, the "Check route" output wraps), no figure cut short, a screenshot
of each to look at."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from browser_kit import ROOT, assert_no_exception, browser_marks, shot, streamlit_server, wait_rendered

from analyzer.log.loader import list_logs

pytestmark = browser_marks()
SAMPLES = ROOT / "sample_runs"
VIEWS = {
    "Overview": "",
    "Runs": "runs",
    "Tasks": "tasks",
    "Tokens": "tokens",
    "Retries": "retries",
    "Routes": "routes",
    "Compare": "compare",
    "Re-run": "rerun",
    "New run": "new-run",
    "Watch a run": "watch",
    "History": "history",
    "Audit": "audit",
}
QUERY = "?" + "&".join(f"log={p.name}" for p in list_logs(SAMPLES) if p.name[1] == "_") + "&key=exact"
OVERFLOW_JS = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    const limit = main.getBoundingClientRect().right + 1;
    const shown = '[data-testid="stDataFrame"], [data-testid="stText"], pre, .js-plotly-plot, table, '
        + '[data-figure]';
    // a table in a box that scrolls (app/widgets/static_table) is seen through its box, as a grid is
    const seen = e => (e.tagName === 'TABLE' && e.closest('.rl-box')) || e;
    const wide = [...main.querySelectorAll(shown)].filter(e => seen(e).getBoundingClientRect().right > limit);
    return wide.map(e => e.getAttribute('data-testid') || e.className).slice(0, 5);
}"""
"""Elements whose right edge lies beyond the main area (cut off on the right, not scrolled)."""
ELIDED_JS = """() => {
    const parts = [...document.querySelectorAll('[data-figure] *')];
    const cut = parts.filter(e => e.scrollWidth > e.clientWidth + 1);
    return [...new Set(cut.map(e => e.closest('[data-figure]').innerText.replace(/\\s+/g, ' ')))];
}"""
"""Headline figures (app/widgets/figures) whose label or value runs past its cell ("43.3…" for "43.3 pp")."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    runs = tmp_path_factory.mktemp("runs")
    for path in list_logs(SAMPLES):
        shutil.copy(path, runs / path.name)
    with streamlit_server(runs, tmp_path_factory.mktemp("server") / "streamlit.log") as base:
        yield base


@pytest.mark.parametrize("width", [1400, 1024])
@pytest.mark.parametrize("title", VIEWS)
def test_each_view_fits_the_width(server: str, page: object, title: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1000})  # type: ignore[attr-defined]
    opened = "&compare.charts=true" if title == "Compare" else ""  # its charts are in a lazy expander
    page.goto(f"{server}/{VIEWS[title]}{QUERY}{opened}")  # type: ignore[attr-defined]
    wait_rendered(page, title)
    if opened:
        assert page.locator('[data-testid="stPlotlyChart"]').count() == 4  # type: ignore[attr-defined]
    if title == "Re-run":
        page.get_by_role("button", name="Check route").click()  # type: ignore[attr-defined]
        page.get_by_text("Route works", exact=False).first.wait_for()  # type: ignore[attr-defined]
        wait_rendered(page, title)
    assert_no_exception(page)
    assert page.evaluate(OVERFLOW_JS) == []  # type: ignore[attr-defined]
    assert page.evaluate(ELIDED_JS) == []  # type: ignore[attr-defined]
    name = title.lower().replace(" ", "-")
    assert shot(page, f"width-{width}-{name}").stat().st_size > 10_000
