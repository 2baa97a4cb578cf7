"""The judge key's band: the local encoder's cosines outside which no judge call is made.

On the labelled set's seen splits (dev, holdout, holdout2, holdout3: those the semantic key's
thresholds were chosen on, `bench_semantic_quality.py`), every pair of a task's distinct normalized
answers gets the bundled encoder's cosine (of the embedded text) and the semantic key's guards.
Printed: the lowest cosine of a pair of one meaning (the band's floor must sit below it) and the
highest cosine of a pair of two meanings that no guard keeps apart (its top must sit above it), then,
for the chosen band (`DEFAULT_BAND`), how many pairs it settles without a call and how many of those
wrongly, per split; the test split and the blind holdout4 only measure. Then holdout5
(tests/data/holdout5/: 305 answer pairs, English and Chinese, never tuned on), by language: the
pairs `--key judge` would settle without a call (equal under the normalized key, or outside the
band) and how many of those wrongly.

    python scripts/bench_judge_band.py
"""

from __future__ import annotations

import sys
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_semantic_quality import load_pairs, load_tasks  # noqa: E402

from analyzer.metrics.judge import DEFAULT_BAND  # noqa: E402
from analyzer.metrics.judge.key import JudgeOptions, band  # noqa: E402
from analyzer.metrics.normalized import normalized_key  # noqa: E402
from analyzer.metrics.semantic.key import PairJudge, SemanticOptions  # noqa: E402
from analyzer.metrics.semantic.text import embedding_text  # noqa: E402


def pairs(split: str) -> list[tuple[float, bool, bool]]:
    """(cosine, same meaning, a guard keeps it apart) for every pair of distinct answers of a task."""
    options = SemanticOptions(persist=False)
    cache = options.cache()
    guards = PairJudge(cache, options.threshold, options.slot_threshold, options.across())
    out = []
    for task in load_tasks(split):
        labelled = {normalized_key(text): label for text, label in task["answers"]}
        answers = list(labelled)
        vectors = cache.vectors([embedding_text(a) for a in answers])
        for i, j in combinations(range(len(answers)), 2):
            cosine = float(vectors[i] @ vectors[j])
            same = labelled[answers[i]] == labelled[answers[j]]
            out.append((cosine, same, guards.guard(answers[i], answers[j], cosine) is not None))
    return out


def main() -> None:
    by_split = {s: pairs(s) for s in ("dev", "holdout", "holdout2", "holdout3", "test", "holdout4")}
    seen = [row for split, rows in by_split.items() if split not in ("test", "holdout4") for row in rows]
    floor = min(c for c, same, _ in seen if same)
    top = max(c for c, same, guarded in seen if not same and not guarded)
    print(
        f"seen splits: {len(seen):,} pairs; lowest cosine of one meaning {floor:.3f}; highest of two "
        f"meanings no guard keeps apart {top:.3f}"
    )
    low, high = DEFAULT_BAND
    for split, rows in by_split.items():
        below = [same for c, same, _ in rows if c < low]
        above = [same for c, same, guarded in rows if c >= high and not guarded]
        settled = len(below) + len(above)
        wrong = sum(below) + sum(not s for s in above)
        print(
            f"{split:9} band {low:.2f}-{high:.2f}: {settled:,} of {len(rows):,} pairs settled without a "
            f"call ({settled / len(rows):.0%}), {wrong} of them wrongly"
        )
    pair_band()


def pair_band() -> None:
    """holdout5 by language: the share of pairs settled without a judge call, through the judge key's
    own `band` (the same encoder, thresholds and guards as `--key judge`)."""
    for lang, name in (("en", "English"), ("zh", "Chinese"), (None, "both")):
        pairs = load_pairs(lang)
        distinct = [p for p in pairs if normalized_key(p["a"]) != normalized_key(p["b"])]
        equal_wrong = sum(p["label"] != "same" for p in pairs if p not in distinct)
        groups = {p["id"]: [normalized_key(p["a"]), normalized_key(p["b"])] for p in distinct}
        certain, note = band(JudgeOptions(persist=False), groups)
        if certain is None:
            print(f"holdout5, {name}: {note}")
            return
        verdicts = [(certain(*groups[p["id"]]), p["label"] == "same") for p in distinct]
        settled = [(v, same) for v, same in verdicts if v is not None]
        wrong = sum(v != same for v, same in settled) + equal_wrong
        free = len(pairs) - len(distinct) + len(settled)
        print(
            f"holdout5, {name}: {free} of {len(pairs)} pairs settled without a call "
            f"({free / len(pairs):.0%}; "
            f"{len(pairs) - len(distinct)} equal under the normalized key, {len(settled)} outside the band "
            f"{DEFAULT_BAND[0]:.2f}-{DEFAULT_BAND[1]:.2f}), {wrong} of them wrongly"
        )


if __name__ == "__main__":
    main()
