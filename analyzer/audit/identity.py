"""The identity test between two routes: do they serve one distribution of completions per prompt?

The statistic uses every kind of evidence the logs carry: each part (`kernels.PARTS`) gives a sum
over prompts of per-prompt unbiased MMD², and their standardized sum stands for many small signals.
The components are combined by a weighted minimum of their own permutation p-values (weighted
Tippett): MET's Hamming statistic, the lead, holds `LEAD_WEIGHT` of the weight, the other components
that vary share the rest. Each component's permutation p-values are ranks, so the combined p-value
is at most 1 / LEAD_WEIGHT times MET's (a Bonferroni bound), and a part whose null distribution is
skewed cannot crowd the others out as it could in a maximum of z-scores. All components see the same
within-prompt permutations and every step is symmetric in the set of columns, so the rank p-value
keeps its level exactly. Per prompt, the same combination (the opening part as lead) gives a
p-value, and the part it names is the component whose weighted p-value decided it; prompts that
differ are picked by Benjamini-Hochberg at the same alpha (false discovery rate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analyzer.audit.kernels import PARTS, Features, bandwidths
from analyzer.audit.permutation import permutation_count, permutation_stats
from analyzer.audit.samples import Samples
from analyzer.numbers import natural_key

MIN_SAMPLES = 20
"""Samples each route needs, over prompts with two or more on each side, before the test is run."""
MIN_PROMPTS = 2
"""Prompts the test needs (two samples on each route each)."""
TOGETHER = "parts together"
"""The name of the parts' standardized sum when it is the component that decided."""
PART_WORDS = {
    "opening": "the opening characters",
    "wording": "the wording",
    "length": "the length",
    "tokens": "the completion tokens",
    "finish reason": "the finish reason",
    "served model": "the served model name",
    "fingerprint": "the system fingerprint",
    TOGETHER: "several parts together",
}
"""How each part reads in a sentence."""
LEAD_WEIGHT = 1 / 3
"""Share of the weighted Tippett combination held by MET's statistic (per prompt: the opening part)."""


