"""Time to first full render of the dashboard's Overview and Tasks views on a 1,000-task x 10-round log.

    python scripts/bench_dashboard.py [--tasks 1000] [--rounds 10] [--repeat 5] [--no-browser]
                                      [--against CHECKOUT]

Writes a realistic format-2 log (the task definitions with their prompts, as the runner writes them,
attempts with 429s and timeouts, a drifting route, grading) to a temporary runs folder, then
measures each view:

1. server side, with Streamlit's AppTest (the script run alone, new log then cached), and what the
   view puts on the page (elements, Plotly charts, dataframe cells);
2. in headless Chromium (Debian's `chromium`, if installed) against a running `streamlit run`, from
   navigation until the title is shown, the script run has finished and every chart and table is
   drawn. "New log" opens a copy of the log the server has not read yet (reading and analysing it
   included); "cached" opens the same URL again. Each figure is the median of `--repeat` rounds,
   taken in turns with a same-run baseline: a page holding only a title, served by a second
   Streamlit server to the same browser. Every timed visit starts from a blank page, so that no
   figure carries the cost of leaving the page measured before it. The machine's load average is
   printed beside them, and the page's main-thread CPU while drawing (Chromium tracing).
   `--against /work/main` measures another checkout's dashboard in the same rounds: a before/after
   that shares the machine's load.
   "switch" is what a user mostly does: a click in the sidebar's navigation from the other view,
   with the page (and its scripts) already loaded and the log cached.

The targets (headless Chromium, quiet machine): new log within 2 s, cached within 1 s.

`--samples` is the render-time check on the shipped sample logs instead: every view's first visit
(a fresh browser context: no cached scripts) and warm visit (the same page loaded again), each
taken in turns with the same visit of a bare Streamlit page (one title) in the same run, and the
ratios set against their bounds: a warm page within 1.5x the bare one, a first visit within 2.5x.
The bare page is served at the view's own path (/runs, /tasks...: see BARE_PATHS_SCRIPT), and the
ratio to the bare page at the root is printed beside it. A third figure, "switch", is a click in the
navigation to the view from a loaded one (Runs, or Overview for Runs) with the same logs, against a
click between the two one-title pages of a bare app (BARE_SWITCH_SCRIPT), held to the warm bound.
No assertions: this is a benchmark; every figure is printed beside the baseline and the load.

Chromium's flags, the server start and the "fully drawn" check are the browser tests' own, from
tests/e2e/browser_kit.py: that folder is put on sys.path below and the module imported by name (it
needs neither pytest nor, until a browser is driven, Playwright).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from browser_kit import CHROMIUM, CHROMIUM_FLAGS, MAIN, RENDERED_JS, streamlit_server  # noqa: E402

SETTLE_MS = 400
"""Untimed pause on the blank page before each timed visit: leaving a page frees its heap and tears
down its elements after the navigation has returned."""
NEW_TARGET_S = 2.0
CACHED_TARGET_S = 1.0
VIEWS = {"overview": "", "tasks": "tasks"}
"""View name to URL path."""
BASELINE_SCRIPT = 'import streamlit as st\n\nst.title("Baseline")\n'
"""The same-run baseline: the least a Streamlit page can be (one title), in the same browser."""

BARE_PATHS_SCRIPT = """import streamlit as st


def bare():
    st.title("Baseline")


st.navigation(
    [st.Page(bare, title="Baseline", default=True)]
    + [st.Page(bare, title=p, url_path=p) for p in ("runs", "tasks", "routes", "compare")],
    position="hidden",
).run()
"""
"""The baseline at each view's own path: the same one-title page, served under /runs, /tasks... (no
navigation drawn). Streamlit's client looks for its server under a page's path before the root
(a /runs/_stcore/health request, then /_stcore/health), about 0.1 s that any Streamlit page below
the root pays; this baseline pays it too, so the ratio is what the view itself adds."""

BARE_SWITCH_SCRIPT = """import streamlit as st


def page(title):
    return st.Page(lambda: st.title(title), title=title, url_path=title.lower(), default=title == "Baseline")


