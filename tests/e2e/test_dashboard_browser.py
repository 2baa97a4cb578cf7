"""End to end in a real headless Chromium: start `streamlit run app/main.py`, open every view, upload
logs (one of them bad), switch the answer key, and save a screenshot of each view.

Chromium is Debian's package, found with `shutil.which`; Playwright only drives it (no browser is
ever downloaded). Without chromium the tests skip on a developer's machine and fail in CI (CI=true).
Screenshots land in artifacts/screenshots/ (gitignored) for a person to look at.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.loader import list_logs, load_path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "app"
SAMPLES = ROOT / "sample_runs"
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
VIEWS = {
    "overview": "",
    "tasks": "tasks",
    "tokens": "tokens",
    "retries": "retries",
    "routes": "routes",
    "compare": "compare",
}
"""View name to URL path (the default view, Overview, is served at the root)."""
TIMEOUT_MS = 60_000

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None and not os.environ.get("CI"),
        reason="Debian's chromium is not installed (in CI this test must run: apt-get install chromium)",
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runs")
    for name in ("drift_v2.json", "pinned_v2.json", "plain_v1.json"):
        shutil.copy(FIXTURES / name, folder / name)
    for path in list_logs(SAMPLES):
        shutil.copy(path, folder / path.name)
    return folder


def sample_query() -> tuple[str, str]:
    """The shipped sample logs as a URL query, and the label of the first (the one views show)."""
    samples = [p for p in list_logs(SAMPLES) if load_path(p).log.version == 2] or [FIXTURES / "drift_v2.json"]
    query = "?" + "&".join(f"log={p.name}" for p in samples) + "&key=exact"
    first = samples[0]
    return query, load_path(first).log.display_label(first.stem)


@pytest.fixture(scope="module")
def server(runs_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = (tmp_path_factory.mktemp("server") / "streamlit.log").open("w")
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app" / "main.py"),
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        "--",
        "--runs-dir",
        str(runs_dir),
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("RERUNLENS_RUNS_DIR", None)
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {proc.returncode}; see {log.name}")
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start within 60 s; see {log.name}")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
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
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    try:
        yield pg
    finally:
        context.close()


RENDERED_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('[data-testid="stSkeleton"]')) return false;
    for (const c of document.querySelectorAll('[data-testid="stPlotlyChart"]'))
        if (!c.querySelector('.main-svg')) return false;
    for (const d of document.querySelectorAll('[data-testid="stDataFrame"]'))
        if (!d.querySelector('canvas')) return false;
    return true;
}"""


def wait_rendered(page: object, title: str) -> None:
    """The view's title is shown, the script run has finished and charts and tables are drawn."""
    page.get_by_role("heading", name=title, exact=True).first.wait_for()  # type: ignore[attr-defined]
    for _ in range(2):  # twice: a widget's first run can trigger a second one
        page.wait_for_function(RENDERED_JS)  # type: ignore[attr-defined]
        page.wait_for_timeout(400)  # type: ignore[attr-defined]


def choose(page: object, selectbox: object, option: str) -> None:
    """Pick an option; a rerun that lands while the list is open closes it, so try again."""
    for attempt in range(4):
        if attempt:
            page.wait_for_function(RENDERED_JS)  # type: ignore[attr-defined]
        selectbox.click()  # type: ignore[attr-defined]
        target = page.get_by_role("option", name=option)  # type: ignore[attr-defined]
        try:
            target.click(timeout=5_000)
            return
        except Exception:  # noqa: BLE001 - playwright's TimeoutError; retried
            page.keyboard.press("Escape")  # type: ignore[attr-defined]
    raise AssertionError(f"could not choose {option!r}")


def assert_no_exception(page: object) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0  # type: ignore[attr-defined]
    assert "Traceback" not in page.locator("body").inner_text()  # type: ignore[attr-defined]


