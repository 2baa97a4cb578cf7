"""The chance headline against a simulation of the null: is "by chance alone about X would have agreed"
the number expected at the rounds run?

    python scripts/bench_chance.py [--tasks 3000] [--seed 1]

Under the null (pinning changes nothing) a re-run's K rounds are K more draws of each task's answer.
For a population of tasks with known answer shares, a parent of n rounds is drawn, the tasks that
disagreed are kept (a re-run takes those), and the headline's sum of `stats.chance_agreement` over
them is set beside the truth, the sum of P(K draws agree) = sum_i p_i^K over the same tasks. Three
populations: A (half consistent, a quarter with a main share uniform in 0.85-1, a quarter in
0.4-0.85, the rest split 70/30), B (half consistent, a quarter 0.6/0.3/0.1, a quarter 0.9/0.1),
C (like the sample simulator: 0.7/0.3 and flaky 0.95/0.05 tasks). Target: within 10 % (ratio 0.9-1.1).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analyzer.metrics.stats import chance_agreement  # noqa: E402


def population(rng: np.random.Generator, tasks: int, name: str) -> np.ndarray:
    """Answer shares per task (tasks x 3)."""
    kind = rng.random(tasks)
    shares = np.zeros((tasks, 3))
    shares[:, 0] = 1.0
    if name == "A":
        main = np.where(
            kind < 0.5, 1.0, np.where(kind < 0.75, rng.uniform(0.85, 1, tasks), rng.uniform(0.4, 0.85, tasks))
        )
        return np.stack([main, (1 - main) * 0.7, (1 - main) * 0.3], axis=1)
    if name == "B":
        shares[kind >= 0.5] = [0.6, 0.3, 0.1]
        shares[kind >= 0.75] = [0.9, 0.1, 0.0]
        return shares
    shares[kind >= 0.4] = [0.7, 0.3, 0.0]
    shares[kind >= 0.7] = [0.95, 0.05, 0.0]
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    ks = (5, 10, 18, 30)
    print("| population | parent rounds | " + " | ".join(f"K = {k}" for k in ks) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in ks) + " |")
    for name in "ABC":
        for n in (3, 5, 10):
            shares = population(rng, args.tasks, name)
            counts = np.array([rng.multinomial(n, p) for p in shares])
            chosen = np.flatnonzero(counts.max(axis=1) < n)
            cells = []
            for k in ks:
                truth = float(sum((shares[i] ** k).sum() for i in chosen))
                said = sum(chance_agreement([int(c) for c in counts[i] if c], k) for i in chosen)
                cells.append(f"{said:.1f} / {truth:.1f} = {said / truth:.2f}x")
            print(f"| {name} | {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