st.navigation([page("Baseline"), page("Other")]).run()
"""
"""The baseline of a switch: two one-title pages in the sidebar's navigation, and a click from one to
the other (page and scripts already loaded, as when a user moves between the dashboard's views)."""
SWITCH_FROM = {"Runs": "Overview"}
"""The view a switch to each sample view starts from (Runs, unless named here), with the same logs."""


def _iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def _attempts(
    rng: random.Random, plan: list[str], route: dict, start: datetime
) -> tuple[list[dict], datetime]:
    """One result's HTTP attempts by `plan` (outcomes in order) from `start`, and when they ended."""
    attempts = []
    t = start
    for k, outcome in enumerate(plan):
        dur = 60.0 if outcome == "timeout" else rng.uniform(0.3, 2.0)
        attempts.append(
            {
                "attempt": k,
                "started_at": _iso(t),
                "ended_at": _iso(t + timedelta(seconds=dur)),
                "status_code": {"ok": 200, "rate_limited": 429, "timeout": None}[outcome],
                "outcome": outcome,
                "retry_after_s": 1.0 if outcome == "rate_limited" else None,
                "base_url": route["base_url"],
                "key_fingerprint": route["key_fingerprint"],
            }
        )
        t += timedelta(seconds=dur + 0.2)
    return attempts, t


def _result(
    rng: random.Random, i: int, rnd: int, unstable: bool, routes: tuple[dict, dict], clock: datetime
) -> tuple[dict, datetime]:
    """Task `i`'s result of round `rnd` at `clock` (an unstable task's through the second of `routes`
    now and then), and the next task's start."""
    answer = (
        f"answer {i}" if not unstable or rng.random() < 0.6 else f"answer {i} variant {rng.randint(1, 3)}"
    )
    route = routes[1] if (unstable and rng.random() < 0.2) else routes[0]
    plan = ["ok"]
    if rng.random() < 0.05:
        plan = ["rate_limited", "ok"]
    elif rng.random() < 0.01:
        plan = ["timeout", "ok"]
    attempts, t = _attempts(rng, plan, route, clock)
    prompt = 200 + i % 300
    completion = rng.randint(20, 200)
    result = {
        "task_id": f"task-{i:04d}",
        "round": rnd,
        "answer": answer,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "status": "ok",
        "expected": f"answer {i}",
        "success": answer == f"answer {i}",
        "started_at": _iso(clock),
        "finished_at": _iso(t),
        "latency_ms": round((t - clock).total_seconds() * 1000, 1),
        "route": route,
        "served_model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_a11",
        "finish_reason": "stop",
        "attempts": attempts,
    }
    return result, clock + timedelta(milliseconds=50)


def make_log(n_tasks: int, n_rounds: int, seed: int = 7) -> dict:
    """A format-2 log: some tasks unstable, some rounds through a second route, some retries.

    It carries its task definitions, as every log the runner writes does: the Tasks view shows the
    open task's prompt.
    """
    rng = random.Random(seed)
    t0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    route_a = {
        "base_url": "https://api.example.com/v1",
        "key_fingerprint": "sha256:1a2b3c4d5e6f",
        "model": "gpt-4o-mini",
        "temperature": 0.0,
        "top_p": 1.0,
        "seed": 42,
        "max_tokens": 512,
        "timeout_s": 60.0,
        "max_retries": 2,
    }
    route_b = {
        **route_a,
        "base_url": "https://eu.proxy.example.com/v1",
        "key_fingerprint": "sha256:9f8e7d6c5b4a",
    }
    stability = [rng.random() for _ in range(n_tasks)]
    runs = []
    clock = t0
    for rnd in range(1, n_rounds + 1):
        results = []
        for i in range(n_tasks):
            unstable = stability[i] < 0.3
            result, clock = _result(rng, i, rnd, unstable, (route_a, route_b), clock)
            results.append(result)
        runs.append(results)
    return {
        "format": "altk-runs/2",
        "run_id": "bench",
        "created_at": _iso(t0),
        "label": f"bench {n_tasks}x{n_rounds}",
        "route": route_a,
        "tasks": [
            {
                "task_id": f"task-{i:04d}",
                "prompt": f"In the ShopNow app, open order #{58000 + i} and report its total including tax "
                "and shipping, in one sentence.",
                "expected": f"answer {i}",
            }
            for i in range(n_tasks)
        ],
        "runs": runs,
    }


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def bench_apptest(runs_dir: Path, log_name: str) -> dict[str, tuple[float, float]]:
    """Script-run seconds per view, (new log, cached), through AppTest; prints what each view shows."""
    os.environ["RERUNLENS_RUNS_DIR"] = str(runs_dir)
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    out: dict[str, tuple[float, float]] = {}
    for view in VIEWS:
        st.cache_data.clear()
        st.cache_resource.clear()
        at = AppTest.from_file(str(MAIN), default_timeout=120)
        at.query_params["log"] = log_name
        if view != "overview":
            at.switch_page(f"views/{view}.py")
        t = time.perf_counter()
        at.run()
        cold = time.perf_counter() - t
        t = time.perf_counter()
        at.run()
        warm = time.perf_counter() - t
        if at.exception:
            print(f"  {view}: exception: {at.exception[0].value}", file=sys.stderr)
        out[view] = (cold, warm)
        cells = sum(frame.value.size for frame in at.dataframe)
        print(
            f"  {view:<9} shows {len(list(at.main))} top-level elements, {len(at.get('plotly_chart'))} "
            f"Plotly chart(s), {len(at.dataframe)} dataframe(s) of {cells:,} cells"
        )
    return out


def _drawn(page: object, url: str) -> float:
    """Seconds from navigation to `url` fully drawn, starting from a blank page.

    The blank page comes first, untimed, because leaving a page costs time too (its tables and
    charts are torn down): timed straight from the previous measure, each figure carried the cost of
    leaving whichever page the round had measured before it, and the bare page at the root, measured
    after the heaviest view, looked up to twice as slow as the same page after a bare one.
    """
    page.goto("about:blank")  # type: ignore[attr-defined]
    page.wait_for_timeout(SETTLE_MS)  # type: ignore[attr-defined]
    t = time.perf_counter()
    page.goto(url)  # type: ignore[attr-defined]
    page.wait_for_function(RENDERED_JS, polling=50)  # type: ignore[attr-defined]
    return time.perf_counter() - t


def _renderer_cpu_ms(browser: object, page: object, url: str, trace: Path) -> float:
    """CPU milliseconds of the page's main thread (Chromium tracing) while `url` is drawn.

    Less sensitive to other processes than the wall time, since the waits for a core are left out:
    what the browser itself spends on the page (scripts, style, layout, paint).
    """
    browser.start_tracing(  # type: ignore[attr-defined]
        page=page, path=str(trace), categories=["devtools.timeline", "disabled-by-default-devtools.timeline"]
    )
    _drawn(page, url)
    browser.stop_tracing()  # type: ignore[attr-defined]
    events = json.loads(trace.read_text(encoding="utf-8"))["traceEvents"]
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    busy = [e for e in events if e.get("name") == "RunTask" and e.get("ph") == "X"]
    return sum(e.get("tdur", 0) for e in busy if (e.get("pid"), e.get("tid")) in main) / 1000


def _switched(page: object, title: str) -> float:
    """Seconds from a click on a view in the sidebar's navigation (no page load) to it fully drawn."""
    ready = RENDERED_JS.replace(
        "return document.querySelectorAll('h1').length > 0;",
        f"return [...document.querySelectorAll('h1')].some(h => h.textContent.trim() === {title!r});",
    )
    page.bring_to_front()  # type: ignore[attr-defined]  # a background tab's frames are throttled
    t = time.perf_counter()
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()  # type: ignore[attr-defined]
    page.wait_for_function(ready, polling=50)  # type: ignore[attr-defined]
    return time.perf_counter() - t


def _switch(page: object, start_url: str, title: str) -> float:
    """Seconds of a switch to the view `title` from the page at `start_url` (loaded, not timed)."""
    _drawn(page, start_url)
    return _switched(page, title)


Measure = Callable[[int], float]
"""One timed measure, given the round's number."""


def _each(measure: Callable[[], float]) -> Measure:
    """A measure that is the same in every round."""
    return lambda _round: measure()


def _drawn_round(page: object, url: str, r: int) -> float:
    """`_drawn` of `url` with the round's number put in (a log of its own per round)."""
    return _drawn(page, url.format(r=r))


def _rounds(measures: dict[str, Measure], repeat: int) -> dict[str, list[float]]:
    """Each measure `repeat` times, in turns, so a change of load touches all of them alike."""
    out: dict[str, list[float]] = {name: [] for name in measures}
    for r in range(repeat):
        for name, measure in measures.items():
            out[name].append(measure(r))
    return out


def _copies(runs_dir: Path, log_name: str, prefix: str, repeat: int) -> None:
    """A copy of the big log per view and round, so each "new" round opens a log not read yet."""
    for view in VIEWS:
        for r in range(repeat):
            shutil.copy(runs_dir / log_name, runs_dir / f"{prefix}{view}_{r}_{log_name}")


def bench_browser(
    runs_dir: Path, log_name: str, chromium: str, repeat: int, apps: dict[str, Path]
) -> dict[str, list[float]]:
    """Seconds from navigation to a fully drawn page in headless Chromium, per measure and round.

    `apps` names each dashboard measured (this checkout's, and another's with `--against`); each
    runs its own server, all taken in turns with the baseline. The servers are warmed up on a
    small log (Python imports, the browser's script cache); each "new" round then opens its own copy
    of the big log, so reading and analysing it are included. The cold start is printed apart.
    """
    from playwright.sync_api import sync_playwright

    small = "warmup.json"
    (runs_dir / small).write_text(json.dumps(make_log(5, 3)), encoding="utf-8")
    baseline_dir = runs_dir / "baseline"
    baseline_dir.mkdir()
    (baseline_dir / "baseline.py").write_text(BASELINE_SCRIPT, encoding="utf-8")
    with ExitStack() as stack, sync_playwright() as pw:
        floor = stack.enter_context(streamlit_server(baseline_dir, script=baseline_dir / "baseline.py"))
        bases = {
            name: stack.enter_context(streamlit_server(runs_dir, script=app)) for name, app in apps.items()
        }
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(120_000)
        measures: dict[str, Measure] = {"baseline": _each(partial(_drawn, page, floor))}
        cpu_urls = {"baseline": floor}
        for name, base in bases.items():
            cold_start = _drawn(page, f"{base}/?log={small}")
            print(f"  (cold start of {name or 'the'} server and browser on a 5-task log: {cold_start:.2f} s)")
            prefix = f"{name}_" if name else ""
            _copies(runs_dir, log_name, prefix, repeat)
            for view, path in VIEWS.items():
                _drawn(page, f"{base}/{path}?log={small}")
                _drawn(page, f"{base}/{path}?log={log_name}")  # the big log's page shape, once
                url = f"{base}/{path}?log={prefix}{view}_{{r}}_{log_name}"
                label = f"{view} ({name})" if name else view
                measures[f"{label} new"] = partial(_drawn_round, page, url)
                measures[f"{label} cached"] = partial(_drawn_round, page, url)
                cpu_urls[f"{label} cached"] = url.format(r=0)
        out = _rounds(measures, repeat)
        switch: dict[str, Measure] = {}
        for name, base in bases.items():  # the sidebar's navigation: a page per app stays loaded
            prefix, label = (f"{name}_", f" ({name})") if name else ("", "")
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.set_default_timeout(120_000)
            _drawn(tab, f"{base}/?log={prefix}overview_0_{log_name}")
            for t in ("Tasks", "Overview"):
                switch[f"{t.lower()}{label} switch"] = _each(partial(_switched, tab, t))
        out |= _rounds(switch, repeat)
        trace = runs_dir / "trace.json"
        cpu = {
            f"{name} cpu": _each(partial(_renderer_cpu_ms, browser, page, url, trace))
            for name, url in cpu_urls.items()
        }
        out |= _rounds(cpu, 3)
        browser.close()
    return out


WARM_BOUND = 1.5
FIRST_BOUND = 2.5
SAMPLE_VIEWS = {
    "Overview": "?log=sample_runs/A_baseline.altk_runs.json",
    "Runs": "runs?log=sample_runs/A_baseline.altk_runs.json",
    "Tasks": "tasks?log=sample_runs/A_baseline.altk_runs.json&task=shop-002",
    "Tasks (agent)": "tasks?log=sample_runs/E_agent_tools.altk_runs.json&task=agent-refund-lamp",
    "Routes": "routes?log=sample_runs/A_baseline.altk_runs.json",
    "Compare": "compare?"
    + "&".join(
        f"log=sample_runs/{x}_{y}.altk_runs.json"
        for x, y in (("A", "baseline"), ("B", "one_key"), ("C", "pinned"), ("D", "key_rotation"))
    ),
}
"""The views the render-time check opens on the samples, by name: the shipped samples as a new user
sees them (an empty runs folder), so Runs lists each sample once."""


def _path(view_url: str) -> str:
    """A view URL's page path: `tasks` of `tasks?log=...`, empty for the root."""
    return view_url.split("?", 1)[0]


def _first_visit(browser: object, url: str) -> float:
    """Seconds to a fully drawn page in a fresh browser context (nothing cached in the browser)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        return _drawn(page, url)
    finally:
        context.close()


def bench_samples(
    chromium: str, repeat: int, against: Path | None = None, views: dict[str, str] = SAMPLE_VIEWS
) -> dict[str, list[float]]:
    """First and warm visits of each of `views` and of a bare page, `repeat` rounds in turns; with
    `against`, the same views of that checkout's dashboard too (named `<view> (<checkout>)`)."""
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory(prefix="rerunlens-render-") as tmp,
        ExitStack() as stack,
        sync_playwright() as pw,
    ):
        runs = Path(tmp) / "runs"
        runs.mkdir()
        bare_dir = Path(tmp) / "bare"
        bare_dir.mkdir()
        (bare_dir / "bare.py").write_text(BASELINE_SCRIPT, encoding="utf-8")
        (bare_dir / "bare_paths.py").write_text(BARE_PATHS_SCRIPT, encoding="utf-8")
        bare = stack.enter_context(streamlit_server(bare_dir, script=bare_dir / "bare.py"))
        bare_paths = stack.enter_context(streamlit_server(bare_dir, script=bare_dir / "bare_paths.py"))
        (bare_dir / "bare_switch.py").write_text(BARE_SWITCH_SCRIPT, encoding="utf-8")
        bare_switch = stack.enter_context(streamlit_server(bare_dir, script=bare_dir / "bare_switch.py"))
        base = stack.enter_context(streamlit_server(runs))
        other = (
            stack.enter_context(streamlit_server(runs, script=against / "app" / "main.py"))
            if against
            else None
        )
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS, headless=True)
        warm = browser.new_page(viewport={"width": 1400, "height": 1000})
        warm.set_default_timeout(120_000)
        urls = {"bare page": bare} | {
            f"bare page /{path}": f"{bare_paths}/{path}"
            for path in sorted({_path(v) for v in views.values()})
            if path
        }
        urls |= {name: f"{base}/{path}" for name, path in views.items()}
        if other and against:
            urls |= {f"{name} ({against.name})": f"{other}/{path}" for name, path in views.items()}
        for url in urls.values():  # the servers' imports and each view's log read once, before timing
            _drawn(warm, url)
        measures: dict[str, Measure] = {}
        for name, url in urls.items():
            measures[f"{name} first"] = _each(partial(_first_visit, browser, url))
            measures[f"{name} warm"] = _each(partial(_drawn, warm, url))
        measures["bare page switch"] = _each(partial(_switch, warm, f"{bare_switch}/", "Other"))
        for name, view_url in views.items():
            start = _path(SAMPLE_VIEWS[SWITCH_FROM.get(name, "Runs")]) + view_url.removeprefix(
                _path(view_url)
            )
            title = name.split(" (")[0]
            measures[f"{name} switch"] = _each(partial(_switch, warm, f"{base}/{start}", title))
            if other and against:
                measures[f"{name} ({against.name}) switch"] = _each(
                    partial(_switch, warm, f"{other}/{start}", title)
                )
        out = _rounds(measures, repeat)
        browser.close()
    return out


