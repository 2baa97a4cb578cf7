"""Fixtures shared by the browser tests: one headless Chromium per module and a fresh page (light or
dark) per test. Each test module starts its own server (its runs folder and environment differ);
the plain helpers are in browser_kit.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_kit import CHROMIUM, CHROMIUM_FLAGS, open_page


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if CHROMIUM is None:
        pytest.fail("chromium is not installed; CI must install Debian's chromium package")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture()
def page_timeout_ms() -> int:
    """How long a page waits for anything; a test module may override this fixture."""
    return 60_000


@pytest.fixture()
def page(browser: Any, page_timeout_ms: int) -> Iterator[Any]:
    with open_page(browser, page_timeout_ms) as pg:
        yield pg


@pytest.fixture()
def dark_page(browser: Any, page_timeout_ms: int) -> Iterator[Any]:
    with open_page(browser, page_timeout_ms, color_scheme="dark") as pg:
        yield pg
