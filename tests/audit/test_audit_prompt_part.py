"""Per prompt, the part named as differing most is the one whose weighted permutation p-value decided
the prompt's combined test, not the one with the largest standardized statistic."""

from __future__ import annotations

from typing import Any

import numpy as np

from analyzer.audit.identity import LEAD_WEIGHT, TOGETHER, run_test
from analyzer.audit.kernels import PARTS, bandwidths, features
from analyzer.audit.permutation import permutation_stats
from analyzer.audit.samples import COLUMNS, Samples, padded

TEXTS = ["42", "The answer is 42.", "42 (confirmed)", "forty-two", "It is 42, I think.", "Maybe 42, or 41."]
PERMUTATIONS = 199


def _pair(seed: int, prompts: int = 12, n: int = 10) -> Samples:
    """Candidate answers sharpened, a token more on every other prompt, now and then cut short."""
    rng = np.random.default_rng(seed)
    cols: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    lists = []
    for k in range(prompts):
        base = rng.dirichlet(np.ones(len(TEXTS)))
        idx = []
        for candidate, probs in ((False, base), (True, base**2 / (base**2).sum())):
            for i in rng.choice(len(TEXTS), size=n, p=probs):
                idx.append(len(cols["answer"]))
                row = {
                    "answer": TEXTS[i],
                    "completion_tokens": len(TEXTS[i]) // 3 + int(rng.integers(0, 2)) + (candidate and k % 2),
                    "finish_reason": "length" if candidate and rng.random() < 0.1 else "stop",
                    "served_model": "m",
                }
                for c in COLUMNS:
                    cols[c].append(row.get(c))
        lists.append(idx)
    sizes = np.full(prompts, n)
    ids = [f"q{k}" for k in range(prompts)]
    return Samples(cols, ids, padded(lists), sizes, sizes, prompts, False, (0, 0))


def _by_part(samples: Samples) -> list[tuple[dict[str, float], dict[str, float]]]:
    """Per prompt, recomputed from the permutation statistics: each varying part's weighted p-value
    (the stated rule: the opening part holds LEAD_WEIGHT, the varying parts and their sum share the
    rest) and its standardized observed statistic."""
    feats = features(samples)
    bw = bandwidths(feats, samples.rows)
    mmd = permutation_stats(feats, samples.rows, (samples.n_ref, samples.n_cand), bw, PERMUTATIONS).mmd
    out = []
    for i in range(len(samples.task_ids)):
        rows = {part: mmd[k, i] for k, part in enumerate(PARTS) if np.ptp(mmd[k, i]) > 1e-12}
        share = (1 - LEAD_WEIGHT) / (len(rows) + 1)
        p = {part: float(np.mean(v >= v[0] - 1e-9 * (1 + abs(v[0])))) for part, v in rows.items()}
        weighted = {part: v / (LEAD_WEIGHT if part == "opening" else share) for part, v in p.items()}
        z = {part: float((v[0] - v.mean()) / v.std()) for part, v in rows.items()}
        out.append((weighted, z))
    return out


def test_each_prompt_names_the_part_whose_p_value_decided() -> None:
    samples = _pair(0)
    named = {r.task_id: r.part for r in run_test(samples, features(samples), 0.05, PERMUTATIONS).prompts}
    weaker_by_z = 0
    for task, (weighted, z) in zip(samples.task_ids, _by_part(samples), strict=True):
        if named[task] == TOGETHER:
            continue
        assert weighted.get(named[task], np.inf) == min(weighted.values()), (task, named[task], weighted)
        weaker_by_z += weighted[max(z, key=z.__getitem__)] > min(weighted.values())
    # prompts where the largest z belongs to a part whose evidence was weaker: the old rule named it
    assert weaker_by_z >= 3