def _standardized(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values standardized over their last axis (observed and permuted alike), and which vary."""
    sd = values.std(axis=-1, keepdims=True)
    varies = sd > 1e-12 * (1 + np.abs(values).mean(axis=-1, keepdims=True))
    z = np.where(varies, (values - values.mean(axis=-1, keepdims=True)) / np.where(varies, sd, 1.0), 0.0)
    return z, varies[..., 0]


def column_p(values: np.ndarray) -> np.ndarray:
    """Each column's permutation p-value within its row (last axis): the share of columns at least
    as large, itself counted. Computed by sorting, so ties (within `rank_p`'s tolerance) share one
    (equal values share their p-value, so the order the sort leaves them in does not matter)."""
    cols = values.shape[-1]
    flat = values.reshape(-1, cols)
    order = np.argsort(flat, axis=-1)
    rows = np.arange(len(flat))[:, None]
    ranked = flat[rows, order]
    starts = np.empty(ranked.shape, dtype=bool)
    starts[:, :1] = True
    np.greater(ranked[:, 1:], ranked[:, :-1] + 1e-9 * (1 + np.abs(ranked[:, 1:])), out=starts[:, 1:])
    below = np.maximum.accumulate(np.where(starts, np.arange(cols), 0), axis=-1)
    out = np.empty(flat.shape)
    out[rows, order] = (cols - below) / cols
    return out.reshape(values.shape)


COMPONENTS = ("lead", *PARTS, TOGETHER)
"""The components of the combination, in the order `weighted_p` stacks them (the lead first: on a
tie, the lead is named, then the parts in `PARTS` order)."""
PROMPT_BLOCK = 2048
"""Prompts combined at once (their temporaries stay small; every row is computed on its own)."""


def weighted_p(values: np.ndarray, lead: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(parts, ..., columns) and the lead statistic (..., columns) -> each component's weighted
    permutation p-value per column, stacked as `COMPONENTS` (inf where a component does not vary,
    so the combination does not use it), and each part's standardized values."""
    z, varies = _standardized(values)
    active = np.maximum(varies.sum(axis=0), 1)
    spread = z.sum(axis=0) / np.sqrt(active[..., None])
    rest = np.concatenate([values, spread[None]])
    rest_varies = np.concatenate([varies, (varies.sum(axis=0) > 0)[None]])
    share = (1 - LEAD_WEIGHT) / np.maximum(rest_varies.sum(axis=0), 1)
    weighted = np.where(rest_varies[..., None], column_p(rest) / share[..., None], np.inf)
    return np.concatenate([(column_p(lead) / LEAD_WEIGHT)[None], weighted]), z


def combined(values: np.ndarray, lead: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(parts, ..., columns) and the lead statistic (..., columns) -> the test statistic per column
    (larger is more extreme), and each part's standardized values."""
    weighted, z = weighted_p(values, lead)
    return -weighted.min(axis=0), z


def prompt_tests(mmd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per prompt, from its parts' MMD² (parts, prompts, columns): the combined test's p-value (the
    opening part as lead) and the component whose weighted p-value decided it (an index into
    `COMPONENTS`), computed a block of prompts at a time."""
    prompts = mmd.shape[1]
    p, decided = np.empty(prompts), np.empty(prompts, dtype=np.int64)
    for s in range(0, prompts, PROMPT_BLOCK):
        block = mmd[:, s : s + PROMPT_BLOCK]
        weighted, _ = weighted_p(block, block[PARTS.index("opening")])
        p[s : s + PROMPT_BLOCK] = rank_p(-weighted.min(axis=0))
        decided[s : s + PROMPT_BLOCK] = weighted[:, :, 0].argmin(axis=0)
    return p, decided


def rank_p(stat: np.ndarray) -> np.ndarray:
    """Rank p-value of column 0 among all columns (last axis), the observed one counted."""
    obs = stat[..., :1]
    return (stat >= obs - 1e-9 * (1 + np.abs(obs))).mean(axis=-1)


def benjamini_hochberg(p: np.ndarray, alpha: float) -> np.ndarray:
    """Which hypotheses the Benjamini-Hochberg step-up rejects at false discovery rate alpha."""
    order = np.argsort(p)
    ranked = p[order] <= alpha * np.arange(1, len(p) + 1) / max(len(p), 1)
    cut = int(np.nonzero(ranked)[0].max()) + 1 if ranked.any() else 0
    out = np.zeros(len(p), dtype=bool)
    out[order[:cut]] = True
    return out


@dataclass(frozen=True)
class PromptResult:
    task_id: str
    p_value: float
    differs: bool
    """Picked by Benjamini-Hochberg at alpha."""
    part: str
    """The part whose weighted permutation p-value is the smallest of those the prompt's combined
    statistic uses (the evidence that decided; `TOGETHER` when it is the parts' standardized sum)."""


@dataclass(frozen=True)
class IdentityOutcome:
    """One run of the test on a set of samples."""

    p_value: float
    met_p_value: float
    part_z: dict[str, float]
    prompts: list[PromptResult]
    permutations: int


def run_test(
    samples: Samples, feats: Features, alpha: float, permutations: int | None = None
) -> IdentityOutcome:
    """The combined test and MET's, on the same permutations."""
    width = samples.rows.shape[1]
    count = permutations or permutation_count(len(samples.task_ids), width, alpha)
    stats = permutation_stats(
        feats, samples.rows, (samples.n_ref, samples.n_cand), bandwidths(feats, samples.rows), count
    )
    stat, z = combined(stats.mmd.sum(axis=1), stats.met)
    prompt_p, decided = prompt_tests(stats.mmd)
    picked = benjamini_hochberg(prompt_p, alpha)
    names = ("opening", *COMPONENTS[1:])  # the per-prompt lead is the opening part
    prompts = [
        PromptResult(tid, float(prompt_p[i]), bool(picked[i]), names[int(decided[i])])
        for i, tid in enumerate(samples.task_ids)
    ]
    return IdentityOutcome(
        float(rank_p(stat)),
        float(rank_p(stats.met)),
        {part: float(z[k, 0]) for k, part in enumerate(PARTS)},
        sorted(prompts, key=lambda r: (r.p_value, natural_key(r.task_id))),  # ties in natural order
        count,
    )


def enough(samples: Samples) -> bool:
    """Whether the samples are enough to test (`MIN_PROMPTS` prompts, `MIN_SAMPLES` per route)."""
    return (
        len(samples.task_ids) >= MIN_PROMPTS
        and int(samples.n_ref.sum()) >= MIN_SAMPLES
        and int(samples.n_cand.sum()) >= MIN_SAMPLES
    )
