"""The Audit view's live audit in a real headless Chromium against two simulator routes, one honest and
one serving another model that over-reports its tokens: each host confirmed by a click (the question
names the audit's route), the cost shown before the start, the progress, then the verdict sentence
first and the evidence after it; a second audit cancelled mid-way stops sending and says so, and
continues from what it kept; one cancelled before a server restart is listed by the next server and
continues there. Screenshots go to artifacts/screenshots/live-audit-*.png."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import ROOT, assert_no_exception, body_text, browser_marks, shot, streamlit_server
from fake_keys import FAKE_KEY

from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion, Substitute

pytestmark = browser_marks()
IDLE_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app && app.getAttribute('data-test-script-state') === 'notRunning'
        && !document.querySelector('[data-testid="stSkeleton"]');
}"""

PROGRESSED_JS = (
    """() => /Live audit running · ([1-9][0-9,]*) \\/ 432 requests/.test(document.body.innerText)"""
)


@pytest.fixture()
def page_timeout_ms() -> int:
    return 90_000


@pytest.fixture(scope="module")
def routes() -> Iterator[tuple[Simulator, Simulator]]:
    """An honest route and one serving another model with 1.3 x the tokens reported; each request
    takes a little while, so the progress can be seen and a cancel lands mid-way."""

    def sim(distortion: Distortion) -> Simulator:
        scenario = Scenario(latency_ms=(30.0, 40.0), billing="o200k_base", distortion=distortion)
        return Simulator(scenario).start()

    honest, distorted = sim(Distortion()), sim(Distortion(substitute=Substitute(shift=3.0), usage_factor=1.3))
    try:
        yield honest, distorted
    finally:
        honest.stop()
        distorted.stop()


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("live-audit-e2e") / "runs"
    folder.mkdir()
    shutil.copy(ROOT / "sample_runs" / "C_pinned.altk_runs.json", folder)
    return folder.resolve()


@pytest.fixture(scope="module")
def server(runs_dir: Path) -> Iterator[str]:
    """One dashboard for the module: a fake key in its environment, its confirmed hosts kept apart."""
    log_path = runs_dir.parent / "streamlit.log"
    env = {"OPENAI_API_KEY": FAKE_KEY, "XDG_CONFIG_HOME": str(runs_dir.parent / "config")}
    with streamlit_server(runs_dir, log_path, env) as base:
        yield base
    assert FAKE_KEY not in log_path.read_text(errors="replace")


def settle(page: Any) -> None:
    page.get_by_role("heading", name="Audit", exact=True).first.wait_for()
    for _ in range(2):
        page.wait_for_function(IDLE_JS)
        page.wait_for_timeout(300)


def fill(page: Any, label: str, value: str) -> None:
    field = page.get_by_label(label, exact=True)
    field.fill(value)
    field.press("Enter")
    page.wait_for_timeout(300)
    settle(page)


def open_live_audit(page: Any, server: str, routes: tuple[Simulator, Simulator], samples: int) -> None:
    """Both routes typed in, each host confirmed with its click, the samples set."""
    page.goto(f"{server}/audit")
    settle(page)
    for label, sim in zip(("Reference", "Candidate"), routes, strict=True):
        fill(page, f"{label} base URL", sim.base_url)
        origin = sim.base_url.removesuffix("/v1")
        question = page.get_by_text(f"This audit's {label.lower()} route sends the key in OPENAI_API_KEY")
        if question.count():  # asked once per host; a host confirmed earlier in the module is not asked again
            assert origin in question.first.inner_text() and "log" not in question.first.inner_text()
            if label == "Candidate":
                shot(page, "live-audit-host-question")
            page.get_by_role("button", name=f"Send OPENAI_API_KEY to {origin}").click()
            settle(page)
    fill(page, "Samples per prompt", str(samples))


def sent(routes: tuple[Simulator, Simulator]) -> int:
    return sum(sum(s.status_counts.values()) for s in routes)


