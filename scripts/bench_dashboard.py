"""Time to first full render of the dashboard's Overview and Tasks views on a 1,000-task x 10-round log.

    python scripts/bench_dashboard.py [--tasks 1000] [--rounds 10] [--no-browser]

Writes a realistic format-2 log (attempts with 429s and timeouts, a drifting route, grading) to a
temporary runs folder, then measures each view twice (cold: empty cache, so reading and analysing
the log are included; warm: cached):

1. server side, with Streamlit's AppTest (the script run alone);
2. in headless Chromium (Debian's `chromium`, if installed) against a running `streamlit run`, from
   navigation until the title is shown, the script run has finished and every chart and table is
   drawn; "first render" opens a log the server has not read yet.

Prints the figures; the target is under 3 s for each view. No assertions: this is a benchmark.

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
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from browser_kit import CHROMIUM, CHROMIUM_FLAGS, MAIN, RENDERED_JS, streamlit_server  # noqa: E402

TARGET_S = 3.0


def _iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def make_log(n_tasks: int, n_rounds: int, seed: int = 7) -> dict:
    """A format-2 log: some tasks unstable, some rounds through a second route, some retries."""
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
            tid = f"task-{i:04d}"
            unstable = stability[i] < 0.3
            answer = (
                f"answer {i}"
                if not unstable or rng.random() < 0.6
                else f"answer {i} variant {rng.randint(1, 3)}"
            )
            route = route_b if (unstable and rng.random() < 0.2) else route_a
            plan = ["ok"]
            if rng.random() < 0.05:
                plan = ["rate_limited", "ok"]
            elif rng.random() < 0.01:
                plan = ["timeout", "ok"]
            attempts = []
            t = clock
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
            prompt = 200 + i % 300
            completion = rng.randint(20, 200)
            results.append(
                {
                    "task_id": tid,
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
            )
            clock += timedelta(milliseconds=50)
        runs.append(results)
    return {
        "format": "altk-runs/2",
        "run_id": "bench",
        "created_at": _iso(t0),
        "label": f"bench {n_tasks}x{n_rounds}",
        "route": route_a,
        "runs": runs,
    }


def bench_apptest(runs_dir: Path, log_name: str) -> dict[str, tuple[float, float]]:
    """Script-run seconds per view, (cold, warm), through AppTest."""
    os.environ["RERUNLENS_RUNS_DIR"] = str(runs_dir)
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    out: dict[str, tuple[float, float]] = {}
    for view in ("overview", "tasks"):
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
    return out


def _drawn(page: object, url: str) -> float:
    t = time.perf_counter()
    page.goto(url)  # type: ignore[attr-defined]
    page.wait_for_function(RENDERED_JS, polling=50)  # type: ignore[attr-defined]
    return time.perf_counter() - t


def bench_browser(runs_dir: Path, log_name: str, chromium: str) -> dict[str, tuple[float, float]]:
    """Seconds from navigation to a fully drawn view in headless Chromium, (new log, reload).

    The server is started once and warmed up on a small log (Python imports, the browser's script
    cache); each view then opens its own copy of the big log, so reading and analysing it are
    included in the first figure. The cold start of server and browser is printed apart.
    """
    from playwright.sync_api import sync_playwright

    small = "warmup.json"
    (runs_dir / small).write_text(json.dumps(make_log(5, 3)), encoding="utf-8")
    copies = {}
    for view in ("overview", "tasks"):
        copies[view] = f"{view}_{log_name}"
        shutil.copy(runs_dir / log_name, runs_dir / copies[view])
    out: dict[str, tuple[float, float]] = {}
    with streamlit_server(runs_dir) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(120_000)
        cold_start = _drawn(page, f"{base}/?log={small}")
        _drawn(page, f"{base}/tasks?log={small}")
        print(f"  (cold start of server and browser on a 5-task log: {cold_start:.2f} s)")
        for view, path in (("overview", ""), ("tasks", "tasks")):
            url = f"{base}/{path}?log={copies[view]}"
            out[view] = (_drawn(page, url), _drawn(page, url))
        browser.close()
    return out


def _print(title: str, figures: dict[str, tuple[float, float]]) -> None:
    print(title)
    for view, (cold, warm) in figures.items():
        mark = "ok" if cold < TARGET_S else "OVER TARGET"
        print(
            f"  {view:<9} first render {cold:5.2f} s ({mark}, target < {TARGET_S:.0f} s)"
            f"   cached {warm:5.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--no-browser", action="store_true", help="only the server-side measure")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="rerunlens-bench-") as tmp:
        runs_dir = Path(tmp)
        name = f"bench_{args.tasks}x{args.rounds}.json"
        t = time.perf_counter()
        (runs_dir / name).write_text(json.dumps(make_log(args.tasks, args.rounds)), encoding="utf-8")
        size = (runs_dir / name).stat().st_size
        print(
            f"log: {args.tasks} tasks x {args.rounds} rounds, {size / 2**20:.1f} MiB "
            f"(written in {time.perf_counter() - t:.1f} s)"
        )
        _print("server side (AppTest script run):", bench_apptest(runs_dir, name))
        if args.no_browser:
            return
        if CHROMIUM is None:
            print("browser: skipped (Debian's chromium is not installed)")
            return
        _print("headless Chromium (navigation to fully drawn):", bench_browser(runs_dir, name, CHROMIUM))


if __name__ == "__main__":
    main()
