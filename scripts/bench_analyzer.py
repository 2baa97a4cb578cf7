"""Benchmark: load + full analysis of large logs, each figure beside a baseline measured in the same run.

The machine is shared and noisy, so read the ratios: every size is measured against a bare
`json.load` process on the same file, right before it. Each measurement runs in a fresh subprocess,
so peak memory (max RSS) is its own. The growth exponent is fitted (least squares on logs) over the
sizes measured, for our figures and for `json.load`'s alike. Start-up is measured as whole
processes against a bare `python -c pass`.

Targets: 100k results within 2x `json.load`'s time and 1.5x its memory; 10k
within 3x; 1M (about 0.9 GB) within 3x time and 2x memory; growth exponent at most 1.05;
`rerunlens analyze` of a shipped sample within 0.6 s (and `rerunlens --help` within 0.1 s).

An agent log (--agent TASKS ROUNDS CALLS, default 1,000 x 10 x 50 = 500k tool calls) is measured
once against `json.load` too, with the trajectory metrics timed apart.

Sizes from --big-from results up are run once (not best of --repeat): a 1M run takes a minute.
Generated logs are kept in --cache when given, so a second run does not rebuild them.

`--cli 10000 100000 1000000` measures instead what a user waits for: the whole `rerunlens analyze
--json` process on the mixed log (route causes among the tasks), beside a bare `python -c json.load`
process of the same file, alternated; targets 100k within 2.5x, 1M within 3x, memory within 1.6x,
growth exponent at most 1.05. `--against TREE` adds that tree's CLI (the code before a change).

Usage: python scripts/bench_analyzer.py [--tasks 1000 10000 30000 100000] [--rounds 10] [--repeat 3]
                                         [--cache DIR] [--key fuzzy] [--agent 1000 10 50]
       python scripts/bench_analyzer.py --cli 10000 100000 1000000 [--against TREE] [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BARE = """
import json, resource, sys, time
t, c = time.perf_counter(), time.process_time()
with open(sys.argv[1], "rb") as fh:
    json.load(fh)
elapsed, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"seconds": elapsed, "cpu": cpu,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

FULL = """
import json, resource, sys, time
from analyzer.analysis import analyze
from analyzer.log.loader import load_path
t0, c0 = time.perf_counter(), time.process_time()
loaded = load_path(sys.argv[1])
t1 = time.perf_counter()
analyze(loaded.log, sys.argv[2]).report()
t2, c2 = time.perf_counter(), time.process_time()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the warm run below
analyze(loaded.log, sys.argv[2]).report()  # again, warm: what a long-running dashboard pays
t3 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "analyze": t2 - t1, "seconds": t2 - t0, "cpu": c2 - c0, "warm": t3 - t2,
                  "rss_mb": rss}))
"""

AGENT = """
import json, resource, sys, time
from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.metrics.trajectories import measure_trajectories
t0, c0 = time.perf_counter(), time.process_time()
loaded = load_path(sys.argv[1])
t1 = time.perf_counter()
analyze(loaded.log, sys.argv[2]).report()
t2, c2 = time.perf_counter(), time.process_time()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
measure_trajectories(loaded.log)  # the trajectory metrics alone, warm
t3 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "analyze": t2 - t1, "seconds": t2 - t0, "cpu": c2 - c0,
                  "trajectories": t3 - t2, "rss_mb": rss}))
"""

