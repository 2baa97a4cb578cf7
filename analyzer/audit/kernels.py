"""The kernels the identity test compares samples with: one per kind of evidence a log carries.

Every kernel is positive semi-definite with 1 on its diagonal, and 0 between different prompts (the
test only ever compares samples of one prompt). `opening` is the Hamming kernel of Model Equality
Testing (Gao, Liang, Guestrin, ICLR 2025): the share of the first `OPENING_CHARS` characters two
completions have in common, position by position, the shorter one padded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analyzer.audit.samples import Samples

OPENING_CHARS = 1000
"""Characters the Hamming kernel reads (L in the MET paper)."""
WORDING_BUCKETS = 256
"""Character trigrams are hashed into this many buckets; the wording kernel is their cosine."""
PARTS = ("opening", "wording", "length", "tokens", "finish reason", "served model", "fingerprint")
"""The kernels, in the order the test reports them; each is one kind of evidence."""
CATEGORICAL = {
    "finish reason": "finish_reason",
    "served model": "served_model",
    "fingerprint": "system_fingerprint",
}
CHUNK_CELLS = 20_000_000
"""Elements a chunk of Hamming comparisons may hold at once (memory bound)."""


@dataclass(frozen=True)
class Features:
    """Per pooled sample: what the kernels read, computed once."""

    unique_texts: list[str]
    """Each distinct completion once (features are computed per distinct text)."""
    text_ids: np.ndarray
    """Per pooled sample: its text's index in `unique_texts`."""
    trigrams: np.ndarray
    """(distinct texts, WORDING_BUCKETS) unit vectors of hashed character trigrams."""
    log_length: np.ndarray
    log_tokens: np.ndarray
    """log1p(completion tokens); NaN where not recorded."""
    categories: dict[str, np.ndarray]
    """Integer codes per categorical part ("not recorded" is a code of its own)."""
    opening_chars: int


def _codes(texts: list[str], width: int) -> np.ndarray:
    """Code points of each text's first `width` characters, 0-padded, as a (texts, width) array."""
    if width == 0:
        return np.zeros((len(texts), 0), dtype=np.uint32)
    return np.array(texts, dtype=f"<U{width}").view(np.uint32).reshape(len(texts), width)


def _trigrams(texts: list[str], width: int) -> np.ndarray:
    out = np.zeros((len(texts), WORDING_BUCKETS), dtype=np.float32)
    step = max(1, 2_000_000 // max(width, 1))
    for start in range(0, len(texts), step):
        codes = _codes([t.casefold() for t in texts[start : start + step]], max(width, 3)).astype(np.int64)
        h = (codes[:, :-2] * 1_000_003 + codes[:, 1:-1] * 8_191 + codes[:, 2:] * 131) % WORDING_BUCKETS
        valid = codes[:, 2:] > 0
        rows = np.broadcast_to(np.arange(len(codes))[:, None], h.shape)
        np.add.at(out[start : start + step], (rows[valid], h[valid]), 1.0)
    norms = np.linalg.norm(out, axis=1)
    out[norms == 0, 0] = 1.0
    norms[norms == 0] = 1.0
    return out / norms[:, None]


def _category_codes(values: list[object]) -> np.ndarray:
    """An integer per distinct value ("not recorded" is a value of its own)."""
    codes, _ = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=False)
    return np.asarray(codes, dtype=np.int64)


def features(samples: Samples) -> Features:
    """Each pooled sample's features, computed once for the test and every resample of it."""
    codes, distinct = pd.factorize(pd.Series(samples.columns["answer"], dtype=object))
    ids = np.asarray(codes, dtype=np.int64)
    ids[ids < 0] = len(distinct)  # no answer reads as the empty text
    texts = [t if isinstance(t, str) else "" for t in distinct] + [""]
    lengths = np.array([len(t) for t in texts], dtype=np.float64)
    width = int(min(OPENING_CHARS, lengths.max(initial=0)))
    tokens = pd.to_numeric(pd.Series(samples.columns["completion_tokens"], dtype=object)).to_numpy(np.float64)
    return Features(
        texts,
        ids,
        _trigrams(texts, width),
        np.log1p(lengths)[ids],
        np.log1p(tokens),
        {part: _category_codes(samples.columns[col]) for part, col in CATEGORICAL.items()},
        width,
    )