def test_a_live_audit_shows_its_cost_progress_then_the_verdict_first(
    server: str, page: Any, routes: tuple[Simulator, Simulator], runs_dir: Path
) -> None:
    open_live_audit(page, server, routes, samples=3)
    cost = page.get_by_text("Live audit: 108 requests (18 prompts x 3 samples x 2 routes)")
    cost.wait_for()
    assert "temperature 1" in cost.inner_text()
    shot(page, "live-audit-ready")
    before = sent(routes)
    page.get_by_role("button", name="Start the live audit").click()
    page.get_by_text("Live audit running", exact=False).first.wait_for()
    assert page.get_by_role("button", name="Start the live audit").is_disabled()  # no second audit
    shot(page, "live-audit-running")
    page.get_by_text("Wrote ", exact=False).first.wait_for()
    settle(page)
    assert_no_exception(page)
    assert sent(routes) - before == 108
    text = body_text(page)
    live = text[text.index("Live audit") :]
    verdict = live.index("Identity: the routes differ")
    assert "evidence, not proof of substitution" in live[verdict:]
    assert verdict < live.index("Prompts that differ most") < live.index("Tokens: reported against counted")
    assert "overbilled" in live
    assert FAKE_KEY not in page.content()
    written = sorted(p.name for p in runs_dir.glob("audit-*/*"))
    assert written == ["audit-candidate.altk_runs.json", "audit-reference.altk_runs.json", "audit.json"]
    shot(page, "live-audit-done")


def test_cancel_stops_the_sends_says_so_and_the_audit_continues(
    server: str, page: Any, routes: tuple[Simulator, Simulator], runs_dir: Path
) -> None:
    open_live_audit(page, server, routes, samples=12)
    page.get_by_role("button", name="Start the live audit").click()
    page.get_by_text("Live audit running", exact=False).first.wait_for()
    page.wait_for_function(PROGRESSED_JS)  # the progress counts results as they come
    assert page.get_by_role("button", name="Start the live audit").is_disabled()
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text("Live audit cancelled", exact=False).first.wait_for()
    settle(page)
    assert_no_exception(page)
    stopped = sent(routes)
    time.sleep(1.5)
    assert sent(routes) == stopped  # nothing is sent after the cancel
    text = body_text(page)
    kept = int(re.search(r"Live audit cancelled: (\d+) of 432 results are kept", text).group(1))  # type: ignore[union-attr]
    assert 0 < kept < 432
    # the first audit's logs, opened by default beside another log, are the pair offered, the right way round
    assert "share no task id" not in text
    assert "the candidate is overbilled" in text[: text.index("Live audit")]
    shot(page, "live-audit-cancelled")

    page.get_by_role("button", name="Continue this audit").click()
    page.get_by_text("Wrote ", exact=False).first.wait_for()
    settle(page)
    assert_no_exception(page)
    assert sent(routes) - stopped == 432 - kept  # the kept results were not sent again
    shot(page, "live-audit-continued")


def test_after_a_restart_the_unfinished_audit_is_listed_and_continues(
    page: Any, routes: tuple[Simulator, Simulator], tmp_path: Path
) -> None:
    """A cancelled audit outlives its server: the next server lists it (results written of the total,
    the cost of what is left) and its Continue sends only the rest."""
    runs = tmp_path / "runs"
    runs.mkdir()
    env = {"OPENAI_API_KEY": FAKE_KEY, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    with streamlit_server(runs, tmp_path / "first.log", env) as first:
        open_live_audit(page, first, routes, samples=12)
        page.get_by_role("button", name="Start the live audit").click()
        page.wait_for_function(PROGRESSED_JS)
        page.get_by_role("button", name="Cancel").click()
        page.get_by_text("Live audit cancelled", exact=False).first.wait_for()
        settle(page)
    stopped = sent(routes)
    [folder] = [p.parent for p in runs.glob("audit-*/audit.json")]
    with streamlit_server(runs, tmp_path / "second.log", env) as second:
        page.goto(f"{second}/audit")
        settle(page)
        listed = page.get_by_text(re.compile(rf"{re.escape(folder.name)}: (\d+) of 432 results written"))
        kept = int(re.search(r"(\d+) of 432", listed.inner_text()).group(1))  # type: ignore[union-attr]
        assert 0 < kept < 432
        page.get_by_text(f"Left to send: {432 - kept} requests", exact=False).wait_for()
        assert "Unfinished live audits in the runs folder" in body_text(page)
        shot(page, "live-audit-unfinished-after-restart")
        page.get_by_role("button", name="Continue", exact=True).click()
        page.get_by_text("Wrote ", exact=False).first.wait_for()
        settle(page)
        assert_no_exception(page)
        assert sent(routes) - stopped == 432 - kept  # the kept results were not sent again
        assert "results written" not in body_text(page)  # finished: no longer listed
        shot(page, "live-audit-continued-after-restart")
    for log in ("first.log", "second.log"):
        assert FAKE_KEY not in (tmp_path / log).read_text(errors="replace")