IMPORTS = """
import json, resource, time
t = time.perf_counter()
import analyzer.analysis, analyzer.log.loader
print(json.dumps({"seconds": time.perf_counter() - t,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

SAMPLE = ROOT / "sample_runs" / "A_baseline.altk_runs.json"


KEYS = ["sha256:aaaaaaaaaaaa", "sha256:bbbbbbbbbbbb", "sha256:cccccccccccc"]
URLS = ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"]


def _mixed_round(rng: random.Random, t: int, r: int) -> tuple[str, str, str]:
    """One result of a `mixed` log: (answer, key, base URL). Keys rotate over three, base URLs switch
    halfway; a quarter of tasks agree, a quarter split by model noise alone, a quarter follow the key
    and a quarter the base URL, each with 10 % noise on top."""
    key, url = (t + r) % 3, (r * 2 // 10 + t) % 2
    kind = t % 4
    noise = rng.random() < (0.5 if kind == 1 else 0.1 if kind > 1 else 0.0)
    answer = 0 if kind == 0 else (key if kind == 2 else url if kind == 3 else 0) + (7 if noise else 0)
    return f"answer {t} v{answer}", KEYS[key], URLS[url]


def make_log(tasks: int, rounds: int, seed: int = 7, mixed: bool = False) -> dict:
    """A format-2 log with attempts, retries, two keys, a backend switch and graded answers. `mixed`:
    route causes among the tasks too (three keys, two base URLs; see `_mixed_round`)."""
    rng = random.Random(seed)
    start = datetime(2026, 11, 1, tzinfo=UTC)
    keys = KEYS[:2]
    runs = []
    for r in range(1, rounds + 1):
        rnd = []
        for t in range(tasks):
            variants = 1 + (t % 4)
            answer = f"answer {t} v{rng.randrange(variants)}"
            key, url = keys[(t + r) % 2], URLS[0]
            if mixed:
                answer, key, url = _mixed_round(rng, t, r)
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
                        "base_url": url,
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
                        "base_url": url,
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


def make_agent_log(tasks: int, rounds: int, calls: int, seed: int = 5) -> dict:
    """An agent log: every result records `calls` tool calls (each followed by the tool's message);
    half the rounds leave the task's common path at a random step, arguments half as JSON text."""
    rng = random.Random(seed)
    tools = ["search", "open", "buy", "refund", "lookup", "update"]
    runs: list[list[dict]] = [[] for _ in range(rounds)]
    for t in range(tasks):
        path = [
            (rng.choice(tools), {"id": rng.randrange(20), "q": f"item {rng.randrange(50)}"})
            for _ in range(calls)
        ]
        for r in range(rounds):
            seq = list(path)
            if rng.random() < 0.5:
                cut = rng.randrange(calls)
                seq = seq[:cut] + [
                    (rng.choice(tools), {"id": rng.randrange(20), "q": "x"}) for _ in range(calls - cut)
                ]
            steps: list[dict] = []
            for name, args in seq:
                sent = json.dumps(args) if rng.random() < 0.5 else args
                steps.append({"type": "tool_call", "name": name, "arguments": sent})
                steps.append({"type": "message", "role": "tool", "content": "ok"})
            runs[r].append(
                {
                    "task_id": f"task-{t:05d}",
                    "round": r + 1,
                    "answer": f"a{rng.randrange(3)}",
                    "trajectory": steps,
                }
            )
    return {"format": "altk-runs/2", "run_id": f"bench-agent-{tasks}x{rounds}x{calls}", "runs": runs}


def measure(script: str, *args: str, cwd: Path = ROOT) -> dict:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    out = subprocess.run(
        [sys.executable, "-c", script, *args], check=True, capture_output=True, text=True, cwd=cwd, env=env
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def paired(repeat: int, path: Path, key: str, against: Path) -> tuple[dict, dict]:
    """Ours and another tree's code (e.g. a worktree of main) on the same file, runs alternated so
    both see the same load; the fastest of each."""
    ours, theirs = [], []
    for _ in range(repeat):
        theirs.append(measure(FULL, str(path), key, cwd=against))
        ours.append(measure(FULL, str(path), key))
    return min(ours, key=lambda r: r["analyze"]), min(theirs, key=lambda r: r["analyze"])


def best(script: str, repeat: int, *args: str) -> dict:
    runs = [measure(script, *args) for _ in range(repeat)]
    return min(runs, key=lambda r: r["seconds"])


def wall(argv: list[str], repeat: int, env: dict[str, str] | None = None) -> float:
    """Best wall time of a whole process, start-up included."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, cwd=ROOT, env=env)
        times.append(time.perf_counter() - t)
    return min(times)


def whole_process(argv: list[str], cwd: Path = ROOT) -> dict:
    """One whole process, what a user waits for: wall and CPU seconds and its own peak RSS (from
    `os.wait4`, so the figure is this child's alone), its output thrown away."""
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    began = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{argv[:4]} failed: {child.stderr.read().decode()[-300:] if child.stderr else ''}")
    return {"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024}


def cli_case(path: Path, repeat: int, against: Path | None) -> dict[str, dict]:
    """`rerunlens analyze --json FILE` as a whole process beside a bare `python -c json.load` process
    of the same file, alternated (best of `repeat` each); with `against`, that tree's CLI too."""
    bare = [sys.executable, "-c", "import json, sys; json.load(open(sys.argv[1], 'rb'))", str(path)]
    cli = [sys.executable, "-m", "analyzer.cli", "analyze", "--json", str(path)]
    runs: dict[str, list[dict]] = {"bare": [], "ours": [], "theirs": []}
    for _ in range(repeat):
        runs["bare"].append(whole_process(bare))
        runs["ours"].append(whole_process(cli))
        if against is not None:
            runs["theirs"].append(whole_process(cli, cwd=against))
    return {name: min(got, key=lambda r: r["seconds"]) for name, got in runs.items() if got}


def cli_table(args: argparse.Namespace, folder: Path) -> None:
    """The whole-process table over `--cli` sizes (results), on the `mixed` log."""
    print("\n`rerunlens analyze --json` as a whole process against a bare `python -c json.load` process,")
    print(f"mixed log (route causes, three keys, two base URLs), {args.rounds} rounds; best of {args.repeat}")
    print(f"({args.big_from:,} results and up: once); wall seconds, CPU seconds, peak RSS of each process")
    head = f"{'results':>9} {'file MB':>8} {'json.load s':>11} {'ours s':>7} {'ratio':>6} {'cpu ratio':>9}"
    print(
        head
        + f" {'json MB':>8} {'ours MB':>8} {'mem ratio':>9}"
        + ("  before s  ratio" if args.against else "")
    )
    sizes, ours, bares = [], [], []
    for results in args.cli:
        tasks = results // args.rounds
        path = log_file(folder, tasks, args.rounds, mixed=True)
        got = cli_case(path, 1 if results >= args.big_from else args.repeat, args.against)
        bare, mine = got["bare"], got["ours"]
        line = (
            f"{results:>9,} {path.stat().st_size / 2**20:>8.1f} {bare['seconds']:>11.3f} "
            f"{mine['seconds']:>7.3f} "
            f"{mine['seconds'] / bare['seconds']:>5.2f}x {mine['cpu'] / bare['cpu']:>8.2f}x "
            f"{bare['rss_mb']:>8.0f} {mine['rss_mb']:>8.0f} {mine['rss_mb'] / bare['rss_mb']:>8.2f}x"
        )
        if "theirs" in got:
            theirs = got["theirs"]
            line += f"  {theirs['seconds']:>8.3f} {theirs['seconds'] / bare['seconds']:>5.2f}x"
            line += f" cpu {theirs['cpu'] / bare['cpu']:.2f}x"
        print(line, flush=True)
        sizes.append(results)
        ours.append(mine["seconds"])
        bares.append(bare["seconds"])
    if len(sizes) > 1:
        print(f"growth exponent: ours {exponent(sizes, ours):.3f}, json.load {exponent(sizes, bares):.3f}")
    print("targets: 100k <= 2.5x, 1M <= 3x, memory <= 1.6x, exponent <= 1.05")


def exponent(sizes: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) against log(size): 1.0 is linear growth."""
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def log_file(folder: Path, tasks: int, rounds: int, mixed: bool = False) -> Path:
    path = folder / f"bench_{tasks}x{rounds}{'_mixed' if mixed else ''}.json"
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        with tmp.open("w") as fh:
            json.dump(make_log(tasks, rounds, mixed=mixed), fh)
        tmp.replace(path)
    return path


def startup(repeat: int) -> None:
    """Whole processes, with Python's bytecode cache on as in any install (a session that sets
    PYTHONDONTWRITEBYTECODE would otherwise compile every module of ours on each start)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    python = [sys.executable, "-c", "pass"]
    pandas = [sys.executable, "-c", "import pandas"]
    cli = [sys.executable, "-m", "analyzer.cli"]
    sample = [*cli, "analyze", "--json", str(SAMPLE)]
    wall(sample, 1, env)  # writes the bytecode cache
    figures = {"python -c pass": python, "python -c 'import pandas'": pandas}
    figures |= {"rerunlens analyze --json": sample, "rerunlens analyze": [*cli, "analyze", str(SAMPLE)]}
    figures["rerunlens --help"] = [*cli, "--help"]
    best_of = dict.fromkeys(figures, math.inf)
    for _ in range(repeat):  # interleaved, so a burst of load hits every figure alike
        for name, argv in figures.items():
            best_of[name] = min(best_of[name], wall(argv, 1, env))
    print(
        f"start-up, whole processes, best of {repeat} interleaved; sample {SAMPLE.name} "
        f"({SAMPLE.stat().st_size // 1024} KB)"
    )
    for name, seconds in best_of.items():
        print(f"  {name:<28} {seconds:.3f} s")
    imports = best(IMPORTS, repeat)
    print(
        f"  import of analyzer.analysis + loader: {imports['seconds']:.3f} s, {imports['rss_mb']:.0f} MB RSS"
    )


def agent_case(folder: Path, shape: tuple[int, int, int], key: str) -> None:
    """The trajectory metrics on an agent log, against a bare `json.load` of the same file."""
    tasks, rounds, calls = shape
    path = folder / f"bench_agent_{tasks}x{rounds}x{calls}.json"
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        with tmp.open("w") as fh:
            json.dump(make_agent_log(tasks, rounds, calls), fh)
        tmp.replace(path)
    bare = measure(BARE, str(path))
    ours = measure(AGENT, str(path), key)
    print(
        f"\nagent log, {tasks:,} tasks x {rounds} rounds x {calls} tool calls = "
        f"{tasks * rounds * calls:,} calls ({path.stat().st_size / 2**20:.0f} MB), answer key {key}, once:"
    )
    print(
        f"  bare json.load {bare['seconds']:.3f} s; ours {ours['seconds']:.3f} s "
        f"({ours['seconds'] / bare['seconds']:.2f}x, cpu {ours['cpu'] / bare['cpu']:.2f}x): load "
        f"{ours['load']:.3f} s, analysis {ours['analyze']:.3f} s; trajectory metrics alone "
        f"{ours['trajectories']:.3f} s ({ours['trajectories'] / bare['seconds']:.2f}x json.load); "
        f"memory {ours['rss_mb']:.0f} MB vs {bare['rss_mb']:.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, nargs="+", default=[1000, 10000, 30000, 100000])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the fastest is kept")
    parser.add_argument("--big-from", type=int, default=300_000, help="results from which a size runs once")
    parser.add_argument("--key", default="fuzzy", choices=["exact", "normalized", "fuzzy"])
    parser.add_argument("--cache", type=Path, help="folder to keep the generated logs in between runs")
    parser.add_argument(
        "--against",
        type=Path,
        help="another source tree (a worktree of main): its analysis timed beside ours",
    )
    parser.add_argument(
        "--agent",
        type=int,
        nargs=3,
        default=[1000, 10, 50],
        metavar=("TASKS", "ROUNDS", "CALLS"),
        help="the agent log's shape (tool calls per result); 0 0 0 skips it",
    )
    parser.add_argument(
        "--cli",
        type=int,
        nargs="+",
        metavar="RESULTS",
        help="only the whole-process `analyze --json` table, at these sizes in results (e.g. 10000 100000 "
        "1000000), on the mixed log",
    )
    args = parser.parse_args()
    if args.cli:
        with tempfile.TemporaryDirectory() as tmp:
            folder = args.cache or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
            cli_table(args, folder)
            print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return

    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    startup(args.repeat)
    print(f"\nload + full analysis, answer key {args.key}; in-process after imports; each row against")
    print("a bare `json.load` process on the same file, measured right before it")
    print("(wall seconds; `cpu ratio` compares CPU seconds, which a busy shared machine disturbs less)")
    print(
        f"{'results':>9} {'file MB':>8} {'runs':>4} {'json.load s':>11} {'ours s':>7} {'ratio':>6} "
        f"{'cpu ratio':>9} {'load s':>7} {'analyze s':>9} {'warm s':>7} {'json MB':>8} {'ours MB':>8} "
        f"{'mem ratio':>9}"
    )
    sizes: list[int] = []
    bare_times: list[float] = []
    our_times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.cache or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for tasks in args.tasks:
            results = tasks * args.rounds
            repeat = 1 if results >= args.big_from else args.repeat
            path = log_file(folder, tasks, args.rounds)
            bare = best(BARE, repeat, str(path))
            full = best(FULL, repeat, str(path), args.key)
            sizes.append(results)
            bare_times.append(bare["seconds"])
            our_times.append(full["seconds"])
            print(
                f"{results:>9,} {path.stat().st_size / 2**20:>8.1f} {repeat:>4} {bare['seconds']:>11.3f} "
                f"{full['seconds']:>7.3f} {full['seconds'] / bare['seconds']:>5.2f}x "
                f"{full['cpu'] / bare['cpu']:>8.2f}x {full['load']:>7.3f} "
                f"{full['analyze']:>9.3f} {full['warm']:>7.3f} {bare['rss_mb']:>8.0f} {full['rss_mb']:>8.0f} "
                f"{full['rss_mb'] / bare['rss_mb']:>8.2f}x",
                flush=True,
            )
            if args.against:
                ours, theirs = paired(repeat, path, args.key, args.against)
                print(
                    f"{'':>9} analyze, alternated runs: ours {ours['analyze']:.3f} s, {args.against} "
                    f"{theirs['analyze']:.3f} s: {ours['analyze'] / theirs['analyze']:.3f}x "
                    f"(load + analyze {ours['seconds'] / theirs['seconds']:.3f}x)",
                    flush=True,
                )
        if all(args.agent):
            agent_case(folder, tuple(args.agent), args.key)
    if len(sizes) > 1:
        print(
            f"growth exponent over {', '.join(f'{s:,}' for s in sizes)} results: ours "
            f"{exponent(sizes, our_times):.3f}, json.load {exponent(sizes, bare_times):.3f}"
        )
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        "targets: 10k <= 3x; 100k <= 2x time and <= 1.5x memory; 1M <= 3x time and <= 2x memory; "
        "exponent <= 1.05; sample analyze <= 0.6 s; --help <= 0.1 s"
    )


if __name__ == "__main__":
    main()