def _print_samples(figures: dict[str, list[float]]) -> None:
    """Each view's medians beside the bare page's at its own path (and at the root), and whether the
    ratio to the same-path page is within its bound."""

    def median(name: str, kind: str) -> float:
        return statistics.median(figures[f"{name} {kind}"])

    bares = [n.removesuffix(" first") for n in figures if n.startswith("bare page") and n.endswith(" first")]
    for bare in bares:
        print(f"  {bare:<22} first visit {median(bare, 'first'):.2f} s, warm {median(bare, 'warm'):.2f} s")
    print(f"  {'bare page switch':<22} {median('bare page', 'switch'):.2f} s (a click in its navigation)")
    views = [
        n.removesuffix(" first") for n in figures if n.endswith(" first") and not n.startswith("bare page")
    ]
    for name in views:
        path = _path(SAMPLE_VIEWS.get(name.split(" (")[0], ""))
        floor = f"bare page /{path}" if path else "bare page"
        parts = []
        for kind, bound in (("first", FIRST_BOUND), ("warm", WARM_BOUND)):
            ratio = median(name, kind) / median(floor, kind)
            root = median(name, kind) / median("bare page", kind)
            mark = "within" if ratio <= bound else "OVER"
            parts.append(
                f"{kind} {median(name, kind):.2f} s = {ratio:.2f}x ({mark} {bound}x, root {root:.2f}x)"
            )
        switch = median(name, "switch")
        ratio = switch / median("bare page", "switch")
        parts.append(
            f"switch {switch:.2f} s = {ratio:.2f}x ({'within' if ratio <= WARM_BOUND else 'OVER'} "
            f"{WARM_BOUND}x)"
        )
        print(f"  {name:<14} " + " · ".join(parts))


