"""Where a warm visit's time goes in the browser, view by view, beside a bare Streamlit page.

    python scripts/bench_phases.py [--repeat 7] [--views "Tasks,Runs"] [--against CHECKOUT ...]

`bench_dashboard.py --samples` says how long a view takes against a bare page; this says why. Each
visit (from a blank page, the page's scripts cached, as that benchmark's warm visit) is read on the
page's own clock, from the moment its websocket opens:

- "messages": when the page handled the last message of the script run. The server's work and
  the browser's queue both count: a message that arrives while the main thread is drawing waits.
- "drawn": when the run had finished and everything was drawn (the browser tests' check).
- "code wait": how long a placeholder (Streamlit's skeleton) stood on the page while the code of an
  element type it loads on demand (st.html, st.button, st.page_link, st.download_button, dataframes,
  charts...) was fetched and run. The bare page loads none; every chunk a view needs the first time
  it is drawn adds one such wait, in parallel with the others.
- "elements": element containers on the page once drawn (the sidebar's included); each costs the
  browser a share of the drawing whatever it holds.
- "chunks": the on-demand code files the visit loaded.

Medians of `--repeat` rounds taken in turns; the machine's load average before and after. No
assertions: a benchmark. Uses the browser tests' Chromium flags and server start (tests/e2e).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_dashboard import BARE_PATHS_SCRIPT, SAMPLE_VIEWS, _drawn, _path, load_average  # noqa: E402
from browser_kit import CHROMIUM, CHROMIUM_FLAGS, RENDERED_JS, streamlit_server  # noqa: E402

PHASES_JS = (
    """(() => {
  const t = {open: null, last: null, drawn: null, codeWait: 0, shownAt: null};
  window.__phases = t;
  const Socket = window.WebSocket;
  window.WebSocket = function (...args) {
    const s = new Socket(...args);
    s.addEventListener('open', () => { t.open = performance.now(); });
    s.addEventListener('message', () => { t.last = performance.now(); });
    return s;
  };
  window.WebSocket.prototype = Socket.prototype;
  Object.assign(window.WebSocket, Socket);
  new MutationObserver(() => {
    const shown = document.querySelector('[data-testid="stSkeleton"]') !== null;
    if (shown && t.shownAt === null) t.shownAt = performance.now();
    if (!shown && t.shownAt !== null) { t.codeWait += performance.now() - t.shownAt; t.shownAt = null; }
  }).observe(document, {subtree: true, childList: true});
  const drawn = """
    + RENDERED_JS
    + """;
  const poll = () => { if (t.open !== null && drawn()) { t.drawn = performance.now(); return; }
    requestAnimationFrame(poll); };
  requestAnimationFrame(poll);
})();"""
)
"""Installed before each page's own scripts: wraps the websocket to time its messages, times any
skeleton on the page, and marks the first animation frame at which the page is drawn."""

READ_JS = """() => {
  const t = window.__phases;
  const chunks = performance.getEntriesByType('resource')
    .filter(e => e.startTime >= t.open && e.name.endsWith('.js'))
    .map(e => e.name.split('/').pop().split('.')[0]);
  return {messages: t.last - t.open, drawn: t.drawn - t.open, codeWait: t.codeWait,
          elements: document.querySelectorAll('[data-testid="stElementContainer"]').length,
          chunks: [...new Set(chunks)].sort().join(' ')};
}"""
FIGURES = ("messages", "drawn", "codeWait", "elements")


def _visit(page: object, url: str) -> dict:
    """One visit from a blank page (bench_dashboard's timed visit), read on the page's clock."""
    _drawn(page, url)
    page.wait_for_function("() => window.__phases.drawn !== null", polling=50)  # type: ignore[attr-defined]
    return page.evaluate(READ_JS)  # type: ignore[attr-defined]


def measure(repeat: int, views: dict[str, str], against: list[Path]) -> dict[str, list[dict]]:
    """Each view (and the bare page at each view's path) `repeat` times, in turns."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="rerunlens-phases-") as tmp, ExitStack() as stack:
        runs = Path(tmp) / "runs"
        runs.mkdir()
        bare_script = Path(tmp) / "bare_paths.py"
        bare_script.write_text(BARE_PATHS_SCRIPT, encoding="utf-8")
        bare = stack.enter_context(streamlit_server(runs, script=bare_script))
        base = stack.enter_context(streamlit_server(runs))
        urls = {f"bare page /{p}": f"{bare}/{p}" for p in sorted({_path(v) for v in views.values()})}
        urls |= {name: f"{base}/{view}" for name, view in views.items()}
        for checkout in against:
            other = stack.enter_context(streamlit_server(runs, script=checkout / "app" / "main.py"))
            urls |= {f"{name} ({checkout.name})": f"{other}/{view}" for name, view in views.items()}
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(120_000)
        page.add_init_script(PHASES_JS)
        for url in urls.values():  # imports and each log's analysis done once, before timing
            _visit(page, url)
        out: dict[str, list[dict]] = {name: [] for name in urls}
        for _ in range(repeat):
            for name, url in urls.items():
                out[name].append(_visit(page, url))
        browser.close()
    return out


def report(figures: dict[str, list[dict]]) -> None:
    """Medians, one line per page; the chunks of the last round."""
    print(f"  {'page':<26} {'messages':>9} {'drawn':>7} {'code wait':>10} {'elements':>9}  chunks")
    for name, rounds in figures.items():
        med = {f: statistics.median(r[f] for r in rounds) for f in FIGURES}
        print(
            f"  {name:<26} {med['messages']:6.0f} ms {med['drawn']:4.0f} ms {med['codeWait']:7.0f} ms "
            f"{med['elements']:9.0f}  {rounds[-1]['chunks'] or '-'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="rounds per page (median shown)")
    parser.add_argument("--views", metavar="NAMES", help="only these sample views, comma-separated")
    parser.add_argument(
        "--against",
        type=Path,
        action="append",
        default=[],
        metavar="CHECKOUT",
        help="also another checkout's views (repeatable)",
    )
    args = parser.parse_args()
    if CHROMIUM is None:
        print("skipped: Debian's chromium is not installed")
        return
    names = args.views.split(",") if args.views else list(SAMPLE_VIEWS)
    unknown = [n for n in names if n not in SAMPLE_VIEWS]
    if unknown:
        parser.error(f"--views: no view named {', '.join(unknown)} (there are {', '.join(SAMPLE_VIEWS)})")
    print(f"warm visits on the page's clock from its websocket's opening, {load_average()} before:")
    report(measure(args.repeat, {n: SAMPLE_VIEWS[n] for n in names}, args.against))
    print(f"  {load_average()} after (medians of {args.repeat} rounds taken in turns)")


if __name__ == "__main__":
    main()
