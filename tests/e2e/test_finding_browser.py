"""What a new user reads in headless Chromium, on the shipped samples: Overview's finding above the
fold, Compare on the logs that share tasks, each state a working filter, tables that fit at 1400 px,
two rounds side by side, the answers grid's legend and route marks, the Runs table.

Each test saves screenshots (artifacts/screenshots/finding-*.png) at 1400x1000 and 1024x768 for a
person to look at. Tables are read from the grid's accessible cells (what a screen reader reads).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_kit import (
    ROOT,
    SHOTS,
    assert_no_exception,
    body_text,
    browser_marks,
    shot,
    streamlit_server,
    wait_rendered,
)

from analyzer.analysis import analyze
from analyzer.log.loader import list_logs, load_path
from analyzer.report.finding import finding
from analyzer.report.route_tables import drift_by_field
from app.views.overview import STATE_HELP

pytestmark = browser_marks()
SAMPLES = ROOT / "sample_runs"
A = "A_baseline.altk_runs.json"
E = "E_agent_tools.altk_runs.json"
ALL = "&".join(f"log={p.name}" for p in list_logs(SAMPLES))


WIDEST = "@widest"
"""Stands in a path for A's task with the widest clusters table, found when the test runs (not on
collection, which would analyse the sample even where the test is not selected)."""


def _longest_clusters_task() -> str:
    """A's task whose answer clusters hold the longest text (its rounds listed, its answer): the
    widest clusters table a user of the sample can open."""
    clusters = analyze(load_path(SAMPLES / A).log).clusters
    width = clusters["rounds"].astype(str).str.len() + clusters["representative"].astype(str).str.len()
    return str(clusters.loc[width.idxmax(), "task_id"])


SIZES = [(1400, 1000), (1024, 768)]

STATIC = "table.rl-table"
"""The read-only tables (`app/widgets/static_table`), drawn as HTML tables."""
TABLES = f'[data-testid="stDataFrame"], {STATIC}'
"""The dashboard's tables: dataframes (a grid), and the read-only ones."""
TABLE_JS = """(n) => {
    const grid = [...document.querySelectorAll('@TABLES')][n];
    const rows = [...grid.querySelectorAll('tr')];
    return rows.map(r => [...r.querySelectorAll('th, td')].map(c => c.innerText));
}""".replace("@TABLES", TABLES)
"""The n-th table's header and rows as text."""
SCROLLS_JS = """() => {
    const limit = document.querySelector('[data-testid="stMain"]').getBoundingClientRect().right + 1;
    const grids = [...document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')]
        .filter(s => s.scrollWidth > s.clientWidth + 1);
    const marked = [...document.querySelectorAll('@STATIC')]
        .filter(t => t.getBoundingClientRect().right > limit);
    return grids.length + marked.length;
}""".replace("@STATIC", STATIC)
"""How many tables scroll sideways or run past the main area's right edge."""
CLIPPED_JS = """() => [...document.querySelectorAll('@STATIC :is(th, td)')]
    .filter(c => c.scrollWidth > c.clientWidth + 1).length""".replace("@STATIC", STATIC)