def shot(page: object, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    # The main area scrolls inside the page: grow the viewport to the content to capture all of it.
    size = page.viewport_size  # type: ignore[attr-defined]
    height = page.evaluate(  # type: ignore[attr-defined]
        "() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], section, body')]"
        ".map(e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 8000)})  # type: ignore[attr-defined]
    page.wait_for_timeout(600)  # type: ignore[attr-defined]
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    page.set_viewport_size(size)  # type: ignore[attr-defined]
    return path


QUERY = "?log=drift_v2.json&log=pinned_v2.json&log=plain_v1.json&key=exact"


@pytest.mark.parametrize("view", VIEWS)
def test_every_view_renders_on_the_sample_logs(server: str, page: object, view: str) -> None:
    query, first_label = sample_query()
    page.goto(f"{server}/{VIEWS[view]}{query}")  # type: ignore[attr-defined]
    wait_rendered(page, view.capitalize())
    assert_no_exception(page)
    assert first_label in page.locator("body").inner_text()  # type: ignore[attr-defined]
    assert shot(page, view).stat().st_size > 10_000


def test_theme_dark_overview_and_tasks(server: str, browser: object) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme="dark")  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    try:
        for view in ("overview", "tasks", "retries"):
            pg.goto(f"{server}/{VIEWS[view]}{QUERY}")
            wait_rendered(pg, view.capitalize())
            assert_no_exception(pg)
            shot(pg, f"{view}-dark")
    finally:
        context.close()


def test_upload_and_answer_key(server: str, page: object) -> None:
    page.goto(f"{server}/?log=plain_v1.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(  # type: ignore[attr-defined]
        [str(FIXTURES / "drift_v2.json"), str(FIXTURES / "bad.json")]
    )
    page.get_by_text("not valid JSON", exact=False).first.wait_for()  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    body = page.locator("body").inner_text()  # type: ignore[attr-defined]
    assert "bad.json" in body and "trailing comma" in body  # one line naming the file
    assert_no_exception(page)

    # the uploaded log is a group of its own: focus it
    page.get_by_text("Log shown in single-log views").wait_for()  # type: ignore[attr-defined]
    choose(
        page, page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').last, "A: shared proxy"
    )  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    page.get_by_text("75.0 pp").first.wait_for()  # type: ignore[attr-defined]
    shot(page, "overview-upload")

    # switch the answer key: normalized joins "42", "42." and " 42 ", so the gap drops
    page.locator('[data-testid="stSidebar"]').get_by_text("normalized", exact=True).click()  # type: ignore[attr-defined]
    page.get_by_text("62.5 pp").first.wait_for()  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    assert "key=normalized" in page.url  # type: ignore[attr-defined]
    assert_no_exception(page)
    shot(page, "overview-normalized")

    page.get_by_role("link", name="Tasks").first.click()  # type: ignore[attr-defined]
    wait_rendered(page, "Tasks")
    assert "key=normalized" in page.url  # type: ignore[attr-defined]
    assert_no_exception(page)
    shot(page, "tasks-upload-normalized")


def test_downloads_and_flagged_link(server: str, page: object, tmp_path: Path) -> None:
    page.goto(f"{server}/?log=drift_v2.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    expected = analyze(load_path(FIXTURES / "drift_v2.json").log)
    with page.expect_download() as info:  # type: ignore[attr-defined]
        page.get_by_role("button", name="Report (JSON)").click()  # type: ignore[attr-defined]
    report = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    assert report["answer_gap_pp"] == expected.headline.answer_gap_pp
    with page.expect_download() as info:  # type: ignore[attr-defined]
        page.get_by_role("button", name="Flagged tasks (task file)").click()  # type: ignore[attr-defined]
    flagged = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    assert [t["task_id"] for t in flagged] == [f.task_id for f in expected.headline.flagged]
    assert all(t["prompt"] for t in flagged)
    page.get_by_text("flagged tasks →").click()  # type: ignore[attr-defined]
    wait_rendered(page, "Tasks")
    assert "flagged=1" in page.url  # type: ignore[attr-defined]
    page.get_by_text("7 of 8 tasks").first.wait_for()  # type: ignore[attr-defined]
    assert_no_exception(page)
