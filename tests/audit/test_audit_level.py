"""The identity test keeps its level: on pairs of routes that serve one distribution, it says
`differ` about alpha of the time or less (checked by simulation, not timed)."""

from __future__ import annotations

from typing import Any

import numpy as np

from analyzer.audit.identity import run_test
from analyzer.audit.kernels import features
from analyzer.audit.samples import COLUMNS, Samples, padded

TEXTS = ["42", "The answer is 42.", "42 (confirmed)", "forty-two", "It is 42, I think."]


def _route(rng: np.random.Generator, probs: np.ndarray, n: int) -> list[dict[str, Any]]:
    picks = rng.choice(len(TEXTS), size=n, p=probs)
    return [
        {
            "answer": TEXTS[i],
            "completion_tokens": len(TEXTS[i].split()),
            "finish_reason": "stop",
            "served_model": "m",
        }
        for i in picks
    ]


def _pair(rng: np.random.Generator, shift: float) -> Samples:
    cols: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    lists = []
    for k in range(12):
        base = np.random.default_rng(k).dirichlet(np.ones(len(TEXTS)))
        other = base ** (1 + shift)
        idx = []
        for probs in (base, other / other.sum()):
            for row in _route(rng, probs, 8):
                idx.append(len(cols["answer"]))
                for c in COLUMNS:
                    cols[c].append(row.get(c))
        lists.append(idx)
    sizes = np.full(12, 8)
    return Samples(cols, [str(k) for k in range(12)], padded(lists), sizes, sizes, 12, False, (0, 0))


def test_identical_routes_are_called_different_at_most_about_alpha_of_the_time() -> None:
    rng = np.random.default_rng(11)
    results = [run_test(s, features(s), 0.05, 99) for s in (_pair(rng, 0.0) for _ in range(60))]
    ours = sum(r.p_value <= 0.05 for r in results)
    met = sum(r.met_p_value <= 0.05 for r in results)
    # 60 pairs at level 0.05: 3 expected; 9 or more happens with probability below 0.3 %
    assert ours <= 8 and met <= 8


def test_the_same_machinery_finds_a_sharpened_route() -> None:
    rng = np.random.default_rng(12)
    results = [run_test(s, features(s), 0.05, 99) for s in (_pair(rng, 2.0) for _ in range(10))]
    assert sum(r.p_value <= 0.05 for r in results) >= 7


def test_category_counts_give_the_same_sums_as_the_delta_kernel() -> None:
    from analyzer.audit.permutation import _category_sums, _labels, _pair_sums

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, size=(6, 9))
    rows = np.where(np.arange(9)[None, :] < np.array([9, 9, 7, 8, 9, 6])[:, None], 1, -1)
    mask = rows >= 0
    labels = _labels(np.array([4, 5, 3, 4, 2, 3]), mask, 30, rng)
    gram = (codes[:, :, None] == codes[:, None, :]).astype(np.float32)[None]
    onehot = (codes[:, :, None] == np.arange(3)).astype(np.float32)
    for by_gram, by_counts in zip(
        _pair_sums(gram, labels, mask), _category_sums(onehot, labels, mask), strict=True
    ):
        np.testing.assert_allclose(by_gram[0], by_counts, rtol=1e-6)
    assert (labels * mask[:, :, None]).sum(axis=1).tolist() == [[k] * 31 for k in (4, 5, 3, 4, 2, 3)]


def test_permutation_p_values_count_every_column_at_least_as_large() -> None:
    from analyzer.audit.identity import column_p

    values = np.random.default_rng(4).integers(0, 6, size=(3, 5, 40)).astype(np.float64)
    by_counting = (values[..., None, :] >= values[..., :, None]).mean(axis=-1)
    np.testing.assert_allclose(column_p(values), by_counting)


def test_on_a_moderately_sharpened_route_the_combined_test_keeps_mets_power() -> None:
    rng = np.random.default_rng(13)
    results = [run_test(s, features(s), 0.05, 99) for s in (_pair(rng, 0.8) for _ in range(60))]
    ours = sum(r.p_value <= 0.05 for r in results)
    met = sum(r.met_p_value <= 0.05 for r in results)
    assert 5 <= met < 55  # a shift MET finds sometimes, so a loss would show
    assert ours >= met - 1


def test_the_combined_p_value_is_never_above_mets_over_its_weight() -> None:
    from analyzer.audit.identity import LEAD_WEIGHT

    rng = np.random.default_rng(14)
    for shift in (0.0, 0.8, 2.0):
        for s in (_pair(rng, shift) for _ in range(10)):
            out = run_test(s, features(s), 0.05, 99)
            assert out.p_value <= out.met_p_value / LEAD_WEIGHT + 1e-9
