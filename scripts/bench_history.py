"""The history at scale: 1,000 logs of 100 tasks x 10 rounds indexed, then listed again after one new log.

    python scripts/bench_history.py [--logs 1000] [--tasks 100] [--rounds 10] [--db URL]

Writes the logs (nightly runs of one task set; three tasks break when the base URL moves ten runs before
the end, one fails now and then all along) to a temporary folder,
then measures, in one run:

1. the first index of every log (each read and analysed once);
2. the baseline: listing the folder (every file's name and size, as the store's walk does) plus reading
   and analysing one log, what indexing a single log costs at least;
3. listing again after one new log is written: the store must read that log only (checked, and the
   number of logs read printed), its time beside the baseline's as a ratio;
4. the history of the 1,001 runs built from the database (labels tested on the newest runs) and the
   History view's heat-map of every run x task built as a Plotly figure, with its size.

    python scripts/bench_history.py --on-write [--repeat 5]

measures instead index on write: whole `rerunlens run` processes of the sample task file on the
built-in simulator into a runs folder, alternated with and without `--no-history`, the first run with
the history (which creates the database) apart, then the median of the rest; the ratio is the cost.

No assertion on time: the figures are printed beside the same-run baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analyzer.history import RunStore, database_url  # noqa: E402
from analyzer.history.figures import log_figures  # noqa: E402
from analyzer.history.query import HistoryRequest, load_history  # noqa: E402
from analyzer.history.series import heat_map  # noqa: E402
from analyzer.history.store import log_files  # noqa: E402
from analyzer.importers import load_any  # noqa: E402
from app.history_charts import heat_map as draw_heat_map  # noqa: E402

T = TypeVar("T")


def _log_json(run: int, tasks: int, rounds: int, breaks_at: int) -> str:
    """One nightly log as the runner writes it (tasks with prompts, a route, graded results)."""
    base_url = "https://api.openai.com/v1" if run < breaks_at else "https://gateway.example/v1"
    route = {"base_url": base_url, "model": "gpt-4o-mini", "key_fingerprint": "sha256:0123456789ab"}
    results = []
    for r in range(rounds):
        row = []
        for t in range(tasks):
            good = not (t < 3 and run >= breaks_at and r % 2 == 0) and not (t == 50 and (run + r) % 7 == 0)
            row.append(
                {
                    "task_id": f"task-{t:03d}",
                    "round": r + 1,
                    "answer": f"answer {t}" if good else f"other {t} {r % 3}",
                    "success": good,
                    "total_tokens": 120 + (t % 17),
                    "route": route,
                    "served_model": "gpt-4o-mini-2026-01-15",
                    "system_fingerprint": "fp_1",
                }
            )
        results.append(row)
    day = "2024-01-01T02:00:00+00:00" if run == 0 else None
    created = day or _day(run)
    log = {
        "format": "2",
        "run_id": f"nightly-{run + 1:04d}",
        "created_at": created,
        "route": route,
        "tasks": [{"task_id": f"task-{t:03d}", "prompt": f"Question {t}?"} for t in range(tasks)],
        "runs": results,
    }
    return json.dumps(log)


def _day(run: int) -> str:
    return (datetime(2024, 1, 1, 2, tzinfo=UTC) + timedelta(hours=run)).isoformat()


def _timed(action: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    value = action()
    return time.perf_counter() - start, value


def _write(folder: Path, logs: int, tasks: int, rounds: int) -> None:
    for i in range(logs):
        (folder / f"nightly-{i + 1:04d}.altk_runs.json").write_text(_log_json(i, tasks, rounds, logs - 10))
    size = sum(p.stat().st_size for p in folder.iterdir()) / 2**20
    print(f"{logs:,} logs of {tasks} tasks x {rounds} rounds written ({size:,.0f} MiB)")


def _listing(store: RunStore, folder: Path, args: argparse.Namespace) -> None:
    """The first index, the same-run baseline, and the index again after one new log."""
    first, report = _timed(lambda: store.index([folder]))
    per_log = first / max(1, len(report.read)) * 1000
    print(f"first index: {len(report.read):,} logs read in {first:.1f} s ({per_log:.0f} ms a log)")
    listing, files = _timed(lambda: log_files([folder]))
    reading, _ = _timed(lambda: log_figures(load_any(files[len(files) // 2]).log))
    baseline = listing + reading
    print(
        f"baseline: list the folder ({len(files):,} files) {listing * 1000:.0f} ms"
        f" + read and analyse one log {reading * 1000:.0f} ms = {baseline * 1000:.0f} ms"
    )
    new = folder / "nightly-new.altk_runs.json"
    new.write_text(_log_json(args.logs, args.tasks, args.rounds, args.logs - 10))
    again, report = _timed(lambda: store.index([folder]))
    read = ", ".join(Path(p).name for p in report.read) or "none"
    print(
        f"list again after one new log: {again * 1000:.0f} ms, logs read: {read}, {report.unchanged:,}"
        f" unchanged = {again / baseline:.2f}x the baseline"
    )
    idle, report = _timed(lambda: store.index([folder]))
    print(f"list again, nothing new: {idle * 1000:.0f} ms, {len(report.read)} read = {idle / baseline:.2f}x")


def _view(folder: Path, db: str | None) -> None:
    """The history built from the database, and the History view's heat-map of every run x task."""
    built, result = _timed(lambda: load_history(HistoryRequest([str(folder)], db)))
    history = result.history
    moved = ", ".join(f"{t.task_id} {t.label}" for t in history.labels if t.label != "stable") or "none"
    print(
        f"history of {len(history.runs):,} runs built in {built:.1f} s (with an index pass); moved: {moved}"
    )
    drawn, figure = _timed(lambda: draw_heat_map(heat_map(history), []))
    spec = figure.to_json()
    print(
        f"heat-map of {len(history.runs):,} runs x {len(history.cells)} tasks: {drawn * 1000:.0f} ms,"
        f" {len(spec) / 2**20:.1f} MiB of figure JSON"
    )


