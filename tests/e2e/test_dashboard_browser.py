"""End to end in a real headless Chromium: start `streamlit run app/main.py`, open every view, upload
logs (one of them bad), switch the answer key, and save a screenshot of each view.

Chromium is Debian's package, found with `shutil.which`; Playwright only drives it (no browser is
ever downloaded). Without chromium the tests skip on a developer's machine and fail in CI (CI=true).
Screenshots land in artifacts/screenshots/ (gitignored) for a person to look at. The server, page
and screenshot helpers are shared with test_rerun_browser.py: browser_kit.py and conftest.py.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_kit import (
    RENDERED_JS,
    ROOT,
    assert_no_exception,
    browser_marks,
    shot,
    streamlit_server,
    wait_rendered,
)

from analyzer.analysis import analyze
from analyzer.log.loader import list_logs, load_path

FIXTURES = ROOT / "tests" / "fixtures" / "app"
SAMPLES = ROOT / "sample_runs"
VIEWS = {
    "overview": "",
    "tasks": "tasks",
    "tokens": "tokens",
    "retries": "retries",
    "routes": "routes",
    "compare": "compare",
}
"""View name to URL path (the default view, Overview, is served at the root)."""

pytestmark = browser_marks()


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
    with streamlit_server(runs_dir, tmp_path_factory.mktemp("server") / "streamlit.log") as base:
        yield base


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


QUERY = "?log=drift_v2.json&log=pinned_v2.json&log=plain_v1.json&key=exact"


@pytest.mark.parametrize("view", VIEWS)
def test_every_view_renders_on_the_sample_logs(server: str, page: object, view: str) -> None:
    query, first_label = sample_query()
    page.goto(f"{server}/{VIEWS[view]}{query}")  # type: ignore[attr-defined]
    wait_rendered(page, view.capitalize())
    assert_no_exception(page)
    assert first_label in page.locator("body").inner_text()  # type: ignore[attr-defined]
    assert shot(page, view).stat().st_size > 10_000


def test_theme_dark_overview_and_tasks(server: str, dark_page: object) -> None:
    for view in ("overview", "tasks", "retries"):
        dark_page.goto(f"{server}/{VIEWS[view]}{QUERY}")  # type: ignore[attr-defined]
        wait_rendered(dark_page, view.capitalize())
        assert_no_exception(dark_page)
        shot(dark_page, f"{view}-dark")


def test_upload_and_answer_key(server: str, page: object) -> None:
    page.goto(f"{server}/?log=plain_v1.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Upload logs").click()  # type: ignore[attr-defined]
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(  # type: ignore[attr-defined]
        [str(FIXTURES / "drift_v2.json"), str(FIXTURES / "bad.json")]
    )
    page.get_by_text("not valid JSON", exact=False).first.wait_for()  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    body = page.locator("body").inner_text()  # type: ignore[attr-defined]
    assert "bad.json" in body and "trailing comma" in body  # one line naming the file
    assert_no_exception(page)

    # the uploaded log is a group of its own, shown at once and marked as an upload
    sidebar = page.locator('[data-testid="stSidebar"]')  # type: ignore[attr-defined]
    sidebar.get_by_role("button", name="Shown: A: shared proxy (uploaded)").wait_for()
    page.get_by_text("75.0 pp").first.wait_for()  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    body = page.locator("body").inner_text()  # type: ignore[attr-defined]
    assert "Showing log A: shared proxy (uploaded) · uploaded file drift_v2.json, not saved" in body
    shot(page, "overview-upload")

    # switch the answer key (its popover names the key in use): normalized joins "42", "42." and
    # " 42 ", so the gap drops
    page.keyboard.press("Escape")  # type: ignore[attr-defined]  # the upload popover closes
    sidebar.get_by_role("button", name="Answer key: exact").click()
    page.locator('[data-testid="stPopoverBody"]').get_by_text("normalized", exact=True).click()  # type: ignore[attr-defined]
    page.get_by_text("62.5 pp").first.wait_for()  # type: ignore[attr-defined]
    sidebar.get_by_role("button", name="Answer key: normalized").wait_for()
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
    page.get_by_role("button", name="Downloads").click()  # type: ignore[attr-defined]  # a popover
    with page.expect_download() as info:  # type: ignore[attr-defined]
        page.get_by_role("button", name="Report (JSON)").click()  # type: ignore[attr-defined]
    report = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    assert report["answer_gap_pp"] == expected.headline.answer_gap_pp
    with page.expect_download() as info:  # type: ignore[attr-defined]
        page.get_by_role("button", name="Flagged tasks (task file)").click()  # type: ignore[attr-defined]
    flagged = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    assert [t["task_id"] for t in flagged] == [f.task_id for f in expected.headline.flagged]
    with page.expect_download() as info:  # type: ignore[attr-defined]
        page.get_by_role("button", name="Report to share (HTML)").click()  # type: ignore[attr-defined]
    shared = Path(info.value.path()).read_text(encoding="utf-8")
    assert shared.startswith("<!DOCTYPE html>") and f"{expected.headline.answer_gap_pp:.1f} pp" in shared
    assert all(t["prompt"] for t in flagged)
    page.keyboard.press("Escape")  # type: ignore[attr-defined]  # the popover closes
    page.get_by_text("Show them →").first.click()  # type: ignore[attr-defined]  # the inconsistent tasks
    wait_rendered(page, "Tasks")
    assert "show=inconsistent" in page.url  # type: ignore[attr-defined]
    inconsistent = int(expected.tasks["consistent"].eq(False).sum())
    page.get_by_text(f"{inconsistent} of 8 tasks").first.wait_for()  # type: ignore[attr-defined]
    assert_no_exception(page)


def test_the_lazy_sections_open_with_a_click_and_stay_open_in_the_url(server: str, page: object) -> None:
    """The Pass^k curve, the list of causes and the answers-by-round grid are drawn only once
    opened (a first render is lighter), each one click away, and a shared URL keeps them open."""
    page.goto(f"{server}/?log=drift_v2.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    charts = page.locator('[data-testid="stPlotlyChart"]')  # type: ignore[attr-defined]
    assert charts.count() == 1  # the trajectories histogram (the finding is HTML): the curve is not drawn yet
    page.get_by_text("Pass^k and Pass@k for k = 1 to 5").click()  # type: ignore[attr-defined]
    page.get_by_text("Success as rounds are added").first.wait_for()  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    assert charts.count() == 2 and "overview.curve=" in page.url  # type: ignore[attr-defined]
    page.get_by_text("The cause of each of the").click()  # type: ignore[attr-defined]
    page.locator('[data-testid="stDataFrame"]').first.wait_for()  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    assert "overview.causes=" in page.url  # type: ignore[attr-defined]
    shot(page, "overview-opened")
    page.reload()  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    assert charts.count() == 2 and page.locator('[data-testid="stDataFrame"]').count() == 1  # type: ignore[attr-defined]

    page.goto(f"{server}/tasks?log=drift_v2.json&task=flaky")  # type: ignore[attr-defined]
    wait_rendered(page, "Tasks")
    assert page.get_by_role("tab", name="One task").get_attribute("aria-selected") == "true"  # type: ignore[attr-defined]
    assert page.locator(".js-plotly-plot .heatmaplayer").count() == 0  # type: ignore[attr-defined]
    page.get_by_role("tab", name="Answers by round").click()  # type: ignore[attr-defined]
    page.locator(".js-plotly-plot .heatmaplayer").first.wait_for()  # type: ignore[attr-defined]
    wait_rendered(page, "Tasks")
    assert "tasks.tab=Answers" in page.url  # type: ignore[attr-defined]
    assert_no_exception(page)
    shot(page, "tasks-grid")


def test_next_and_the_picker_open_tasks_of_the_table(server: str, page: object) -> None:
    """Tasks opens on the first inconsistent task, its row highlighted in a read-only table (no grid,
    no code block); Next opens the task below it, and the picker opens any task typed by id, each
    with its prompt as plain text."""
    page.goto(f"{server}/tasks?log=drift_v2.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Tasks")
    log = load_path(FIXTURES / "drift_v2.json").log
    expected = analyze(log).tasks
    order = expected["task_id"].tolist()
    first_unstable = expected.loc[expected["consistent"].eq(False), "task_id"].iloc[0]
    page.get_by_text(f"Task {first_unstable} · ", exact=False).wait_for()  # type: ignore[attr-defined]
    highlighted = page.locator("table.rl-table tr.on td").first  # type: ignore[attr-defined]
    assert highlighted.inner_text() == first_unstable
    assert page.locator('[data-testid="stDataFrame"]').count() == 0  # type: ignore[attr-defined]
    assert page.locator('[data-testid="stCode"]').count() == 0  # type: ignore[attr-defined]

    page.get_by_role("button", name="Next").click()  # type: ignore[attr-defined]
    after = order[order.index(first_unstable) + 1]
    page.get_by_text(f"Task {after} · ", exact=False).wait_for()  # type: ignore[attr-defined]
    wait_rendered(page, "Tasks")
    assert f"task={after}" in page.url and highlighted.inner_text() == after  # type: ignore[attr-defined]

    task = order[0]  # a consistent task, picked by id
    assert task not in (first_unstable, after)
    page.get_by_role("button", name="Open another task").click()  # type: ignore[attr-defined]
    picker = page.locator('[data-testid="stPopoverBody"] input').first  # type: ignore[attr-defined]
    picker.click()
    picker.fill(task)
    page.keyboard.press("Enter")  # type: ignore[attr-defined]
    page.get_by_text(f"Task {task} · 1 of", exact=False).wait_for()  # type: ignore[attr-defined]
    page.keyboard.press("Escape")  # type: ignore[attr-defined]
    wait_rendered(page, "Tasks")
    assert f"task={task}" in page.url  # type: ignore[attr-defined]
    prompt = next(t.prompt for t in log.tasks or [] if t.task_id == task)
    assert prompt in page.locator('[data-testid="stText"]').all_inner_texts()  # type: ignore[attr-defined]
    assert_no_exception(page)
    shot(page, "tasks-picked")

    # J and K step too, but not while a person types in a field
    page.locator("h1").first.click()  # type: ignore[attr-defined]
    page.keyboard.press("j")  # type: ignore[attr-defined]
    page.get_by_text(f"Task {order[1]} · 2 of", exact=False).wait_for()  # type: ignore[attr-defined]
    wait_rendered(page, "Tasks")
    page.get_by_role("button", name="Open another task").click()  # type: ignore[attr-defined]
    picker.click()
    page.keyboard.type("jk")  # type: ignore[attr-defined]
    page.wait_for_timeout(1000)  # type: ignore[attr-defined]
    page.keyboard.press("Escape")  # type: ignore[attr-defined]
    wait_rendered(page, "Tasks")
    assert f"task={order[1]}" in page.url  # type: ignore[attr-defined]
    page.locator("h1").first.click()  # type: ignore[attr-defined]
    page.keyboard.press("k")  # type: ignore[attr-defined]
    page.get_by_text(f"Task {order[0]} · 1 of", exact=False).wait_for()  # type: ignore[attr-defined]