def _print_server(figures: dict[str, tuple[float, float]]) -> None:
    for view, (cold, warm) in figures.items():
        print(f"  {view:<9} new log {cold:5.2f} s   cached {warm:5.2f} s")


def _print_browser(figures: dict[str, list[float]]) -> None:
    """Medians (and range) beside the baseline, against the targets."""
    floor = statistics.median(figures["baseline"])
    print(f"  baseline (a title-only Streamlit page) {floor:5.2f} s  (range {_range(figures['baseline'])})")
    for name, values in figures.items():
        if name == "baseline" or name.endswith(" cpu"):
            continue
        median = statistics.median(values)
        target = NEW_TARGET_S if name.endswith("new") else CACHED_TARGET_S  # a switch is cached too
        mark = "met" if median <= target else "NOT MET"
        print(
            f"  {name:<16} {median:5.2f} s  (range {_range(values)}) = {median / floor:4.2f}x baseline"
            f"   target {target:.0f} s: {mark}"
        )


def _print_cpu(figures: dict[str, list[float]]) -> None:
    floor = statistics.median(figures["baseline cpu"])
    print("  the page's main-thread CPU while drawing, cached (Chromium tracing, median of 3 in turns):")
    for name, values in figures.items():
        if name.endswith(" cpu"):
            median = statistics.median(values)
            print(f"    {name.removesuffix(' cpu'):<16} {median:5.0f} ms = {median / floor:4.2f}x baseline")