def _bandwidth(values: np.ndarray, rows: np.ndarray) -> float:
    """Within-prompt pooled spread of a feature (labels play no part, so permutations keep it)."""
    v = np.where(rows >= 0, values[np.maximum(rows, 0)], np.nan)
    centred = v - np.nanmean(v, axis=1, keepdims=True)
    spread = float(np.sqrt(np.nanmean(centred**2))) if np.isfinite(centred).any() else 0.0
    return max(spread, 0.05)


@dataclass(frozen=True)
class Bandwidths:
    length: float
    tokens: float


def bandwidths(feats: Features, rows: np.ndarray) -> Bandwidths:
    return Bandwidths(_bandwidth(feats.log_length, rows), _bandwidth(feats.log_tokens, rows))


def _gaussian(values: np.ndarray, bandwidth: float) -> np.ndarray:
    diff = (values[:, :, None] - values[:, None, :]) / np.float32(bandwidth)
    return np.exp(np.float32(-0.5) * diff * diff)


def hamming(feats: Features, rows: np.ndarray) -> np.ndarray:
    """MET's kernel for a block of prompts: (prompts, width, width) shares of matching characters.

    Computed between the block's distinct texts when they are few (repeated short answers), else
    prompt by prompt; the values are the same."""
    t, n = rows.shape
    width = feats.opening_chars
    if width == 0:
        return np.ones((t, n, n), dtype=np.float32)
    ids = feats.text_ids[np.maximum(rows, 0)]
    distinct, inverse = np.unique(ids, return_inverse=True)
    codes = _codes([feats.unique_texts[i] for i in distinct], width)
    if len(distinct) ** 2 <= t * n * n:
        between = _matches(codes[None], width)[0]
        inverse = inverse.reshape(t, n)
        return between[inverse[:, :, None], inverse[:, None, :]]
    return _matches(codes[inverse.reshape(t, n)], width)


def _matches(codes: np.ndarray, width: int) -> np.ndarray:
    """(blocks, k, width) code points -> (blocks, k, k) shares of positions that match."""
    t, n = codes.shape[:2]
    out = np.zeros((t, n, n), dtype=np.float32)
    step = max(1, CHUNK_CELLS // max(1, n * n * width))
    for s in range(0, t, step):
        block = codes[s : s + step]
        out[s : s + step] = np.count_nonzero(block[:, :, None, :] == block[:, None, :, :], axis=3) / width
    return out


def _wording(feats: Features, rows: np.ndarray) -> np.ndarray:
    """Cosine of the texts' trigram vectors, between the block's distinct texts when they are few."""
    t, n = rows.shape
    ids = feats.text_ids[np.maximum(rows, 0)]
    distinct, inverse = np.unique(ids, return_inverse=True)
    if len(distinct) ** 2 <= t * n * n:
        vectors = feats.trigrams[distinct]
        inverse = inverse.reshape(t, n)
        return (vectors @ vectors.T)[inverse[:, :, None], inverse[:, None, :]]
    tri = feats.trigrams[ids]
    return np.matmul(tri, tri.transpose(0, 2, 1))


GRAM_PARTS = len(PARTS) - len(CATEGORICAL)
"""The parts given as kernel matrices (the categorical ones are given as one-hot codes)."""


def category_onehots(feats: Features, rows: np.ndarray) -> list[np.ndarray]:
    """Each categorical part as (prompts, width, categories) one-hot codes: its delta kernel is their
    inner product, so sums over it need counts per category, not a width x width matrix."""
    idx = np.maximum(rows, 0)
    out = []
    for part in CATEGORICAL:
        _, inverse = np.unique(feats.categories[part][idx], return_inverse=True)
        codes = inverse.reshape(rows.shape)
        out.append((codes[:, :, None] == np.arange(codes.max(initial=0) + 1)).astype(np.float32))
    return out


def grams(feats: Features, rows: np.ndarray, bw: Bandwidths) -> np.ndarray:
    """The non-categorical parts' kernels for a block of prompts: (parts, prompts, width, width)."""
    idx = np.maximum(rows, 0)
    t, n = rows.shape
    out = np.empty((GRAM_PARTS, t, n, n), dtype=np.float32)
    out[0] = hamming(feats, rows)
    out[1] = _wording(feats, rows)
    out[2] = _gaussian(feats.log_length[idx].astype(np.float32), bw.length)
    tokens = feats.log_tokens[idx].astype(np.float32)
    present = np.isfinite(tokens)
    both = present[:, :, None] & present[:, None, :]
    kernel = np.where(both, _gaussian(np.nan_to_num(tokens), bw.tokens), np.float32(0.0))
    out[3] = np.where(~present[:, :, None] & ~present[:, None, :], np.float32(1.0), kernel)
    return out