def _cli_run(out: Path, *more: str) -> tuple[float, float]:
    """One whole `rerunlens run` process of the sample task file on the simulator: wall and CPU seconds
    (the CPU time is less disturbed by other processes on a loaded machine)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_", "RERUNLENS_"))}
    env["PYTHONPATH"] = str(ROOT)
    env["RERUNLENS_RUNS_DIR"] = str(out.parent)
    command = [
        sys.executable,
        "-m",
        "analyzer.cli",
        "run",
        "--tasks",
        str(ROOT / "sample_runs" / "tasks.json"),
    ]
    command += ["--repeat", "3", "--out", str(out), "--quiet", *more]
    cpu_before = _children_cpu()
    start = time.perf_counter()
    subprocess.run(command, env=env, cwd=out.parent, check=True, capture_output=True)
    return time.perf_counter() - start, _children_cpu() - cpu_before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _on_write(repeat: int) -> None:
    """`rerunlens run` with index on write beside the same run with `--no-history`, alternated."""
    with tempfile.TemporaryDirectory(prefix="bench-on-write-") as tmp:
        indexed, plain = Path(tmp) / "indexed", Path(tmp) / "plain"
        indexed.mkdir()
        plain.mkdir()
        first = _cli_run(indexed / "run-0.altk_runs.json")
        with_index, without = [], []
        for i in range(1, repeat + 1):
            without.append(_cli_run(plain / f"run-{i}.altk_runs.json", "--no-history"))
            with_index.append(_cli_run(indexed / f"run-{i}.altk_runs.json"))
        store = RunStore(database_url(None, indexed))
        try:
            in_history = len(store.runs())
        finally:
            store.close()
        base = [statistics.median(t[k] for t in without) for k in (0, 1)]
        ours = [statistics.median(t[k] for t in with_index) for k in (0, 1)]
        print(
            f"rerunlens run, 30 tasks x 3 rounds on the simulator, median of {repeat} alternated (wall, CPU):"
        )
        print(f"  --no-history (baseline): {base[0]:.2f} s, {base[1]:.2f} s CPU")
        print(
            f"  index on write, database there: {ours[0]:.2f} s = {ours[0] / base[0]:.2f}x,"
            f" {ours[1]:.2f} s CPU = {ours[1] / base[1]:.2f}x the baseline"
        )
        print(
            f"  index on write, first run (creates the database): {first[0]:.2f} s"
            f" = {first[0] / base[0]:.2f}x, {first[1]:.2f} s CPU = {first[1] / base[1]:.2f}x"
        )
        print(
            f"  runs in the history: {in_history} of {repeat + 1}; in the plain folder's: none "
            f"({'no database' if not (plain / 'rerunlens-history.sqlite3').exists() else 'A DATABASE'})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--logs", type=int, default=1000)
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--db", help="a database URL (default: SQLite in the temporary folder)")
    parser.add_argument("--on-write", action="store_true", help="measure index on write of `rerunlens run`")
    parser.add_argument("--repeat", type=int, default=5, help="with --on-write: runs of each kind")
    args = parser.parse_args()
    if args.on_write:
        _on_write(args.repeat)
        return
    with tempfile.TemporaryDirectory(prefix="bench-history-") as tmp:
        folder = Path(tmp) / "runs"
        folder.mkdir()
        _write(folder, args.logs, args.tasks, args.rounds)
        store = RunStore(database_url(args.db, folder))
        try:
            _listing(store, folder, args)
        finally:
            store.close()
        _view(folder, args.db)


if __name__ == "__main__":
    main()
