"""Plain helpers for driving the dashboard in headless Chromium: find Debian's chromium, start
`streamlit run app/main.py` on a free port and wait for its health check, open a page, wait until a
view is drawn, check it shows no exception, save a screenshot.

Shared by the browser tests in this folder (their pytest fixtures are in conftest.py) and by
scripts/bench_dashboard.py. It lives here, next to the tests it mostly serves, and imports nothing
from pytest or Playwright at module level, so the script can use it too: pytest puts this folder on
sys.path for the tests; the script adds it itself and does `import browser_kit`.

Chromium is Debian's package, found with `shutil.which`; Playwright only drives it (no browser is
ever downloaded).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MAIN = ROOT / "app" / "main.py"
SHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 1000}
SERVER_ENV_DROPPED = ("OPENAI_", "ALTK_", "RERUNLENS_")
"""Variables the server never inherits: the developer's key and route, and a runs folder other
than the one given with --runs-dir."""
START_TIMEOUT_S = 60.0

RENDERED_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('[data-testid="stSkeleton"]')) return false;
    for (const c of document.querySelectorAll('[data-testid="stPlotlyChart"]'))
        if (!c.querySelector('.main-svg')) return false;
    for (const d of document.querySelectorAll('[data-testid="stDataFrame"]'))
        if (!d.querySelector('canvas')) return false;
    return document.querySelectorAll('h1').length > 0;
}"""
"""True once a title is shown, the script run has finished and every chart and table is drawn."""


def browser_marks() -> list[Any]:
    """A browser test module's `pytestmark`: marked `browser`; skipped only when chromium is absent
    and CI is unset (in CI a missing chromium fails the `browser` fixture instead)."""
    import pytest

    return [
        pytest.mark.browser,
        pytest.mark.skipif(
            CHROMIUM is None and not os.environ.get("CI"),
            reason="Debian's chromium is not installed (in CI this test must run: apt-get install chromium)",
        ),
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def streamlit_command(port: int, runs_dir: Path, script: Path = MAIN) -> list[str]:
    return [
        *(sys.executable, "-m", "streamlit", "run", str(script)),
        *("--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true"),
        *("--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"),
        *("--", "--runs-dir", str(runs_dir)),
    ]


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without SERVER_ENV_DROPPED variables, unbuffered, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(SERVER_ENV_DROPPED)}
    return env | {"PYTHONUNBUFFERED": "1"} | (extra or {})


@contextmanager
def streamlit_server(
    runs_dir: Path,
    log_path: Path | None = None,
    extra_env: dict[str, str] | None = None,
    script: Path = MAIN,
) -> Iterator[str]:
    """Run the dashboard (or another Streamlit `script`) on `runs_dir` until the block ends; yields
    its base URL once healthy.

    The server's output goes to `log_path` (discarded when None); `extra_env` is added to
    `server_env()`. Raises RuntimeError if the server exits or is not healthy within 60 s.
    """
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    see = f"; see {log_path}" if log_path else ""
    out = log_path.open("w") if log_path else None
    proc = subprocess.Popen(
        streamlit_command(port, runs_dir, script),
        cwd=ROOT,
        stdout=out or subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        env=server_env(extra_env),
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {proc.returncode}{see}")
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start within {START_TIMEOUT_S:.0f} s{see}")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if out:
            out.close()


@contextmanager
def open_page(browser: Any, timeout_ms: int, **context_options: Any) -> Iterator[Any]:
    """A page in a fresh browser context (VIEWPORT unless given), closed with the block."""
    context = browser.new_context(**{"viewport": VIEWPORT, **context_options})
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    try:
        yield page
    finally:
        context.close()


def wait_rendered(page: Any, title: str, js: str = RENDERED_JS) -> None:
    """The view's title is shown and `js` holds (by default: the run finished, all drawn)."""
    page.get_by_role("heading", name=title, exact=True).first.wait_for()
    for _ in range(2):  # twice: a widget's first run can trigger a second one
        page.wait_for_function(js)
        page.wait_for_timeout(400)


def body_text(page: Any) -> str:
    return page.locator("body").inner_text()


def assert_no_exception(page: Any) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "Traceback" not in body_text(page)


def shot(page: Any, name: str) -> Path:
    """Save a full screenshot to artifacts/screenshots/<name>.png (gitignored) and return its path."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    # The main area scrolls inside the page: grow the viewport to the content to capture all of it.
    size = page.viewport_size
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], section, body')]"
        ".map(e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 8000)})
    page.wait_for_timeout(600)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)
    return path
