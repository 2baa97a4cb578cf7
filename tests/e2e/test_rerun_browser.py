"""Re-run and New run end to end in a real headless Chromium, against the embedded simulator.

A person opens a sample log, goes to Re-run, keeps the flagged tasks, clicks the one button and
reads the before/after; a reload mid-run finds the running job; a new run starts from the sample
task file. Chromium is Debian's package (found with `shutil.which`), driven by Playwright; without
it the tests skip on a developer's machine and fail in CI. Screenshots go to artifacts/screenshots/.
The server's environment holds a recognisable fake key, which must never reach a page or a file.

Own small fixtures (not shared with test_dashboard_browser.py, which another engineer is editing).
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
from pathlib import Path

import pytest

from analyzer.loader import list_logs, load_path
from analyzer.route import key_fingerprint

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_runs"
SHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
PARENT = "A_baseline.altk_runs.json"
FAKE_KEY = "sk-test-DO-NOT-LEAK-1234567890abcdef"
SESSION_KEY = "sk-test-SESSION-ONLY-0987654321fedcba"
TIMEOUT_MS = 90_000

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
    """A temporary copy of sample_runs/ (the repo's copy is never written)."""
    folder = tmp_path_factory.mktemp("rerun-e2e") / "runs"
    shutil.copytree(SAMPLES, folder)
    return folder.resolve()


@pytest.fixture(scope="module")
def server(runs_dir: Path) -> Iterator[str]:
    port = _free_port()
    log_file = (runs_dir.parent / "streamlit.log").open("w")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_", "RERUNLENS_"))}
    env |= {"PYTHONUNBUFFERED": "1", "OPENAI_API_KEY": FAKE_KEY}
    cmd = [
        *(sys.executable, "-m", "streamlit", "run", str(ROOT / "app" / "main.py")),
        *("--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true"),
        *("--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"),
        *("--", "--runs-dir", str(runs_dir)),
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log_file, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"streamlit exited; see {log_file.name}"
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"streamlit did not start; see {log_file.name}"
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log_file.close()
    server_output = (runs_dir.parent / "streamlit.log").read_text(errors="replace")
    assert FAKE_KEY not in server_output and SESSION_KEY not in server_output


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if CHROMIUM is None:
        pytest.fail("chromium is not installed; CI must install Debian's chromium package")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
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


IDLE_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('[data-testid="stSkeleton"]')) return false;
    for (const d of document.querySelectorAll('[data-testid="stDataFrame"]'))
        if (d.offsetParent !== null && !d.querySelector('canvas')) return false;  // shown, not drawn
    return true;
}"""


def settle(page: object, title: str) -> None:
    page.get_by_role("heading", name=title, exact=True).first.wait_for()  # type: ignore[attr-defined]
    for _ in range(2):
        page.wait_for_function(IDLE_JS)  # type: ignore[attr-defined]
        page.wait_for_timeout(400)  # type: ignore[attr-defined]


def body(page: object) -> str:
    return page.locator("body").inner_text()  # type: ignore[attr-defined]


def assert_clean(page: object) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0  # type: ignore[attr-defined]
    text = body(page)
    assert "Traceback" not in text
    assert FAKE_KEY not in page.content()  # type: ignore[attr-defined]
    assert FAKE_KEY not in page.url  # type: ignore[attr-defined]


def shot(page: object, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
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


def set_rounds(page: object, rounds: int) -> None:
    field = page.get_by_label("Rounds", exact=True)  # type: ignore[attr-defined]
    field.fill(str(rounds))
    field.press("Enter")
    page.wait_for_timeout(300)  # type: ignore[attr-defined]


def reruns(folder: Path) -> list[Path]:
    return [p for p in list_logs(folder) if ".rerun-" in p.name]


def test_rerun_click_through_shows_the_before_after(server: str, page: object, runs_dir: Path) -> None:
    page.goto(f"{server}/?log={PARENT}")  # type: ignore[attr-defined]
    settle(page, "Overview")
    page.get_by_role("link", name="Re-run").first.click()  # type: ignore[attr-defined]
    settle(page, "Re-run")
    assert_clean(page)
    text = body(page)
    assert "built-in simulator serves" in text
    assert key_fingerprint(FAKE_KEY) in text  # the fingerprint, never the key
    shot(page, "rerun-ready")

    button = page.get_by_role("button", name="Re-run 30 tasks x 5 rounds on this route")  # type: ignore[attr-defined]
    button.click()
    page.get_by_text("Before and after", exact=True).wait_for()  # type: ignore[attr-defined]
    settle(page, "Re-run")
    assert_clean(page)
    text = body(page)
    assert "route was the likely cause" in text and "Became consistent" in text

    [new] = reruns(runs_dir)
    assert load_path(new).log.parent_run_id == "sample-A_baseline"
    assert f"log={new.name}" in page.url  # type: ignore[attr-defined]  # opened beside its parent
    shot(page, "rerun-before-after")
    for path in runs_dir.rglob("*"):
        if path.is_file():
            assert FAKE_KEY.encode() not in path.read_bytes(), path

    page.get_by_role("link", name="Compare the two logs side by side →").click()  # type: ignore[attr-defined]
    settle(page, "Compare")
    assert_clean(page)
    assert "re-run of A: baseline" in body(page)
    shot(page, "rerun-compare")


def test_rerun_result_in_the_dark_theme(server: str, browser: object) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme="dark")  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    try:
        pg.goto(f"{server}/rerun?log={PARENT}")
        settle(pg, "Re-run")
        assert_clean(pg)
        pg.get_by_text("Before and after", exact=True).wait_for()  # found again by a new session
        shot(pg, "rerun-dark")
    finally:
        context.close()


def test_live_lint_and_a_reload_finds_the_running_rerun(server: str, page: object, runs_dir: Path) -> None:
    page.goto(f"{server}/rerun?log=B_one_key.altk_runs.json")  # type: ignore[attr-defined]
    settle(page, "Re-run")
    secret = page.get_by_label("Or a key for this session only", exact=True)  # type: ignore[attr-defined]
    secret.fill(SESSION_KEY)
    secret.press("Enter")
    page.get_by_text(f"Key: typed for this session · fingerprint {key_fingerprint(SESSION_KEY)}").wait_for()  # type: ignore[attr-defined]
    settle(page, "Re-run")
    assert SESSION_KEY not in page.content()  # type: ignore[attr-defined]  # the field was emptied
    field = page.get_by_label("Base URL", exact=True)  # type: ignore[attr-defined]
    field.press_sequentially("https://platform.openai.com/?utm_source=docs", delay=10)
    page.get_by_text("Suggested base URL: https://api.openai.com/v1").wait_for()  # type: ignore[attr-defined]
    assert "Calls https://platform.openai.com/" in body(page)  # linted while typing, no Enter pressed
    shot(page, "rerun-live-lint")
    field.fill("")
    field.press("Enter")
    page.get_by_text("built-in simulator serves", exact=False).first.wait_for()  # type: ignore[attr-defined]

    set_rounds(page, 60)
    page.get_by_role("button", name="Re-run 13 tasks x 60 rounds on this route").click()  # type: ignore[attr-defined]
    page.get_by_text("Re-run running", exact=False).first.wait_for()  # type: ignore[attr-defined]
    page.reload()  # type: ignore[attr-defined]
    settle(page, "Re-run")
    page.get_by_text("Re-run running", exact=False).first.wait_for()  # type: ignore[attr-defined]
    assert page.get_by_role("button", name="Re-running 13 tasks x 60 rounds on this route…").is_disabled()  # type: ignore[attr-defined]
    shot(page, "rerun-running")
    page.get_by_role("button", name="Cancel").click()  # type: ignore[attr-defined]
    page.get_by_role("button", name="Resume").wait_for()  # type: ignore[attr-defined]
    settle(page, "Re-run")
    assert_clean(page)
    assert "journal" in body(page)
    shot(page, "rerun-cancelled")
    assert not [p for p in reruns(runs_dir) if p.name.startswith("B_one_key")]
    assert SESSION_KEY not in page.content() and SESSION_KEY not in page.url  # type: ignore[attr-defined]
    for path in runs_dir.rglob("*"):
        if path.is_file():
            assert SESSION_KEY.encode() not in path.read_bytes(), path


def test_new_run_click_through(server: str, page: object, runs_dir: Path) -> None:
    page.goto(f"{server}/new-run?log=C_pinned.altk_runs.json")  # type: ignore[attr-defined]
    settle(page, "New run")
    assert "30 tasks from tasks.json" in body(page)
    set_rounds(page, 2)
    label = page.get_by_label("Label of the new log", exact=True)  # type: ignore[attr-defined]
    label.fill("E: from the browser")
    label.press("Enter")
    page.wait_for_timeout(300)  # type: ignore[attr-defined]
    page.get_by_role("button", name="Run 30 tasks x 2 rounds on this route").click()  # type: ignore[attr-defined]
    page.get_by_text("Saved run-", exact=False).wait_for()  # type: ignore[attr-defined]
    settle(page, "New run")
    assert_clean(page)
    [new] = [p for p in list_logs(runs_dir) if p.name.startswith("run-")]
    assert load_path(new).log.label == "E: from the browser"
    assert f"log={new.name}" in page.url  # type: ignore[attr-defined]
    shot(page, "new-run-done")