def _range(values: list[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f} s over {len(values)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5, help="browser rounds per measure (median shown)")
    parser.add_argument("--no-browser", action="store_true", help="only the server-side measure")
    parser.add_argument(
        "--samples",
        action="store_true",
        help="the render-time check: each view on the shipped samples against a bare Streamlit page",
    )
    parser.add_argument(
        "--views",
        metavar="NAMES",
        help="with --samples, only these views, comma-separated (e.g. 'Tasks,Runs'): more rounds in the time",
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="CHECKOUT",
        help="also measure the dashboard of another checkout (e.g. /work/main), in the same rounds",
    )
    args = parser.parse_args()
    if args.samples:
        if CHROMIUM is None:
            print("browser: skipped (Debian's chromium is not installed)")
            return
        print(f"render-time check on the samples, headless Chromium at 1400x1000, {load_average()} before:")
        names = args.views.split(",") if args.views else list(SAMPLE_VIEWS)
        unknown = [n for n in names if n not in SAMPLE_VIEWS]
        if unknown:
            parser.error(f"--views: no view named {', '.join(unknown)} (there are {', '.join(SAMPLE_VIEWS)})")
        views = {n: SAMPLE_VIEWS[n] for n in names}
        _print_samples(bench_samples(CHROMIUM, args.repeat, args.against, views))
        print(f"  {load_average()} after (medians of {args.repeat} rounds taken in turns)")
        return

    with tempfile.TemporaryDirectory(prefix="rerunlens-bench-") as tmp:
        runs_dir = Path(tmp)
        name = f"bench_{args.tasks}x{args.rounds}.json"
        t = time.perf_counter()
        (runs_dir / name).write_text(json.dumps(make_log(args.tasks, args.rounds)), encoding="utf-8")
        size = (runs_dir / name).stat().st_size
        print(
            f"log: {args.tasks} tasks x {args.rounds} rounds, {size / 2**20:.1f} MiB "
            f"(written in {time.perf_counter() - t:.1f} s); {load_average()}"
        )
        print("server side (AppTest script run):")
        _print_server(bench_apptest(runs_dir, name))
        if args.no_browser:
            return
        if CHROMIUM is None:
            print("browser: skipped (Debian's chromium is not installed)")
            return
        print(f"headless Chromium (navigation to fully drawn), {load_average()} before:")
        apps = {"": MAIN} | ({args.against.name: args.against / "app" / "main.py"} if args.against else {})
        figures = bench_browser(runs_dir, name, CHROMIUM, args.repeat, apps)
        _print_browser(figures)
        _print_cpu(figures)
        print(
            f"  {load_average()} after; targets are for a quiet machine (load average well under 1 "
            "on these 2 cores): read the ratios to the baseline when it is not."
        )


if __name__ == "__main__":
    main()