"""How many cells of the read-only tables hold more than they show."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    runs = tmp_path_factory.mktemp("runs")
    for path in list_logs(SAMPLES):
        shutil.copy(path, runs / path.name)
    with streamlit_server(runs, tmp_path_factory.mktemp("server") / "streamlit.log") as base:
        yield base


def view_shot(page: Any, name: str) -> None:
    """The viewport as a user sees it first (no scrolling), for looking at the fold."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def table(page: Any, n: int = 0) -> list[list[str]]:
    return page.evaluate(TABLE_JS, n)


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_overview_states_its_finding_above_the_fold(server: str, page: Any, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server}/?log={A}")
    wait_rendered(page, "Overview")
    assert_no_exception(page)
    expected = finding(analyze(load_path(SAMPLES / A).log).report())
    heading = page.locator("h4").first
    assert heading.inner_text() == expected.sentence
    assert heading.inner_text().startswith(
        "14 of 30 tasks disagree across 10 rounds: 46.7 % (95 % CI 28.3–65.7). Of them, 1 follows your route"
    )
    chart = page.get_by_role("img", name="Measured tasks, by what their answers did")
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 0  # no Plotly bundle to load
    for shown in (heading, chart):
        box = shown.bounding_box()
        assert box is not None and box["y"] + box["height"] <= height  # on the first screen, unscrolled
    text = body_text(page)
    bars = {f"{b.label} ({b.tasks})" for b in expected.bars}
    legend = {
        "consistent (16)",
        "route, q ≤ 0.05 (1)",
        "backend, q ≤ 0.05 (3)",
        "model (5)",
        "inconclusive (2)",
    }
    legend |= {"route or backend, q ≤ 0.05 (3)"}
    assert bars == legend and all(b in text for b in bars)  # the legend
    assert "The evidence for each of the 14 inconsistent tasks →" in text
    # ten rounds cannot tell every task: the first screen points to what would decide the rest
    decide = page.get_by_role(
        "link", name="Re-run the 2 inconclusive tasks on one pinned route to decide them →"
    )
    box = decide.bounding_box()
    assert box is not None and box["y"] + box["height"] <= height
    assert "Flagged tasks\n" not in text and "Answer consistency" not in text  # the download keeps its name
    view_shot(page, f"finding-overview-fold-{width}")


def test_each_state_is_its_own_figure_and_filter(server: str, page: Any) -> None:
    page.goto(f"{server}/?log={A}")
    wait_rendered(page, "Overview")
    text = body_text(page)
    for label, count in (("Inconsistent tasks", "14"), ("Drifted tasks", "30"), ("Errored tasks", "0")):
        figure = page.locator(f'[data-figure="{label}"]')
        # what a person reads: the label with its help mark (the help shows on hover), the value under it
        assert figure.inner_text().split("\n") == [f"{label}?", count]
        assert figure.get_attribute("title") == STATE_HELP[label.split()[0].lower()]
    # a keyboard reaches the help too: Tab from the figure before it stops on the mark and shows it
    page.locator('[data-figure="Inconsistent tasks"] .rl-help').focus()
    page.keyboard.press("Tab")
    tip = page.locator('[data-figure="Drifted tasks"] [role="tooltip"]')
    assert tip.is_visible() and tip.inner_text() == STATE_HELP["drifted"]
    box = tip.bounding_box()
    assert box is not None
    on_top = page.evaluate(  # drawn above whatever follows, not cut by its element's frame
        "([x, y]) => document.elementFromPoint(x, y)?.closest('[role=tooltip]') !== null",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] - 4],
    )
    assert on_top
    shot(page, "finding-figure-help-focused-1400")
    page.keyboard.press("Tab")
    assert not tip.is_visible()
    assert text.count("Show them →") == 2  # no link to zero errored tasks
    page.get_by_text("Show them →").first.click()
    wait_rendered(page, "Tasks")
    assert "show=inconsistent" in page.url
    assert "14 of 30 tasks" in body_text(page)
    rows = table(page)
    assert rows[0][:3] == ["task", "cause", "results"] and len(rows) - 1 <= 14
    shot(page, "finding-tasks-inconsistent-1400")


def test_compare_opens_on_the_logs_sharing_tasks(server: str, page: Any) -> None:
    page.goto(f"{server}/compare?{ALL}")
    wait_rendered(page, "Compare")
    assert_no_exception(page)
    rows = table(page)
    assert rows[0][0] == "group" and [r[0] for r in rows[1:]] == [
        "A",
        "B",
        "C",
        "D",
    ]  # not E, nor its resample
    text = body_text(page)
    assert (
        "B's answer gap is 16.7 pp lower than A's over 30 shared tasks (95 % CI -33.3 to 0.0, p = 0.125): "
        "not distinguishable from noise with 30 tasks" in text
    )
    assert page.evaluate(SCROLLS_JS) == 0
    shot(page, "finding-compare-1400")
    page.set_viewport_size({"width": 1024, "height": 768})
    page.wait_for_timeout(800)
    shot(page, "finding-compare-1024")


