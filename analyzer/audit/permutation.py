"""The within-prompt permutation engine: every part's MMD for the observed labels and for the same
random relabellings, so all parts (and MET's statistic) are calibrated by one set of permutations.

Under "both routes serve one distribution" the route labels of a prompt's samples are exchangeable,
so the observed statistic is one draw among the permuted ones and the rank p-value
(1 + #{permuted >= observed}) / (1 + permutations) has exactly its stated level. Sizes per prompt stay
as they are: a permutation only reshuffles which samples are called reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analyzer.audit.kernels import PARTS, Bandwidths, Features, category_onehots, grams

CHOICES = (999, 499, 199, 99, 49)
"""Permutation counts tried, largest first; the largest within `WORK_BUDGET` is used, never one so
small that the smallest p-value, 1 / (1 + permutations), is above alpha / 2."""
WORK_BUDGET = 1.5e9
"""Multiply-adds the permutations may take (a 100k-result pair of logs at alpha 0.05 gets 49)."""
CHUNK_CELLS = 12_000_000
"""Elements of the (parts, prompts, width, permutations) products held at once."""


def permutation_count(prompts: int, width: int, alpha: float) -> int:
    """The most permutations of `CHOICES` whose work fits the budget (each is an exact test)."""
    work = len(PARTS) * prompts * width * width
    allowed = [p for p in CHOICES if 1 / (p + 1) <= alpha / 2] or [CHOICES[0]]
    return next((p for p in allowed if work * (p + 1) <= WORK_BUDGET), allowed[-1])


@dataclass(frozen=True)
class PermutationStats:
    """Column 0 is the observed labelling, the rest the permutations."""

    mmd: np.ndarray
    """(parts, prompts, 1 + permutations): each prompt's unbiased MMD² per part."""
    met: np.ndarray
    """(1 + permutations,): MET's statistic, the pooled unbiased MMD² with the Hamming kernel."""


def _labels(n_ref: np.ndarray, mask: np.ndarray, permutations: int, rng: np.random.Generator) -> np.ndarray:
    """(prompts, width, 1 + permutations) reference indicators: observed first, then random ones.

    Each permutation labels reference the `n_ref` samples with the smallest uniform keys (float64:
    a tie is practically impossible), so each is a uniform random subset of the prompt's samples."""
    t, n = mask.shape
    observed = (np.arange(n)[None, :] < n_ref[:, None]).astype(np.float32)[:, :, None]
    keys = rng.random((t, permutations, n))
    if not mask.all():
        keys[np.broadcast_to(~mask[:, None, :], keys.shape)] = 2.0  # padding is never reference
    kth = np.broadcast_to((n_ref - 1)[:, None, None], (t, permutations, 1))
    threshold = np.take_along_axis(np.sort(keys, axis=-1), kth, axis=-1)
    permuted = (keys <= threshold).astype(np.float32).transpose(0, 2, 1)
    return np.concatenate([observed, permuted], axis=2)


def _pair_sums(gram: np.ndarray, labels: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, ...]:
    """Sums of the kernel within reference, across, and within candidate (parts, prompts, columns)."""
    kr = np.matmul(gram, labels)
    xx = np.einsum("tnp,ktnp->ktp", labels, kr)
    km = np.matmul(gram, mask.astype(np.float32)[:, :, None])
    across = np.einsum("tnp,ktn->ktp", labels, km[..., 0]) - xx
    total = np.einsum("tn,ktn->kt", mask.astype(np.float32), km[..., 0])[:, :, None]
    return xx, across, total - 2 * across - xx


def _category_sums(onehot: np.ndarray, labels: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, ...]:
    """The same sums for a delta kernel from counts per category (prompts x categories x columns)."""
    onehot = onehot * mask[:, :, None]
    ref = np.matmul(onehot.transpose(0, 2, 1), labels)  # reference samples per category
    every = onehot.sum(axis=1)[:, :, None]
    xx = (ref * ref).sum(axis=1)
    across = (ref * every).sum(axis=1) - xx
    total = (every * every).sum(axis=1)
    return xx, across, total - 2 * across - xx


def _block_sums(
    feats: Features, block: np.ndarray, bw: Bandwidths, labels: np.ndarray
) -> tuple[np.ndarray, ...]:
    """(xx, across, yy), each (parts, prompts, columns), in `PARTS` order."""
    mask = block >= 0
    sums = [list(_pair_sums(grams(feats, block, bw), labels, mask))]
    for onehot in category_onehots(feats, block):
        sums.append([x[None] for x in _category_sums(onehot, labels, mask)])
    return tuple(np.concatenate([s[i] for s in sums]) for i in range(3))


def permutation_stats(
    feats: Features, rows: np.ndarray, sizes: tuple[np.ndarray, np.ndarray], bw: Bandwidths, permutations: int
) -> PermutationStats:
    """Every part's per-prompt MMD² and MET's pooled one, observed and permuted (seeded: repeatable)."""
    n_ref, n_cand = sizes
    rng = np.random.default_rng(20241026)
    t_all, width = rows.shape
    step = max(1, CHUNK_CELLS // max(1, len(PARTS) * width * max(width, permutations + 1)))
    mmd = np.zeros((len(PARTS), t_all, permutations + 1), dtype=np.float64)
    met_sums = np.zeros((3, permutations + 1), dtype=np.float64)
    for s in range(0, t_all, step):
        block = rows[s : s + step]
        mask = block >= 0
        n, m = n_ref[s : s + step, None], n_cand[s : s + step, None]
        labels = _labels(n_ref[s : s + step], mask, permutations, rng)
        xx, xy, yy = _block_sums(feats, block, bw, labels)
        xx, yy = xx - n, yy - m  # the diagonal (each sample with itself) is 1 in every kernel
        mmd[:, s : s + step] = xx / (n * (n - 1)) + yy / (m * (m - 1)) - 2 * xy / (n * m)
        met_sums += np.stack([xx[0].sum(axis=0), yy[0].sum(axis=0), xy[0].sum(axis=0)])
    big_n, big_m = float(n_ref.sum()), float(n_cand.sum())
    met = (
        met_sums[0] / (big_n * (big_n - 1))
        + met_sums[1] / (big_m * (big_m - 1))
        - 2 * met_sums[2] / (big_n * big_m)
    )
    return PermutationStats(mmd, met)
