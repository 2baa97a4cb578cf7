"""Benchmark: load + full analysis of large logs, side by side with a bare `json.load` of the same file.

The machine is shared and noisy, so every figure is printed next to a baseline measured in the same
run; read the ratios. Each measurement runs in a fresh subprocess so peak memory (max RSS) is its own.

Targets (2 cores): load+analysis of 10k results within 3x a bare json.load; 100k results analysed
in under 10 s and under 1 GB.

Usage: python scripts/bench_analyzer.py [--tasks 1000 10000] [--rounds 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

BARE = """
import json, resource, sys, time
t = time.perf_counter()
with open(sys.argv[1], "rb") as fh:
    json.load(fh)
elapsed = time.perf_counter() - t
print(json.dumps({"seconds": elapsed, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

FULL = """
import json, resource, sys, time
from analyzer.analysis import analyze
from analyzer.loader import load_path
t0 = time.perf_counter()
loaded = load_path(sys.argv[1])
t1 = time.perf_counter()
analysis = analyze(loaded.log, sys.argv[2])
analysis.report()
t2 = time.perf_counter()
analyze(loaded.log, sys.argv[2]).report()  # again, warm: what a long-running dashboard pays
t3 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "analyze": t2 - t1, "seconds": t2 - t0, "warm": t3 - t2,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

IMPORTS = """
import json, resource, time
t = time.perf_counter()
import analyzer.analysis, analyzer.loader
print(json.dumps({"seconds": time.perf_counter() - t,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def make_log(tasks: int, rounds: int, seed: int = 7) -> dict:
    """A format-2 log with attempts, retries, two keys, a backend switch and graded answers."""
    rng = random.Random(seed)
    start = datetime(2026, 11, 1, tzinfo=UTC)
    keys = ["sha256:aaaaaaaaaaaa", "sha256:bbbbbbbbbbbb"]
    runs = []
    for r in range(1, rounds + 1):
        rnd = []
        for t in range(tasks):
            variants = 1 + (t % 4)
            answer = f"answer {t} v{rng.randrange(variants)}"
            key = keys[(t + r) % 2]
            began = start + timedelta(seconds=r * tasks + t)
            attempts = []
            n_attempts = 1 if rng.random() > 0.1 else 2
            for a in range(n_attempts):
                last = a == n_attempts - 1
                attempts.append(
                    {
                        "attempt": a,
                        "started_at": (began + timedelta(seconds=a)).isoformat(),
                        "ended_at": (began + timedelta(seconds=a, milliseconds=400)).isoformat(),
                        "status_code": 200 if last else 429,
                        "outcome": "ok" if last else "rate_limited",
                        "retry_after_s": None if last else 1.0,
                        "base_url": "http://127.0.0.1:8000/v1",
                        "key_fingerprint": key,
                    }
                )
            prompt = 200 + t % 50
            completion = 20 + rng.randrange(30)
            rnd.append(
                {
                    "task_id": f"task-{t:05d}",
                    "round": r,
                    "answer": answer,
                    "status": "ok",
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                    "expected": f"answer {t} v0",
                    "success": answer.endswith("v0"),
                    "started_at": began.isoformat(),
                    "finished_at": (began + timedelta(seconds=n_attempts)).isoformat(),
                    "latency_ms": 400.0 * n_attempts,
                    "route": {
                        "base_url": "http://127.0.0.1:8000/v1",
                        "key_fingerprint": key,
                        "model": "sim-large",
                        "temperature": 0.0,
                        "top_p": 1.0,
                        "seed": 42,
                        "max_tokens": 256,
                        "timeout_s": 120.0,
                        "max_retries": 2,
                    },
                    "served_model": "sim-large-2026-10",
                    "system_fingerprint": "fp_a" if r < rounds else "fp_b",
                    "finish_reason": "stop",
                    "attempts": attempts,
                }
            )
        runs.append(rnd)
    return {"format": "altk-runs/2", "run_id": f"bench-{tasks}x{rounds}", "runs": runs}


def measure(script: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", script, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def best(script: str, repeat: int, *args: str) -> dict:
    runs = [measure(script, *args) for _ in range(repeat)]
    return min(runs, key=lambda r: r["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the fastest is kept")
    parser.add_argument("--key", default="fuzzy", choices=["exact", "normalized", "fuzzy"])
    args = parser.parse_args()

    imports = best(IMPORTS, args.repeat)
    print(
        f"import of analyzer (not counted below): {imports['seconds']:.2f} s, {imports['rss_mb']:.0f} MB RSS"
    )
    header = (
        f"{'results':>8} {'file MB':>8} {'json.load s':>12} {'load s':>8} {'analyze s':>10} "
        f"{'total s':>8} {'ratio':>6} {'warm analyze s':>15} {'json RSS MB':>12} {'our RSS MB':>11}"
    )
    print(f"answer key: {args.key}; best of {args.repeat}")
    print(header)
    with tempfile.TemporaryDirectory() as tmp:
        for tasks in args.tasks:
            path = Path(tmp) / f"bench_{tasks}x{args.rounds}.json"
            path.write_text(json.dumps(make_log(tasks, args.rounds)))
            bare = best(BARE, args.repeat, str(path))
            full = best(FULL, args.repeat, str(path), args.key)
            print(
                f"{tasks * args.rounds:>8} {path.stat().st_size / 2**20:>8.1f} {bare['seconds']:>12.3f} "
                f"{full['load']:>8.3f} {full['analyze']:>10.3f} {full['seconds']:>8.3f} "
                f"{full['seconds'] / bare['seconds']:>5.1f}x {full['warm']:>15.3f} "
                f"{bare['rss_mb']:>12.0f} {full['rss_mb']:>11.0f}"
            )
    print("targets: ratio <= 3x at 10k results; 100k results < 10 s and < 1024 MB")


if __name__ == "__main__":
    main()
