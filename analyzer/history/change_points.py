"""The tests behind a task's label over the runs: one change point, and whether the runs agree at all.

A task's rounds in each run are binary: a success (graded tasks), else the task's usual answer (the
answer most rounds of the whole history gave); an error or a missing answer is neither. Under "nothing
changed" every round of the task has the same chance in every run, so the rounds are exchangeable
across runs and both tests are exact permutation tests, conditional on the task's total:

- `change_p`: the largest two-proportion z over every split into earlier and later runs, its p-value
  from the exact permutation law of the runs' counts (a dynamic programme over the splits, no
  sampling), so testing every split costs nothing in level.
- `homogeneity_p`: the chi-square statistic of the runs' counts, its p-value from 1,999 seeded
  permutations of the rounds (Monte Carlo, (1 + hits) / (1 + draws)).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

PERMUTATIONS = 1999
_TIE = 1e-9


@dataclass(frozen=True)
class Split:
    """The best change point of one task: p-value, the index of the first run after it, the direction."""

    p: float
    after: int
    worse: bool


def _log_factorials(n: int) -> np.ndarray:
    return np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))))


def _z(before_good: np.ndarray, before_n: int, total_good: int, total_n: int) -> np.ndarray:
    """|z| of earlier against later rounds for each possible count of earlier successes."""
    after_n = total_n - before_n
    pooled = total_good / total_n
    scale = math.sqrt(pooled * (1 - pooled) * (1 / before_n + 1 / after_n))
    diff = before_good / before_n - (total_good - before_good) / after_n
    return np.abs(diff) / scale


def _split_stats(good: list[int], n: list[int]) -> tuple[float, int]:
    total_good, total_n = sum(good), sum(n)
    best, where, cum_good, cum_n = -1.0, 1, 0, 0
    for s in range(1, len(n)):
        cum_good += good[s - 1]
        cum_n += n[s - 1]
        z = float(_z(np.array([cum_good]), cum_n, total_good, total_n)[0])
        if z > best + _TIE:
            best, where = z, s
    return best, where


def change_p(good: list[int], n: list[int]) -> Split:
    """The best single change point among runs with rounds (each `n[i] > 0`) and its exact p-value."""
    total_good, total_n = sum(good), sum(n)
    if len(n) < 2 or total_good in (0, total_n):
        return Split(1.0, len(n), False)
    observed, after = _split_stats(good, n)
    log_fact = _log_factorials(total_n)
    states = np.zeros(total_good + 1)
    states[0] = 1.0
    used = 0
    for s in range(len(n) - 1):
        states = _step(states, n[s], used, total_good, total_n, log_fact)
        used += n[s]
        z = _z(np.arange(total_good + 1, dtype=np.float64), used, total_good, total_n)
        states[z >= observed - _TIE] = 0.0
    p = min(1.0, max(0.0, 1.0 - float(states.sum())))
    before = sum(good[:after]) / sum(n[:after])
    later = sum(good[after:]) / sum(n[after:])
    return Split(p, after, later < before)


def _step(
    states: np.ndarray, rounds: int, used: int, total_good: int, total_n: int, log_fact: np.ndarray
) -> np.ndarray:
    """The law of successes so far after one more run of `rounds` drawn without replacement."""
    left_n = total_n - used
    drawn = np.arange(total_good + 1)
    left_good = total_good - drawn
    out = np.zeros_like(states)
    live = states > 0
    for x in range(rounds + 1):
        ok = live & (left_good >= x) & (left_n - left_good >= rounds - x) & (drawn + x <= total_good)
        if not ok.any():
            continue
        k = left_good[ok]
        log_p = (
            log_fact[k]
            - log_fact[x]
            - log_fact[k - x]
            + log_fact[left_n - k]
            - log_fact[rounds - x]
            - log_fact[left_n - k - rounds + x]
            - (log_fact[left_n] - log_fact[rounds] - log_fact[left_n - rounds])
        )
        np.add.at(out, drawn[ok] + x, states[ok] * np.exp(log_p))
    return out


def homogeneity_p(good: list[int], n: list[int], seed_text: str) -> float:
    """Whether the runs share one chance: chi-square over runs, Monte Carlo permutation p-value."""
    total_good, total_n = sum(good), sum(n)
    if len(n) < 2 or total_good in (0, total_n):
        return 1.0
    sizes = np.asarray(n)
    observed = _chi_square(np.asarray(good, dtype=np.float64)[None, :], sizes, total_good / total_n)[0]
    rounds = np.zeros(total_n, dtype=np.int8)
    rounds[:total_good] = 1
    seed = int.from_bytes(hashlib.sha256(seed_text.encode()).digest()[:8], "big")
    draws = np.random.default_rng(seed).permuted(np.tile(rounds, (PERMUTATIONS, 1)), axis=1)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    counts = np.add.reduceat(draws, bounds[:-1], axis=1).astype(np.float64)
    simulated = _chi_square(counts, sizes, total_good / total_n)
    return float((1 + np.sum(simulated >= observed - _TIE)) / (1 + PERMUTATIONS))


def _chi_square(counts: np.ndarray, sizes: np.ndarray, pooled: float) -> np.ndarray:
    expected = sizes * pooled
    return np.sum((counts - expected) ** 2 / (expected * (1 - pooled)), axis=1)
