"""DNS rebinding in a real browser: the dashboard reached under a foreign host name (Chromium told
that `evil.example` is 127.0.0.1) shows no log, only the refusal; under 127.0.0.1 it opens as usual."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    ROOT,
    body_text,
    browser_marks,
    streamlit_server,
    wait_rendered,
)

pytestmark = browser_marks()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    runs = tmp_path_factory.mktemp("runs")
    shutil.copy(ROOT / "sample_runs" / "C_pinned.altk_runs.json", runs)
    with streamlit_server(runs, tmp_path_factory.mktemp("server") / "streamlit.log") as base:
        yield base


@pytest.fixture(scope="module")
def rebinding_browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    flags = [*CHROMIUM_FLAGS, "--host-resolver-rules=MAP evil.example 127.0.0.1"]
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=flags, headless=True)
        try:
            yield b
        finally:
            b.close()


def _open(browser: Any, url: str) -> Any:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    return context, page


def test_a_foreign_host_name_shows_no_log(server: str, rebinding_browser: Any, tmp_path: Path) -> None:
    port = server.rsplit(":", 1)[1]
    context, page = _open(rebinding_browser, f"http://evil.example:{port}/?log=C_pinned.altk_runs.json")
    try:
        page.wait_for_timeout(8000)
        text = body_text(page)
        assert (
            "DNS rebinding" in text
            and "C_pinned" not in text
            and "Overview" not in [h.inner_text() for h in page.locator("h1").all()]
        )
    finally:
        context.close()
    context, page = _open(rebinding_browser, f"{server}/?log=C_pinned.altk_runs.json")
    try:
        wait_rendered(page, "Overview")
        assert "DNS rebinding" not in body_text(page)
    finally:
        context.close()
