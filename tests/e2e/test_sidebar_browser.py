"""In headless Chromium: a log cut short in the runs folder is named in the sidebar with its reason,
while the readable logs beside it open as usual; and a page load asks nothing of any other host."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from browser_kit import (
    ROOT,
    assert_no_exception,
    body_text,
    browser_marks,
    shot,
    streamlit_server,
    wait_rendered,
)

pytestmark = browser_marks()

FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    runs = tmp_path_factory.mktemp("runs")
    shutil.copy(FIXTURES / "app" / "drift_v2.json", runs / "drift_v2.json")
    (runs / "crashed").mkdir()
    cut = (FIXTURES / "foreign" / "inspect_ai" / "mock_tools.eval").read_bytes()[:3000]
    (runs / "crashed" / "epochs.eval").write_bytes(cut)  # the zip's directory at its end is lost
    (runs / "empty.altk_runs.json").write_bytes(b"")
    with streamlit_server(runs, tmp_path_factory.mktemp("server") / "streamlit.log") as base:
        yield base


def test_the_sidebar_names_the_logs_it_cannot_read(server: str, page: object) -> None:
    page.goto(f"{server}/?log=drift_v2.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    assert_no_exception(page)
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()  # type: ignore[attr-defined]
    assert "2 files in your runs folder are named like a log but cannot be read" in sidebar
    assert "crashed/epochs.eval: not a readable zip archive" in sidebar
    assert "empty.altk_runs.json: empty file" in sidebar
    assert "drift" in body_text(page)  # the readable log beside them opened
    assert shot(page, "sidebar_unreadable_logs").stat().st_size > 10_000


def test_a_page_load_asks_no_other_host(server: str, page: object) -> None:
    """The dashboard runs offline: nothing a view loads (scripts, fonts, icons) comes from elsewhere."""
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))  # type: ignore[attr-defined]
    for view, title in (("", "Overview"), ("tasks", "Tasks")):
        page.goto(f"{server}/{view}?log=drift_v2.json")  # type: ignore[attr-defined]
        wait_rendered(page, title)
    elsewhere = [u for u in asked if not u.startswith((server, "data:", "blob:"))]
    assert asked and not elsewhere, elsewhere