@pytest.mark.parametrize(
    "path",
    [
        f"tasks?log={A}&task=shop-002",
        f"tasks?log={A}&task={WIDEST}",
        f"tasks?log={A}&task=shop-002&tasks.detail=Every+round",
        f"tasks?log={E}&task=agent-refund-lamp&tasks.detail=Every+round",
        f"tasks?log={E}&task=agent-refund-lamp&tasks.detail=Trajectory",
        f"routes?log={A}",
        f"compare?{ALL}",
        "runs",
    ],
)
def test_tables_fit_at_1400_with_human_headers(server: str, page: Any, path: str) -> None:
    path = path.replace(WIDEST, _longest_clusters_task()) if WIDEST in path else path
    page.goto(f"{server}/{path}")
    wait_rendered(page, path.split("?")[0].capitalize() if path != "runs" else "Runs")
    assert page.evaluate(SCROLLS_JS) == 0  # no table scrolls sideways
    tables = page.locator(TABLES).count()
    headers = [h for n in range(tables) for h in table(page, n)[0]]
    assert headers and not [h for h in headers if "_" in h]  # never a snake_case header
    detail = path.split("tasks.detail=")[1].replace("+", "-").lower() if "tasks.detail=" in path else ""
    shot(page, f"finding-fit-{path.split('?')[0]}{'-' + detail if detail else ''}-{path.count(E)}-1400")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_routes_tables_show_every_value_whole(server: str, page: Any, width: int, height: int) -> None:
    """Where a task's route changed, each cell lists every value it saw, wrapped, never cut short."""
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server}/routes?log={A}")
    wait_rendered(page, "Routes")
    expected = drift_by_field(analyze(load_path(SAMPLES / A).log))
    assert "served model" in expected.columns and expected["served model"].str.contains(", ").any()
    headers, *rows = table(page, 1)  # the route tuples, then where it changed
    assert headers == list(expected.columns)
    assert rows == expected.astype(str).values.tolist()
    # a wrapped table, not a grid (a grid's cell ends in "…" where its text is longer than the column)
    assert page.locator('[data-testid="stDataFrame"]').count() == 0
    assert page.evaluate(CLIPPED_JS) == 0
    assert page.evaluate(SCROLLS_JS) == 0
    # a task id reads on one line ("shop-001", never "shop-" over "001"), however narrow the page
    lines = page.evaluate(
        """() => Array.from(
            [...document.querySelectorAll('@STATIC')][1].querySelectorAll('tbody td:first-child'),
            c => {
                const r = document.createRange();
                r.selectNodeContents(c);
                return r.getClientRects().length;
            }
        )""".replace("@STATIC", STATIC)
    )
    assert lines == [1] * len(expected)
    shot(page, f"finding-routes-{width}")


@pytest.mark.parametrize("log", [p.name for p in list_logs(SAMPLES) if p.name[1] == "_"])
def test_routes_tables_of_every_sample_stay_within_1024_px(server: str, page: Any, log: str) -> None:
    """Long words (a base URL, a fingerprint) cannot wrap: a table they would widen past the page
    is a grid that scrolls inside its frame instead."""
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"{server}/routes?log={log}")
    wait_rendered(page, "Routes")
    assert page.evaluate(SCROLLS_JS) == 0 and page.evaluate(CLIPPED_JS) == 0
    # a base URL from the log is text to read, never a live link
    assert page.locator(f"{STATIC} a").count() == 0


