"""What a "no difference found" could have found: the test's power against a stated shift, simulated
from the reference route's own samples.

The shift is a route that samples at `SHIFT_TEMPERATURE` times the reference's temperature: each
prompt's distinct completions keep their texts, and their observed shares p become p^(1/0.5),
renormalized. Both simulated routes are drawn from the reference's samples (the reference with
replacement as it is, the candidate with the sharpened shares), at the logs' own sample counts, and
the same test is run on each draw.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analyzer.audit.identity import run_test
from analyzer.audit.kernels import Features
from analyzer.audit.samples import Samples, padded

SHIFT_TEMPERATURE = 0.5
"""The stated alternative: the candidate samples at half the reference's temperature."""
DRAWS = 40
"""Simulated pairs of routes (the power is a share of these, within about +-0.08)."""
DRAW_PERMUTATIONS = 199
MAX_PROMPTS = 100
"""Prompts a draw uses at most (more prompts only add power, so this is a lower bound)."""


@dataclass(frozen=True)
class Power:
    power: float
    temperature: float
    draws: int
    prompts: int
    varied_prompts: int
    """Prompts whose reference samples hold more than one distinct completion (where a shift shows)."""


def _sharpened_weights(texts: list[str]) -> np.ndarray:
    values, inverse, counts = np.unique(
        np.array(texts, dtype=object).astype(str), return_inverse=True, return_counts=True
    )
    share = counts / counts.sum()
    weight = share[inverse] ** (1 / SHIFT_TEMPERATURE - 1)  # per sample: p^(1/T) / (p * n)
    return weight / weight.sum()


def shift_power(samples: Samples, feats: Features, alpha: float) -> Power:
    """The share of simulated shifted routes the test calls `differ` at alpha."""
    rng = np.random.default_rng(7)
    keep = min(len(samples.task_ids), MAX_PROMPTS)
    answers = samples.columns["answer"]
    refs = [samples.rows[i, : samples.n_ref[i]] for i in range(keep)]
    weights = [_sharpened_weights([str(answers[j]) for j in r]) for r in refs]
    varied = sum(1 for r in refs if len({str(answers[j]) for j in r}) > 1)
    n_ref, n_cand = samples.n_ref[:keep], samples.n_cand[:keep]
    hits = 0
    for _ in range(DRAWS):
        lists = [
            list(rng.choice(r, size=int(n_ref[i]))) + list(rng.choice(r, size=int(n_cand[i]), p=weights[i]))
            for i, r in enumerate(refs)
        ]
        draw = samples.take(padded(lists), n_ref, n_cand)
        hits += run_test(draw, feats, alpha, DRAW_PERMUTATIONS).p_value <= alpha
    return Power(hits / DRAWS, SHIFT_TEMPERATURE, DRAWS, keep, varied)
