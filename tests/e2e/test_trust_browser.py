"""In headless Chromium, what a user reads is true for logs of other tools as well as the samples:
an uploaded log stays the one shown while the user moves between pages; what a log does not record
reads "not recorded", never 0; your route is kept apart from the provider's backend; a re-run of
another tool's log asks first; Compare pairs only the same tasks; a link ticks what it names."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from urllib.parse import urlencode

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
    for tool in ("tau_bench", "tau2_bench", "inspect_ai", "promptfoo"):
        shutil.copytree(FOREIGN / tool, runs / tool)
    with streamlit_server(runs, tmp_path_factory.mktemp("server") / "streamlit.log") as base:
        yield base


def test_an_uploaded_log_stays_shown_on_every_page(server: str, page: object) -> None:
    page.goto(f"{server}/?log=sample_runs/A_baseline.altk_runs.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    sidebar = page.locator('[data-testid="stSidebar"]')  # type: ignore[attr-defined]
    sidebar.get_by_role("button", name="Upload logs").click()
    assert "Shown:" not in sidebar.inner_text()  # one log open: sample A
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


def test_one_key_with_a_changing_backend_is_not_called_pinned(server: str, page: object) -> None:
    page.goto(f"{server}/?log=sample_runs/B_one_key.altk_runs.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    text = body_text(page)
    assert "Your route held" in text and "the provider's backend did not" in text
    assert "Route pinned" not in text and "key, base URL or backend" not in text
    shot(page, "trust-route-or-backend")


def test_the_inconclusive_link_opens_rerun_with_those_tasks(server: str, page: object) -> None:
    page.goto(f"{server}/?log=sample_runs/A_baseline.altk_runs.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    page.get_by_role("link", name="Re-run the 2 inconclusive tasks").first.click()  # type: ignore[attr-defined]
    wait_rendered(page, "Re-run")
    assert_no_exception(page)
    page.get_by_role("button", name="Re-run 2 tasks x").first.wait_for()  # type: ignore[attr-defined]
    shot(page, "trust-rerun-two-inconclusive")


def test_a_tau_bench_rerun_asks_for_the_simulator_first(server: str, page: object) -> None:
    page.goto(f"{server}/rerun?log=tau_bench/gpt-4o-airline.excerpt.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Re-run")
    assert_no_exception(page)
    assert "tau-bench, no provider recorded" in body_text(page)
    assert page.get_by_role("button", name="Re-run").last.is_disabled()  # type: ignore[attr-defined]
    page.get_by_text("Re-run on the built-in simulator instead").click()  # type: ignore[attr-defined]
    page.get_by_text("prompt only: each task's first message is sent once").first.wait_for()  # type: ignore[attr-defined]
    assert "only the route is pinned" not in body_text(page)
    shot(page, "trust-rerun-tau-bench")


def test_compare_pairs_nothing_of_different_tasks(server: str, page: object) -> None:
    query = urlencode(
        {
            "log": ["inspect_ai/mock_epochs.json", "inspect_ai/versions_0.3.285.json"],
            "compare": [
                "Inspect: rerunlens_fixture on mockllm/model",
                "Inspect: versions_fixture on mockllm/model",
            ],
        },
        doseq=True,
    )
    page.goto(f"{server}/compare?{query}")  # type: ignore[attr-defined]
    wait_rendered(page, "Compare")
    assert_no_exception(page)
    text = body_text(page)
    assert "are not the same tasks" in text and "carry different prompts" in text
    assert "shared task" not in text
    shot(page, "trust-compare-unrelated")


def test_a_graded_tau_bench_log_leads_with_its_pass_k(server: str, page: object) -> None:
    page.goto(f"{server}/?log=tau_bench/gpt-4o-airline.excerpt.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    first = page.locator("h4").first.inner_text()  # type: ignore[attr-defined]
    assert first.startswith("Pass^4 20.0 % (95 % CI") and "mean reward 0.500" in first
    assert "have no measured cause: their rounds record no key or base URL" in body_text(page)
    assert "were not measured" not in body_text(page)
    shot(page, "trust-tau-bench-leads-with-pass-k")


def test_an_uploaded_promptfoo_file_opens_as_its_groups(server: str, page: object) -> None:
    page.goto(f"{server}/?log=sample_runs/A_baseline.altk_runs.json")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    sidebar = page.locator('[data-testid="stSidebar"]')  # type: ignore[attr-defined]
    sidebar.get_by_role("button", name="Upload logs").click()
    results = FOREIGN / "promptfoo" / "results.json"
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files([str(results)])  # type: ignore[attr-defined]
    page.get_by_text("holds 2 experiment groups").first.wait_for()  # type: ignore[attr-defined]
    page.keyboard.press("Escape")  # type: ignore[attr-defined]
    wait_rendered(page, "Overview")
    assert "Shown: promptfoo" in sidebar.inner_text()  # the file's first group, not sample A
    shot(page, "trust-promptfoo-groups")


def test_the_open_task_shows_what_it_expects_and_why_it_failed(server: str, page: object) -> None:
    page.goto(f"{server}/tasks?log=promptfoo/results.json&task=Peru")  # type: ignore[attr-defined]
    wait_rendered(page, "Tasks")
    assert_no_exception(page)
    text = body_text(page)
    assert "Expected" in text and '"value": "Lima"' in text
    assert "Why the grader failed it" in text and 'Expected output to contain "Lima"' in text
    shot(page, "trust-task-expected-and-reason")
