"""In headless Chromium, what a user reads is true for logs of other tools as well as the samples:
an uploaded log stays the one shown while the user moves between pages; what a log does not record
reads "not recorded", never 0."""

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

FOREIGN = ROOT / "tests" / "fixtures" / "foreign"
INSPECT = FOREIGN / "inspect_ai" / "mock_epochs.eval"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    runs = tmp_path_factory.mktemp("runs")
    for tool in ("tau_bench", "tau2_bench"):
        shutil.copytree(FOREIGN / tool, runs / tool)
    with streamlit_server(runs, tmp_path_factory.mktemp("server") / "streamlit.log") as base:
        yield base


def test_an_uploaded_log_stays_shown_on_every_page(server: str, page: object) -> None:
    page.goto(f"{server}/")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    sidebar = page.locator('[data-testid="stSidebar"]')  # type: ignore[attr-defined]
    sidebar.get_by_role("button", name="Upload logs").click()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files([str(INSPECT)])  # type: ignore[attr-defined]
    sidebar.get_by_role("button", name="Uploads: 1 open").wait_for()
    page.keyboard.press("Escape")  # type: ignore[attr-defined]
    shown = "Shown: Inspect: rerunlens_fixture on moc…"
    sidebar.get_by_role("button", name=shown).wait_for()
    for view in ("Tasks", "Tokens", "Retries", "Overview", "Tokens"):  # any order, twice on one page
        page.get_by_role("link", name=view).first.click()  # type: ignore[attr-defined]
        wait_rendered(page, view)
        assert_no_exception(page)
        assert shown in sidebar.inner_text(), view
        assert "A: baseline" not in body_text(page).split("Shown:")[-1].splitlines()[0], view
    assert "focus=Inspect" in page.url  # type: ignore[attr-defined]
    assert "uploaded file mock_epochs.eval" in body_text(page)
    shot(page, "trust-upload-kept-tokens")


def _figure(page: object, label: str) -> str:
    return page.locator(f'[data-figure="{label}"]').first.get_attribute("data-value")  # type: ignore[attr-defined,no-any-return]


def test_what_a_log_does_not_record_reads_not_recorded(server: str, page: object) -> None:
    page.goto(f"{server}/?log=tau_bench/gpt-4o-airline.excerpt.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    assert_no_exception(page)
    assert _figure(page, "Drifted tasks") == "not recorded"
    assert "retries not recorded" in body_text(page)
    shot(page, "trust-not-recorded-overview")
    page.get_by_role("link", name="Routes").first.click()  # type: ignore[attr-defined]
    wait_rendered(page, "Routes")
    assert "No task changed" not in body_text(page)
    assert "Drifted tasks not recorded" in body_text(page)
    page.goto(f"{server}/?log=tau2_bench/airline_run1.excerpt.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    assert _figure(page, "Outcome gap") == "not recorded"
    assert "0.0 pp (95 % CI 0.0" not in body_text(page)
    shot(page, "trust-not-recorded-one-round")
