"""Speed of the semantic key: 10,000 distinct answers, cold and then already seen.

A format-1 log of 2,000 tasks x 5 rounds whose 10,000 answers are all distinct (English and Chinese,
short replies and agent-length sentences). Printed, each measured in this run:

- the baseline: `analyze(log, "normalized")`, which embeds nothing;
- the bundled model alone on the distinct answers (the floor for a first pass);
- `analyze(log, "semantic")` with an empty cache folder (every answer embedded once, plus the
  differing words of close pairs);
- the same log again in a fresh cache object reading the folder, as a new process would: no new
  embedding work (`computed` must be 0).

    python scripts/bench_semantic.py [--tasks 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
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
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
