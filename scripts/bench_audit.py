"""Benchmark of the route audit (not a test): level, power beside MET, token ratios, speed.

Each route variant of the simulator (honest, and one per distortion) answers 25 prompts 60 times over
real HTTP; pairs of routes are then drawn from those pools (10 samples x 25 prompts each), so the
level on identical routes and the power on each distortion are shares over many pairs. Both tests
run on the same samples and the same permutations. The speed figure times the audit of two
100k-result logs beside a json.load of both, in the same run.

    PYTHONPATH=$PWD python scripts/bench_audit.py [--pairs 200]
"""

from __future__ import annotations

import argparse
import json
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
from analyzer.audit.ledger import sum_ratio
from analyzer.audit.samples import COLUMNS, Samples, padded
from analyzer.importers import load_any
from analyzer.metrics.exchange_count import count_exchange
from analyzer.metrics.token_count import count_text
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


def speed(ref: list, cand: list, repeats: int = 3) -> tuple[float, float, float]:
    """Median over repeats of: json.load of both logs, load_any of both, the audit of the loaded logs."""
    count_text("warm up")  # the vocabulary loads once per process, as in the CLI
    times: list[tuple[float, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / "a.json", Path(tmp) / "b.json"]
        for path, rows in zip(paths, (ref, cand), strict=True):
            path.write_text(json.dumps(_log(rows, 10, 10_000, path.stem)))
        for _ in range(repeats):
            t0 = time.perf_counter()
            for path in paths:
                json.loads(path.read_bytes())
            t1 = time.perf_counter()
            logs = load_any(paths[0]).log, load_any(paths[1]).log
            t2 = time.perf_counter()
            audit_logs(*logs)
            times.append((t1 - t0, t2 - t1, time.perf_counter() - t2))
    baseline, load, audit = (float(np.median(col)) for col in zip(*times, strict=True))
    return baseline, load, audit


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


def ledger_coverage(runs: int = 2000) -> list[str]:
    """Coverage of the ledger's 95 % interval: routes billing 1.1x on average, per-prompt factors
    lognormal (spread sigma), prompts of 50 to 2,000 tokens."""
    rng = np.random.default_rng(0)
    lines = []
    for prompts in (5, 25, 100):
        for sigma in (0.1, 0.4, 0.8):
            hits = 0
            for _ in range(runs):
                counted = rng.integers(5, 200, size=prompts).astype(np.float64) * 10
                reported = counted * 1.1 * np.exp(rng.normal(0, sigma, size=prompts))
                r = sum_ratio(reported, counted, np.arange(prompts))
                true = 1.1 * np.exp(sigma**2 / 2)
                hits += r.interval is not None and r.interval[0] <= true <= r.interval[1]
            lines.append(f"{prompts} prompts, sigma {sigma}: {hits / runs:.3f}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--power-pairs", type=int, default=100)
    args = parser.parse_args()
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
    print("ledger interval coverage (95 % stated):", "; ".join(ledger_coverage()))
    counted, parsed, size = proxy_cost()
    print(
        f"count_exchange ({size:,} prompt tokens and a 2,000-character reply): median {counted:.0f} us; "
        f"json.loads of both bodies {parsed:.0f} us"
    )
    baseline, load, audit = speed(reference, pools["other model (shift 2)"])
    times = (
        f"json.load {baseline:.2f} s; audit {audit:.2f} s ({audit / baseline:.1f}x); load_any {load:.2f} s"
    )
    print(f"two 100k-result logs (median of 3): {times}; load + audit {(load + audit) / baseline:.1f}x")


def _model(data: dict[str, Any]) -> Any:
    from analyzer.log.model import RunLog

    return RunLog.model_validate(data)


if __name__ == "__main__":
    main()
