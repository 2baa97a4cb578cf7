"""Benchmark of the route audit (not a test): level, power beside MET, token ratios, speed.

Each route variant of the simulator (honest, and one per distortion) answers 25 prompts 60 times over
real HTTP; pairs of routes are then drawn from those pools (10 samples x 25 prompts each), so the
level on identical routes and the power on each distortion are shares over many pairs. Both tests
run on the same samples and the same permutations. The speed figure times `rerunlens audit` on two
100k-result logs as a whole process (what a user waits for) beside a process that only json.loads
both, in alternated repetitions of the same run, with each process's peak memory.

    PYTHONPATH=$PWD python scripts/bench_audit.py [--pairs 200] [--speed-only [--tool-calls] --repeats 7]
        [--ledger-only --ledger-runs 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.audit import audit_figures, audit_logs
from analyzer.audit.identity import run_test
from analyzer.audit.kernels import features
from analyzer.audit.ledger import OVERBILLED, UNDERBILLED, _interval, ratio_verdict, t_quantile
from analyzer.audit.samples import COLUMNS, Samples, padded
from analyzer.metrics.exchange_count import count_exchange
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion, Substitute

PROMPTS = [
    f"Which of the {n % 6 + 2} offices in city {n} opens first on day {n % 7}? Name it." for n in range(25)
]
POOL = 60
VARIANTS: dict[str, Distortion] = {
    "honest": Distortion(),
    "quantised model (shift 0.3)": Distortion(substitute=Substitute(shift=0.3)),
    "other model (shift 2)": Distortion(substitute=Substitute(shift=2.0)),
    "temperature ignored (served at 0.3)": Distortion(fixed_temperature=0.3),
    "injected system prompt": Distortion(system_prompt="Answer briefly and formally."),
    "30 % to a cheaper model": Distortion(substitute=Substitute(share=0.3, shift=2.0, name="cheap")),
    "20 % cut short": Distortion(truncate_share=0.2),
    "usage x1.2": Distortion(usage_factor=1.2),
}


def _ask(base: str, prompt: str, i: int) -> dict[str, Any]:
    body = {"model": "gpt-4o", "temperature": 1.0, "messages": [{"role": "user", "content": prompt}]}
    req = urllib.request.Request(
        f"{base}/chat/completions",
        data=json.dumps(body).encode(),
        headers={
            "Authorization": "Bearer sim-key",
            "Content-Type": "application/json",
            "x-rerunlens-seq": str(i),
        },
    )
    data = json.load(urllib.request.urlopen(req))
    choice = data["choices"][0]
    return {
        "answer": choice["message"].get("content"),
        "finish_reason": choice["finish_reason"],
        "served_model": data["model"],
        "system_fingerprint": data.get("system_fingerprint"),
        "completion_tokens": data["usage"]["completion_tokens"],
        "prompt_tokens": data["usage"]["prompt_tokens"],
    }


def pool(distortion: Distortion, seed: int) -> list[list[dict[str, Any]]]:
    """POOL answers per prompt from one simulated route."""
    scenario = Scenario(seed=0, latency_ms=(0.0, 0.0), billing="o200k_base", distortion=distortion)
    with Simulator(scenario) as sim, ThreadPoolExecutor(8) as ex:
        jobs = [(p, seed * 10**6 + k * 1000 + j) for k, p in enumerate(PROMPTS) for j in range(POOL)]
        rows = list(ex.map(lambda a: _ask(sim.base_url, *a), jobs))
    return [rows[k * POOL : (k + 1) * POOL] for k in range(len(PROMPTS))]


def as_calls(rows: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    """The same results answered with a tool call and no text (an agent's turn, a tool probe): the
    answer becomes the call's arguments, no task declares the tool (the result objects are built for
    the ledger alone, the costliest case)."""
    return [
        [
            {
                **row,
                "answer": None,
                "trajectory": [
                    {
                        "type": "tool_call",
                        "name": "reply",
                        "arguments": json.dumps({"text": row.get("answer")}, ensure_ascii=False),
                    }
                ],
            }
            for row in prompt_rows
        ]
        for prompt_rows in rows
    ]


def draw_pair(
    ref: list[list[dict]], cand: list[list[dict]], rng: np.random.Generator, n: int = 10
) -> Samples:
    cols: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    lists = []
    for k in range(len(PROMPTS)):
        idx = []
        for source in (ref, cand):
            for j in rng.choice(POOL, size=n, replace=False):
                idx.append(len(cols["answer"]))
                for c in COLUMNS:
                    cols[c].append(source[k][j].get(c))
        lists.append(idx)
    sizes = np.full(len(PROMPTS), n)
    return Samples(
        cols, [str(k) for k in range(len(PROMPTS))], padded(lists), sizes, sizes, len(PROMPTS), False, (0, 0)
    )


def rates(ref: list, cand: list, pairs: int, alpha: float, seed: int) -> tuple[float, float, float]:
    """Share of pairs each test calls `differ`, and the standard error of their paired difference."""
    rng = np.random.default_rng(seed)
    calls = []
    for _ in range(pairs):
        s = draw_pair(ref, cand, rng)
        out = run_test(s, features(s), alpha, 199)
        calls.append((out.p_value <= alpha, out.met_p_value <= alpha))
    ours, met = np.array(calls, dtype=np.float64).T
    return float(ours.mean()), float(met.mean()), float(np.std(ours - met, ddof=1) / np.sqrt(pairs))


def _log(rows: list[list[dict]], rounds: int, tasks: int, label: str) -> dict[str, Any]:
    return {
        "format": "altk-runs/2",
        "label": label,
        "route": {"model": "gpt-4o"},
        "tasks": [{"task_id": f"t{t}", "prompt": PROMPTS[t % len(PROMPTS)] + f" #{t}"} for t in range(tasks)],
        "runs": [
            [
                {"task_id": f"t{t}", "round": r + 1, **rows[t % len(PROMPTS)][(r + t) % POOL]}
                for t in range(tasks)
            ]
            for r in range(rounds)
        ],
    }


PEAK = (
    "finally:\n    hwm = [x.split()[1] for x in open('/proc/self/status') if x.startswith('VmHWM')]\n"
    "    print('peak-kib', hwm[0], file=sys.stderr)"
)
"""Each process reports its own peak memory (VmHWM counts from its exec, unlike the rusage a parent
gets, which on Linux starts from the parent's own size)."""
SIDES = {
    "audit": (  # what `rerunlens audit A B` runs (`python -m analyzer.cli`)
        "sys.argv = ['rerunlens', 'audit', *sys.argv[1:]]\n"
        "runpy.run_module('analyzer.cli', run_name='__main__')"
    ),
    "json.load": "for path in sys.argv[1:]:\n    with open(path, 'rb') as f:\n        json.load(f)",
    "imports + load_any": (
        "import analyzer.cli.audit_commands\nfrom analyzer.importers import load_any\n"
        "for path in sys.argv[1:]:\n    load_any(path)"
    ),
}
"""The processes timed: the audit command, the baseline, and what the command does before it audits."""


def _process(code: str, paths: list[str], root: str | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak resident memory (MiB) of one Python
    process running `code` (with the analyzer package of `root` when given, else this checkout's)."""
    body = "".join(f"    {line}\n" for line in code.splitlines())
    script = f"import json, runpy, sys\ntry:\n{body}{PEAK}"
    # -P: no working folder on sys.path, so the analyzer imported is the one PYTHONPATH names
    env = os.environ | {"PYTHONPATH": root or str(Path(__file__).resolve().parents[1])}
    with tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-P", "-c", script, *paths], stdout=subprocess.DEVNULL, stderr=err, env=env
        )
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read()
    peak = [line.split()[1] for line in stderr.splitlines() if line.startswith("peak-kib ")]
    if proc.returncode != 0 or not peak:
        raise SystemExit(f"bench_audit: {code.splitlines()[0]} failed: {stderr.strip()[-300:]}")
    return elapsed, usage.ru_utime + usage.ru_stime, int(peak[0]) / 1024


def speed(ref: list, cand: list, repeats: int, baseline_root: str | None = None) -> list[str]:
    """Each side of `SIDES` as a whole process on two 100k-result logs, taken in turns (audit,
    json.load, imports + load_any, audit, ...) so the machine's load falls on all alike; each
    repetition's ratio is to the json.load run beside it, and the median ratio is reported (wall
    time, what a user waits for; CPU time, which a loaded machine disturbs less). With
    `baseline_root`, the audit of the analyzer found there is a side of its own (before / after)."""
    sides: list[tuple[str, str, str | None]] = [(side, code, None) for side, code in SIDES.items()]
    if baseline_root:
        sides.append((f"audit of {baseline_root}", SIDES["audit"], baseline_root))
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        paths = [str(Path(tmp) / "a.json"), str(Path(tmp) / "b.json")]
        for path, rows in zip(paths, (ref, cand), strict=True):
            Path(path).write_text(json.dumps(_log(rows, 10, 10_000, Path(path).stem)))
        runs = [{side: _process(code, paths, root) for side, code, root in sides} for _ in range(repeats)]
    lines = [
        f"two 100k-result logs, whole processes, {repeats} alternated repetitions (load average "
        f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end):"
    ]
    for side, _, _ in sides:
        wall, cpu = (np.median([r[side][k] / r["json.load"][k] for r in runs]) for k in (0, 1))
        seconds, cpu_s, mib = (float(np.median([r[side][k] for r in runs])) for k in (0, 1, 2))
        lines.append(
            f"  {side}: median {seconds:.2f} s, {wall:.1f}x json.load; CPU {cpu_s:.2f} s, {cpu:.1f}x; "
            f"peak memory {mib:.0f} MiB"
        )
    return lines


def proxy_cost(repeats: int = 2000) -> tuple[float, float, int]:
    """Median microseconds of count_exchange on a 2,000-token chat exchange, beside a json.loads of
    its two bodies (what the proxy already does per request)."""
    text = " ".join(PROMPTS) * 8
    request = {
        "model": "gpt-4o",
        "messages": [{"role": "system", "content": text}, {"role": "user", "content": text}],
    }
    response = {
        "choices": [{"message": {"role": "assistant", "content": text[:2000]}}],
        "usage": {"prompt_tokens": 1},
    }
    raw = json.dumps(request), json.dumps(response)
    size = count_exchange(request, response).prompt_counted or 0  # plain text messages: always counted
    counted, parsed = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        count_exchange(request, response)
        counted.append(time.perf_counter() - t)
        t = time.perf_counter()
        json.loads(raw[0]), json.loads(raw[1])
        parsed.append(time.perf_counter() - t)
    return float(np.median(counted)) * 1e6, float(np.median(parsed)) * 1e6, size


LEDGER_REGIMES = [(n, s, "lognormal") for n in (2, 3, 4, 5, 25, 100) for s in (0.1, 0.4, 0.8)] + [
    (n, s, kind) for n in (5, 25, 100) for s, kind in ((0.4, "long"), (0.8, "long"), (0.0, "mix"))
]
"""Prompts, spread and shape of the billing factors: lognormal (sigma), `long` (lognormal, and one
prompt in ten, at least one, 20x longer than the rest), `mix` (each prompt billed 1.0 or 1.3, even odds)."""


def _old_interval(r_sum: np.ndarray, c_sum: np.ndarray, ratio: float) -> tuple[float, float] | None:
    """The ledger's interval before: jackknife standard error, t on the prompts' effective number."""
    t = len(r_sum)
    if t < 2:
        return None
    loo = (r_sum.sum() - r_sum) / np.maximum(c_sum.sum() - c_sum, 1e-9)
    sd = float(np.sqrt((t - 1) / t * ((loo - loo.mean()) ** 2).sum()))
    q = t_quantile(max(float(c_sum.sum() ** 2 / (c_sum**2).sum()) - 1, 1.0))
    return max(ratio - q * sd, 0.0), ratio + q * sd


def _billing(
    rng: np.random.Generator, prompts: int, sigma: float, kind: str, mean: float
) -> tuple[np.ndarray, np.ndarray]:
    """Counted and reported tokens per prompt (50 to 2,000 counted) of a route whose true ratio of
    sums over prompts from this source is `mean`."""
    counted = rng.integers(5, 200, size=prompts).astype(np.float64) * 10
    if kind == "long":
        counted[: max(1, prompts // 10)] *= 20
    if kind == "mix":
        factor = np.where(rng.random(prompts) < 0.5, 1.0, 1.3) / 1.15
    else:
        factor = np.exp(rng.normal(0, sigma, size=prompts) - sigma**2 / 2)
    return counted * mean * factor, counted


def _regime(
    rng: np.random.Generator, regime: tuple[int, float, str], runs: int, interval: Any
) -> dict[str, float]:
    """Coverage and median width at a true 1.1, false verdicts at 1.0, `overbilled` at 1.2."""
    hits, widths, false_over, false_under, power = 0, [], 0, 0, 0
    for _ in range(runs):
        for mean in (1.1, 1.0, 1.2):
            reported, counted = _billing(rng, regime[0], regime[1], regime[2], mean)
            got = interval(reported, counted, float(reported.sum() / counted.sum()))
            verdict = ratio_verdict(got)
            if mean == 1.1:
                hits += got is not None and got[0] <= mean <= got[1]
                widths.append(got[1] - got[0] if got else np.inf)
            false_over += mean == 1.0 and verdict == OVERBILLED
            false_under += mean == 1.0 and verdict == UNDERBILLED
            power += mean == 1.2 and verdict == OVERBILLED
    figures = {"coverage": hits, "false over": false_over, "false under": false_under, "power": power}
    return {k: v / runs for k, v in figures.items()} | {"width": float(np.median(widths))}


def ledger_coverage(runs: int = 2000) -> list[str]:
    """The ledger's 95 % interval, now beside before, in each regime of `LEDGER_REGIMES` (the same
    draws for both: one seed per regime), and its time on 10,000 prompts."""
    se = np.sqrt(0.95 * 0.05 / runs)
    lines = [f"ledger interval ({runs} draws per regime; Monte Carlo se of a coverage of 0.95: {se:.4f}):"]
    for i, regime in enumerate(LEDGER_REGIMES):
        new, old = (_regime(np.random.default_rng(i), regime, runs, f) for f in (_interval, _old_interval))
        name = f"{regime[0]} prompts, {regime[2]}" + (f" sigma {regime[1]}" if regime[2] != "mix" else "")
        lines.append(
            f"  {name}: coverage {new['coverage']:.3f} (before {old['coverage']:.3f}), median width "
            f"{new['width']:.3f} ({old['width']:.3f}); at 1.0 false overbilled {new['false over']:.3f} "
            f"({old['false over']:.3f}), underbilled {new['false under']:.3f} ({old['false under']:.3f}); "
            f"overbilled at 1.2 {new['power']:.3f} ({old['power']:.3f})"
        )
    reported, counted = _billing(np.random.default_rng(1), 10_000, 0.4, "lognormal", 1.1)
    times = {}
    for f in (_interval, _old_interval):
        runs_t = []
        for _ in range(200):
            t = time.perf_counter()
            f(reported, counted, 1.1)
            runs_t.append(time.perf_counter() - t)
        times[f] = float(np.median(runs_t)) * 1e6
    lines.append(f"  10,000 prompts: median {times[_interval]:.0f} us (before {times[_old_interval]:.0f} us)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--power-pairs", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=7, help="alternated repetitions of the speed figure")
    parser.add_argument("--speed-only", action="store_true", help="only the speed figure")
    parser.add_argument("--tool-calls", action="store_true", help="speed on logs answered by tool calls")
    parser.add_argument("--baseline-root", help="also time the audit of the analyzer package in this folder")
    parser.add_argument("--ledger-runs", type=int, default=2000, help="draws per ledger regime")
    parser.add_argument("--ledger-only", action="store_true", help="only the ledger interval's figures")
    args = parser.parse_args()
    if args.ledger_only:
        print("\n".join(ledger_coverage(args.ledger_runs)))
        return
    if args.speed_only:  # the same two pools the full run times
        other = pool(VARIANTS["other model (shift 2)"], list(VARIANTS).index("other model (shift 2)") + 1)
        ref = pool(Distortion(), 99)
        ref, other = (as_calls(ref), as_calls(other)) if args.tool_calls else (ref, other)
        print("\n".join(speed(ref, other, args.repeats, args.baseline_root)))
        return
    pools = {name: pool(d, i + 1) for i, (name, d) in enumerate(VARIANTS.items())}
    reference = pool(Distortion(), 99)
    ours, met, _ = rates(reference, pools["honest"], args.pairs, 0.05, 1)
    head = f"false 'differ' on identical routes ({args.pairs} pairs, alpha 0.05)"
    print(f"{head}: combined {ours:.3f}, MET {met:.3f}")
    for name in list(VARIANTS)[1:]:
        ours, met, se = rates(reference, pools[name], args.power_pairs, 0.05, 2)
        head = f"power, {name} ({args.power_pairs} pairs, 10 x 25)"
        print(f"{head}: combined {ours:.3f}, MET {met:.3f}, difference {ours - met:+.3f} (se {se:.3f})")
    for name in ("honest", "usage x1.2", "injected system prompt"):
        pair = _model(_log(reference, 10, 25, name)), _model(_log(pools[name], 10, 25, name))
        fig = audit_figures(audit_logs(*pair))["tokens"]
        ratios = f"prompt {fig['prompt_ratio']:.3f}, completion {fig['completion_ratio']:.3f}"
        print(f"tokens, {name}: {ratios} ({fig['verdict']})")
    print("\n".join(ledger_coverage(args.ledger_runs)))
    counted, parsed, size = proxy_cost()
    print(
        f"count_exchange ({size:,} prompt tokens and a 2,000-character reply): median {counted:.0f} us; "
        f"json.loads of both bodies {parsed:.0f} us"
    )
    print("\n".join(speed(reference, pools["other model (shift 2)"], args.repeats, args.baseline_root)))


def _model(data: dict[str, Any]) -> Any:
    from analyzer.log.model import RunLog

    return RunLog.model_validate(data)


if __name__ == "__main__":
    main()
