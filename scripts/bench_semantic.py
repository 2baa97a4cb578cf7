"""Speed of the semantic key: 10,000 distinct answers, cold and then already seen.

A format-1 log of 2,000 tasks x 5 rounds whose 10,000 answers are all distinct (English and Chinese,
short replies and agent-length sentences). Printed, each measured in this run:

- the baseline: `analyze(log, "normalized")`, which embeds nothing;
- the bundled model alone on the distinct answers (the floor for a first pass);
- `analyze(log, "semantic")` with an empty cache folder (every answer embedded once, plus the
  differing words of close pairs);
- the same log again in a fresh cache object reading the folder, as a new process would: no new
  embedding work (`computed` must be 0).

With `--hostile`, the bounds instead: the guards on two 80,000-character answers with no sentence end,
and 1,000 and 10,000 distinct answers in one task (vectors from a hash, so only the clustering is
timed), each beside the normalized key on the same answers in the same run.

    python scripts/bench_semantic.py [--tasks 2000] [--rounds 5] [--hostile]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analyzer.analysis import analyze  # noqa: E402
from analyzer.log.loader import load_bytes  # noqa: E402
from analyzer.metrics.semantic import key as semantic  # noqa: E402
from analyzer.metrics.semantic.embed import LocalEmbedder  # noqa: E402
from analyzer.metrics.semantic.key import SemanticOptions  # noqa: E402

_NAMES = ["Mei Lee", "Daiki Lee", "John Smith", "Jane Smyth", "王芳", "李娜", "Omar Khan", "Sofia Rossi"]
_CITIES = ["Paris", "Lyon", "巴黎", "Newark", "Los Angeles", "上海", "Denver", "Berlin"]
_TEMPLATES = [
    "Your order {n} of {k} items ships on March {d}.",
    "The reservation for {name} has been updated to the flight to {city} on May {d}, {k} bags included.",
    "订单{n}已取消，{k}件商品的退款将在{d}天内到账。",
    "I'm sorry, {name}, basic economy reservation {n} cannot be modified; I can transfer you to an agent.",
    "{city}",
    "The total is ${n}.{d:02d} for {k} items, charged to the card ending in {d}{k}.",
    "您的航班{n}将于{d}点从{city}起飞，共{k}位乘客。",
    "Yes, {name} can take {k} free checked bags on reservation {n}.",
]


def make_log(tasks: int, rounds: int, seed: int = 7) -> bytes:
    """A format-1 log whose tasks x rounds answers are all distinct."""
    draw = random.Random(seed)
    seen: set[str] = set()
    runs = []
    for r in range(rounds):
        row = []
        for t in range(tasks):
            while True:
                text = draw.choice(_TEMPLATES).format(
                    n=draw.randint(100, 99999),
                    k=draw.randint(1, 9),
                    d=draw.randint(1, 28),
                    name=draw.choice(_NAMES),
                    city=draw.choice(_CITIES),
                )
                if text not in seen:
                    break
                text = f"{text} ({r}-{t})"
                if text not in seen:
                    break
            seen.add(text)
            row.append({"task_id": f"t{t}", "answer": text, "total_tokens": 10})
        runs.append(row)
    return json.dumps({"runs": runs}, ensure_ascii=False).encode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hostile", action="store_true", help="time the bounds on hostile answers")
    args = parser.parse_args()
    if args.hostile:
        hostile()
        return
    data = make_log(args.tasks, args.rounds)
    log = load_bytes(data, "bench").log
    answers = [r.answer or "" for rnd in log.runs for r in rnd]
    print(
        f"{len(answers):,} results, {len(set(answers)):,} distinct answers, "
        f"mean {sum(map(len, answers)) / len(answers):.0f} characters"
    )
    t0 = time.perf_counter()
    analyze(log, "normalized")
    baseline = time.perf_counter() - t0
    print(f"  normalized (baseline, no embedding)    {baseline:6.2f} s")
    model = LocalEmbedder()
    model.embed(["warm up"])
    t0 = time.perf_counter()
    model.embed(sorted(set(answers)))
    bare = time.perf_counter() - t0
    print(f"  the model alone on the distinct answers {bare:6.2f} s  (baseline for the cold pass)")
    with tempfile.TemporaryDirectory() as folder:
        import os

        os.environ["RERUNLENS_CACHE_DIR"] = folder
        t0 = time.perf_counter()
        options = SemanticOptions()
        analyze(log, "semantic", semantic=options)
        cold = time.perf_counter() - t0
        print(
            f"  semantic, empty cache                  {cold:6.2f} s  "
            f"({options.cache().computed:,} embedded; "
            f"{cold / bare:.2f}x the model alone)"
        )
        semantic._CACHES.clear()  # what a new process sees: only the cache folder
        t0 = time.perf_counter()
        again = SemanticOptions()
        analyze(log, "semantic", semantic=again)
        warm = time.perf_counter() - t0
        print(
            f"  semantic, the same log again           {warm:6.2f} s  ({again.cache().computed:,} embedded; "
            f"{warm / baseline:.1f}x the baseline)"
        )


def hostile() -> None:
    """The guards and the clustering on hostile answers, beside the normalized key on the same."""
    import numpy as np
    import pandas as pd

    from analyzer.metrics.normalized import normalized_key
    from analyzer.metrics.semantic.embed import EmbeddingCache
    from analyzer.metrics.semantic.key import PairJudge, semantic_keys

    class Hashed:
        name, dimension = "hashed", 64

        def embed(self, texts: Sequence[str]) -> np.ndarray:
            return np.stack([np.random.default_rng(abs(hash(t))).standard_normal(64) for t in texts])

    draw = random.Random(7)
    plain = [chr(c) for c in range(0x4E00, 0x9FA5) if chr(c) not in "吗和与跟"]
    a = "".join(draw.choice(plain) for _ in range(80_000))
    t0 = time.perf_counter()
    normalized_key(a), normalized_key(a[::-1])
    base = time.perf_counter() - t0
    t0 = time.perf_counter()
    PairJudge(EmbeddingCache(Hashed(), persist=False), 0.65, 0.5, 0.45).score(a, a[::-1], 0.99)
    rules = time.perf_counter() - t0
    print(
        f"  two 80,000-character answers: the guards {rules:.2f} s, "
        f"normalizing them {base:.3f} s ({rules / base:.0f}x)"
    )
    for n in (1000, 10_000):
        answers = pd.Series([f"your order {i} ships on march {i % 28 + 1}" for i in range(n)], dtype="string")
        t0 = time.perf_counter()
        answers.map(normalized_key)
        base = time.perf_counter() - t0
        t0 = time.perf_counter()
        semantic_keys(pd.Series(["t"] * n), answers, SemanticOptions(embedder=Hashed(), persist=False))
        took = time.perf_counter() - t0
        print(
            f"  {n:,} distinct answers in one task: {took:.2f} s, "
            f"normalized key {base:.3f} s ({took / base:.0f}x)"
        )


if __name__ == "__main__":
    main()