def test_two_rounds_side_by_side_from_where_they_part(server: str, page: Any) -> None:
    page.goto(f"{server}/tasks?log={E}&task=agent-refund-lamp")
    wait_rendered(page, "Tasks")
    assert "The rounds at tool call 2" not in body_text(page)  # the trajectory tab: built once opened
    page.get_by_role("tab", name="Trajectory").click()
    page.get_by_text("The rounds at tool call 2").wait_for()
    assert "tasks.detail=Trajectory" in page.url
    assert "Start where they part" not in body_text(page)  # built once opened
    page.get_by_text("Trajectories, two rounds side by side").click()
    page.get_by_text("Start where they part").wait_for()
    wait_rendered(page, "Tasks")
    assert "tasks.trajectories=" in page.url
    text = body_text(page)
    assert "Rounds 1 and 2 made the same calls up to tool call 1, then part at tool call 2" in text
    assert '2. get_order("order_id": "O-5001")' in text and '2. get_order("order_id": "O-5002")' in text
    assert "first divergence at tool call 2" in text and "The rounds at tool call 2" in text
    box = page.get_by_text("Round 1", exact=True).bounding_box()
    beside = page.get_by_text("Round 2", exact=True).bounding_box()
    assert box and beside and abs(box["y"] - beside["y"]) < 5 and beside["x"] > box["x"] + 200  # side by side
    page.get_by_text("Trajectories, two rounds side by side").scroll_into_view_if_needed()
    view_shot(page, "finding-trajectories-1400")


def test_the_answers_grid_has_a_legend_and_route_marks(server: str, page: Any) -> None:
    page.goto(f"{server}/tasks?log={A}&show=inconsistent&tasks.tab=Answers+by+round")
    wait_rendered(page, "Tasks")
    text = body_text(page)
    assert "cluster 0: the task's most common answer" in text and "cluster 1" in text
    assert "Routes: R1 = key sha256:632207691254" in text
    marks = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot text')].map(t => t.textContent)"
    )
    assert {"R1", "R3"} <= set(marks)
    shot(page, "finding-grid-1400")


def test_the_runs_table_lists_logs_with_their_headline(server: str, page: Any) -> None:
    page.goto(f"{server}/runs?log={A}")
    wait_rendered(page, "Runs")
    rows = table(page)
    assert rows[0][-7:] == ["open", "log", "where", "date", "tasks x rounds", "headline", "parent"]
    # the samples are copied into the runs folder here: each label twice, told apart by where it is
    by_log = {(r[-6], r[-5]): r[-6:] for r in rows[1:]}
    label = "A: baseline (two keys alternating, SDK default retries, concurrency 4)"
    for where in ("runs folder", "sample"):
        assert by_log[label, where][3:5] == ["30 x 10", "14 of 30 tasks disagree · gap 46.7 pp"]
    resample = "resample of agent-cheapest-monitor (round 1), 8 samples per step"
    assert by_log[resample, "runs folder"][5] == "resample of E"
    assert by_log["format1_plain_script.json", "runs folder"][2] in ("", "—")  # no date: listed last
    assert list(by_log)[-1][0] == "format1_plain_script.json"
    assert page.evaluate(SCROLLS_JS) == 0 and page.evaluate(CLIPPED_JS) == 0  # labels read in full
    shot(page, "finding-runs-1400")
    # pick two logs by label in the popover; the button opens exactly those
    page.get_by_role("button", name="Open logs").click()
    box = page.locator('[data-testid="stPopoverBody"]')
    for name in ("B: one key, max_retries 1 · runs folder", "C: pinned route"):
        box.locator('[data-testid="stMultiSelect"] input').fill(name)
        page.get_by_role("option").filter(has_text=name).filter(has_text="runs folder").first.click()
    box.get_by_text("Logs to open").click()  # the option list closes
    shot(page, "finding-runs-picked-1400")
    box.get_by_role("button", name="Open the 2 picked logs").click()
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="2 logs open").wait_for()
    wait_rendered(page, "Runs")
    assert_no_exception(page)
    logs = parse_qs(urlsplit(page.url).query)["log"]
    assert sorted(logs) == ["B_one_key.altk_runs.json", "C_pinned.altk_runs.json"]
    opened = [r[-6] for r in table(page)[1:] if r[-7] == "open"]
    assert len(opened) == 2 and opened[0].startswith("C: pinned route") and opened[1].startswith("B: one key")
    # too wide for a narrow window, the table scrolls in its own box; the page does not
    page.set_viewport_size({"width": 1024, "height": 768})
    page.wait_for_timeout(800)
    main = '[data-testid="stMain"]'
    assert page.evaluate(f"() => document.querySelector('{main}').scrollWidth <= innerWidth")
    shot(page, "finding-runs-1024")


