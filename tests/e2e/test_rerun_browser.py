"""Re-run and New run end to end in a real headless Chromium, against the embedded simulator.

A person opens a sample log, goes to Re-run, keeps the default (the CLI's: the flagged tasks, the
planner's rounds per task, shown beside the button), clicks the one button and reads the
before/after; a reload mid-run finds the running job; a new run starts from the sample task file.
Chromium is Debian's package (found with `shutil.which`), driven by Playwright; without it the tests
skip on a developer's machine and fail in CI. Screenshots go to artifacts/screenshots/.
The server's environment holds a recognisable fake key, which must never reach a page or a file.

The server, page and screenshot helpers are shared with test_dashboard_browser.py (browser_kit.py
and conftest.py); this module keeps its own runs folder, server environment and page checks.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

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
from fake_keys import FAKE_KEY, SESSION_KEY

from analyzer.analysis import analyze
from analyzer.log.loader import list_logs, load_path
from analyzer.safety.keys import key_fingerprint
from analyzer.verdicts.default_rerun import DEFAULT_SELECTION, default_rerun, selected_ids

SAMPLES = ROOT / "sample_runs"
PARENT = "A_baseline.altk_runs.json"

pytestmark = browser_marks()


@pytest.fixture()
def page_timeout_ms() -> int:
    """Longer than a view's: a re-run on the simulator is waited for."""
    return 90_000


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary copy of sample_runs/ (the repo's copy is never written)."""
    folder = tmp_path_factory.mktemp("rerun-e2e") / "runs"
    shutil.copytree(SAMPLES, folder)
    return folder.resolve()


@pytest.fixture(scope="module")
def server(runs_dir: Path) -> Iterator[str]:
    """The dashboard with only a fake OPENAI_API_KEY in its environment; its output must not hold a key."""
    log_path = runs_dir.parent / "streamlit.log"
    with streamlit_server(runs_dir, log_path, {"OPENAI_API_KEY": FAKE_KEY}) as base:
        yield base
    server_output = log_path.read_text(errors="replace")
    assert FAKE_KEY not in server_output and SESSION_KEY not in server_output


IDLE_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('[data-testid="stSkeleton"]')) return false;
    for (const d of document.querySelectorAll('[data-testid="stDataFrame"]'))
        if (d.offsetParent !== null && !d.querySelector('canvas')) return false;  // shown, not drawn
    return true;
}"""
"""Like browser_kit.RENDERED_JS, but charts are not waited for and hidden tables need not be drawn."""


def settle(page: object, title: str) -> None:
    wait_rendered(page, title, IDLE_JS)


def assert_clean(page: object) -> None:
    assert_no_exception(page)
    assert FAKE_KEY not in page.content()  # type: ignore[attr-defined]
    assert FAKE_KEY not in page.url  # type: ignore[attr-defined]


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
    text = body_text(page)
    assert "built-in simulator serves" in text
    assert key_fingerprint(FAKE_KEY) in text  # the fingerprint, never the key
    shot(page, "rerun-ready")

    parent = analyze(load_path(SAMPLES / PARENT).log)
    flagged = selected_ids(parent.tasks, DEFAULT_SELECTION)  # the CLI's default tasks
    planned = default_rerun(parent, flagged, leave_out=True)  # its rounds per task, beside the button
    for sentence in planned.sentences():  # markdown shows "<=" as "≤"
        assert sentence.replace("<=", "≤") in text, sentence
    label = f"Re-run {len(planned.tasks)} tasks x {planned.rounds_text()} rounds on this route"
    button = page.get_by_role("button", name=label)  # type: ignore[attr-defined]
    button.click()
    page.get_by_text("Before and after", exact=True).wait_for()  # type: ignore[attr-defined]
    settle(page, "Re-run")
    assert_clean(page)
    text = body_text(page)
    assert "route was the likely cause" in text and "Route (beyond chance)" in text

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
    assert "re-run of A: baseline" in body_text(page)
    shot(page, "rerun-compare")


def test_rerun_result_in_the_dark_theme(server: str, dark_page: object) -> None:
    dark_page.goto(f"{server}/rerun?log={PARENT}")  # type: ignore[attr-defined]
    settle(dark_page, "Re-run")
    assert_clean(dark_page)
    # found again by a new session
    dark_page.get_by_text("Before and after", exact=True).wait_for()  # type: ignore[attr-defined]
    shot(dark_page, "rerun-dark")


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
    assert "Calls https://platform.openai.com/" in body_text(page)  # linted while typing, no Enter pressed
    shot(page, "rerun-live-lint")
    field.fill("")
    field.press("Enter")
    page.get_by_text("built-in simulator serves", exact=False).first.wait_for()  # type: ignore[attr-defined]

    set_rounds(page, 60)
    flagged = len(selected_ids(analyze(load_path(SAMPLES / "B_one_key.altk_runs.json").log).tasks, "flagged"))
    page.get_by_role("button", name=f"Re-run {flagged} tasks x 60 rounds on this route").click()  # type: ignore[attr-defined]
    page.get_by_text("Re-run running", exact=False).first.wait_for()  # type: ignore[attr-defined]
    page.reload()  # type: ignore[attr-defined]
    settle(page, "Re-run")
    page.get_by_text("Re-run running", exact=False).first.wait_for()  # type: ignore[attr-defined]
    assert page.get_by_role(
        "button", name=f"Re-running {flagged} tasks x 60 rounds on this route…"
    ).is_disabled()  # type: ignore[attr-defined]
    # after the reload the form shows the running job, not the page's defaults beside it
    rounds = page.get_by_label("Rounds", exact=True)  # type: ignore[attr-defined]
    assert rounds.input_value() == "60" and rounds.is_disabled()
    assert f"The running re-run's {flagged} tasks" in body_text(page)
    shot(page, "rerun-running")
    page.get_by_role("button", name="Cancel").click()  # type: ignore[attr-defined]
    page.get_by_role("button", name="Resume").wait_for()  # type: ignore[attr-defined]
    settle(page, "Re-run")
    assert_clean(page)
    assert "journal" in body_text(page)
    shot(page, "rerun-cancelled")
    assert not [p for p in reruns(runs_dir) if p.name.startswith("B_one_key")]
    assert SESSION_KEY not in page.content() and SESSION_KEY not in page.url  # type: ignore[attr-defined]
    for path in runs_dir.rglob("*"):
        if path.is_file():
            assert SESSION_KEY.encode() not in path.read_bytes(), path


def test_new_run_click_through(server: str, page: object, runs_dir: Path) -> None:
    page.goto(f"{server}/new-run?log=C_pinned.altk_runs.json")  # type: ignore[attr-defined]
    settle(page, "New run")
    assert "30 tasks from tasks.json" in body_text(page)
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