def test_each_cause_row_opens_its_evidence(server: str, page: Any) -> None:
    page.goto(f"{server}/routes?log={A}&key=normalized&routes.causes=true")  # the cause list opened
    wait_rendered(page, "Routes")
    grid = page.locator('[data-testid="stDataFrame"]').last
    grid.scroll_into_view_if_needed()
    rows = table(page, page.locator(TABLES).count() - 1)
    assert rows[0][:2] == ["open", "task"]
    task = rows[1][1]
    box = grid.bounding_box()
    assert box is not None
    x, y = box["x"] + 30, box["y"] + 53  # the first row's "evidence" link
    page.mouse.move(x, y)
    page.wait_for_timeout(300)
    with page.context.expect_page() as opened:
        page.mouse.click(x, y)
    evidence = opened.value
    evidence.set_default_timeout(60_000)
    wait_rendered(evidence, "Tasks")
    assert_no_exception(evidence)
    assert f"Task {task} ·" in body_text(evidence)  # that task opens, under the same key
    assert "key=normalized" in evidence.url and f"task={task}" in evidence.url
    shot(evidence, "finding-cause-link-1400")
    evidence.close()


def test_the_inconclusive_finding_leads_to_the_re_run_that_decides(server: str, page: Any) -> None:
    page.goto(f"{server}/?log={A}")
    wait_rendered(page, "Overview")
    page.get_by_role(
        "link", name="Re-run the 2 inconclusive tasks on one pinned route to decide them →"
    ).click()
    wait_rendered(page, "Re-run")
    assert_no_exception(page)  # the same log, exactly the two tasks the link names, not all 14
    page.get_by_role("button", name="Re-run 2 tasks x").first.wait_for()


def test_the_open_task_row_is_in_view_in_the_task_list(server: str, page: Any) -> None:
    """A task far down the list opens with its row highlighted and scrolled into the list's box (under
    its header, which stays in view); a person's own scrolling of the list is never taken back; Next
    brings the new row into view."""
    order = analyze(load_path(SAMPLES / A).log).tasks["task_id"].tolist()
    task = order[20]
    page.goto(f"{server}/tasks?log={A}&task={task}")
    wait_rendered(page, "Tasks")
    in_view = """() => {
        const box = document.querySelector('.rl-box'), row = box.querySelector('tr.on');
        const b = box.getBoundingClientRect(), r = row.getBoundingClientRect();
        const head = box.querySelector('th').getBoundingClientRect();
        const shown = r.top >= head.bottom - 1 && r.bottom <= b.bottom + 1;
        return [row.querySelector('td').innerText, box.scrollTop > 0, shown, head.top >= b.top - 1];
    }"""
    assert page.evaluate(in_view) == [task, True, True, True]
    box = page.locator(".rl-box")
    where = box.bounding_box()
    page.mouse.move(where["x"] + 50, where["y"] + 100)
    page.mouse.wheel(0, -5000)  # a person scrolls the list to its top, then moves on
    page.wait_for_timeout(500)
    page.mouse.move(0, 0)
    page.wait_for_timeout(1000)
    assert box.evaluate("b => b.scrollTop") == 0
    page.get_by_role("button", name="Next").click()
    page.get_by_text(f"Task {order[21]} · ", exact=False).wait_for()
    wait_rendered(page, "Tasks")
    assert page.evaluate(in_view) == [order[21], True, True, True]
    shot(page, "finding-tasks-open-row-in-view")
