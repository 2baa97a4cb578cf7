"""The statistics behind every verdict and interval.

The tools, each exact or seeded so the same log always gives the same figures:

- `mcnemar_exact(b, c)`: paired consistent-or-not per task in two experiments. Under "no difference"
  each of the b + c discordant tasks flips either way with probability 1/2; the two-sided p-value is
  min(1, 2 x P(Binomial(b + c, 1/2) <= min(b, c))).
- `route_alignment_p(routes, answers)`: an exact permutation test of how well a task's answers align
  with its routes. Statistic S = the number of rounds whose answer is their route's most common answer
  (S = n when every route gives one answer). Under "the route does not matter" every distinct
  relabelling of the answers over the rounds is equally likely; p = P(S_perm >= S_observed). The
  distinct relabellings are counted exactly, grouped by the routes x answers table they produce
  (a table with cells n_ra has prod_r m_r! / prod n_ra! relabellings, m_r the route's rounds); when
  every route gave one answer (S = n) the pure relabellings are counted directly. Margins with more
  than 200,000 possible tables get a seeded Monte Carlo estimate (20,000 draws) instead.
- `chance_agreement(counts, k)`: the probability that k new rounds all give one answer if nothing
  changed, from the parent's answer counts. The shares are uncertain with five or so answers, so they
  get a Jeffreys prior Dirichlet(1/2, ..., 1/2) over the answers seen and the posterior predictive is
  used: P(all k agree) = sum_i E[p_i^k], E[p_i^k] = prod_{j<k} (a_i + j) / (A + j) with
  a_i = n_i + 1/2, A = sum a_i. Why Jeffreys: it is the reference prior for multinomial shares and
  pulls them less towards equal shares than the uniform prior Dirichlet(1, ..., 1) does; equal shares
  make agreement look least likely, so a stronger pull would call "route" on weaker evidence.
  With one answer seen the chance is 1: agreement then says nothing.
- `rounds_needed(routes, answers)`: the smallest k at which k agreeing rounds on a pinned route would
  be significant at 5 % by the same permutation test over the parent's rounds and the new ones, capped.
- `mcnemar_tasks_needed(b, c, n)`: how many paired tasks would resolve a difference of the size seen.
- `bootstrap_means(values)`: a seeded, vectorised percentile bootstrap over tasks (tasks are the unit
  that varies) for figures that are means of per-task values: answer gap, consistency rate, Mean@n,
  Pass^k and the outcome gap are all such means.
- `wilson_interval(successes, n)`: the Wilson score interval of a share of n tasks. Unlike the
  bootstrap it does not collapse to a point at 0 of n or n of n (0 of 5 gives 0 to 0.434).
- `bounded_mean_intervals(rows, counts, upper)`: the interval of a mean of per-task values known to lie
  in [0, upper]. A column whose values are all 0 or upper is a share: its Wilson interval. Otherwise
  the wider bounds of the bootstrap interval and the Wilson interval of the mean with n = tasks, which
  is conservative because a value in [0, 1] with mean p has variance at most p(1 - p). The bootstrap
  alone gives a point when every task has the same value, which states a certainty few tasks do not
  support; where it is already the wider one it is kept.
- `paired_difference_ci(first, second, upper=...)`: the interval of a paired difference of means over
  tasks: the wider bounds of the bootstrap of the differences and Newcombe's hybrid score interval
  (the MOVER of the two Wilson intervals with the per-task correlation).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from functools import cache, lru_cache
from statistics import NormalDist

import numpy as np

ALPHA = 0.05
"""Significance level of every verdict."""
FDR_Q = 0.05
"""False discovery rate the log attribution's route calls are held to (Benjamini-Hochberg over tasks)."""
RERUN_FDR_Q = 0.02
"""False discovery rate a re-run's route calls are held to. Stricter: it is the verdict a team acts
on, and where most tasks really are route-caused, Benjamini-Hochberg lets a pure-noise task through
with a chance close to q itself; 0.02 keeps that under 2 %."""
JEFFREYS = 0.5
"""Dirichlet concentration per answer seen (Jeffreys prior)."""
Z95 = 1.959963984540054
"""Normal quantile of a two-sided 95 % interval."""
ROUNDS_CAP = 30
"""`rounds_needed` never asks for more rounds than this."""
BOOTSTRAP_SAMPLES = 2000
"""Bootstrap resamples per interval."""
BOOTSTRAP_SEED = 20261130
"""Fixed seed: the same log always gets the same intervals."""
_CHUNK_CELLS = 4_000_000
"""Bootstrap draws are made in blocks of at most this many task indices (bounds memory at 100k results)."""
_FEW_DISTINCT = 256
"""Up to this many distinct per-task rows, the bootstrap draws multinomial counts of each row."""
_MAX_TABLES = 200_000
"""Above this many possible tables the permutation test uses a seeded Monte Carlo estimate instead."""


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value from the two discordant counts.

    Args:
        b: Pairs that are "yes" in the first experiment and "no" in the second.
        c: Pairs that are "no" in the first and "yes" in the second.
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts must not be negative")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2.0 * tail / 2.0**n)


def alignment_statistic(table: Sequence[Sequence[int]]) -> int:
    """S: rounds whose answer is their route's most common one (rows are routes, columns answers)."""
    return sum(max(row) for row in table if len(row))


def contingency(routes: Sequence[Hashable], answers: Sequence[Hashable]) -> list[list[int]]:
    """The routes x answers count table of one task's rounds (routes and answers in first-seen order)."""
    if len(routes) != len(answers):
        raise ValueError("routes and answers must have one entry per round")
    route_ids = list(dict.fromkeys(routes))
    answer_ids = list(dict.fromkeys(answers))
    counts = Counter(zip(routes, answers, strict=True))
    return [[counts[(r, a)] for a in answer_ids] for r in route_ids]


def route_alignment_p(routes: Sequence[Hashable], answers: Sequence[Hashable]) -> float:
    """Exact permutation p-value that answers align with routes as well as observed, by chance.

    Args:
        routes: The route of each round (any hashable label).
        answers: The answer (cluster) of each round.
    """
    table = contingency(routes, answers)
    rows = tuple(sum(r) for r in table)
    cols = tuple(sum(r[j] for r in table) for j in range(len(table[0]))) if table else ()
    return _alignment_p(tuple(sorted(rows)), tuple(sorted(cols)), alignment_statistic(table))


def reaches(p_value: float, level: float) -> bool:
    """p <= level, with room for rounding (a p-value that is the level exactly reaches it)."""
    return p_value <= level * (1 + 1e-9)


def association_statistic(table: Sequence[Sequence[int]]) -> float:
    """T = sum of n ln n over the cells: with the margins fixed, the likelihood-ratio G statistic of
    independence is 2 (T - sum_r m_r ln m_r - sum_a n_a ln n_a + n ln n), so T orders tables as G does."""
    return float(sum(x * math.log(x) for row in table for x in row if x > 1))


def association_p(routes: Sequence[Hashable], answers: Sequence[Hashable]) -> float:
    """Exact permutation p-value of the likelihood-ratio (G) test of routes x answers independence.

    Under "the route does not matter" every relabelling of the answers over the rounds is equally
    likely; p = P(G_perm >= G_observed), counted exactly over the tables with the observed margins
    (a seeded Monte Carlo estimate beyond 200,000 tables). Unlike the alignment statistic it sees a
    route that shifts the answers' shares without changing the most common one (a retried round's
    other answers, a pinned re-run that agrees where the parent did not).

    Args:
        routes: The route (or any factor level) of each round.
        answers: The answer (cluster) of each round.
    """
    table = contingency(routes, answers)
    rows = tuple(sorted(sum(r) for r in table))
    cols = tuple(sorted(sum(r[j] for r in table) for j in range(len(table[0])))) if table else ()
    return association_p_from_margins(rows, cols, association_statistic(table))


def association_p_from_margins(rows: tuple[int, ...], cols: tuple[int, ...], statistic: float) -> float:
    """`association_p` from the table's sorted margins and its statistic T (`association_statistic`)."""
    if len(rows) <= 1 or len(cols) <= 1:
        return 1.0
    values, tails = _association_null(rows, cols)
    i = int(np.searchsorted(values, statistic - 1e-9, side="left"))
    return float(tails[i]) if i < len(tails) else 0.0


@lru_cache(maxsize=8192)
def _association_null(rows: tuple[int, ...], cols: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The null distribution of T for these margins: its distinct values ascending and P(T >= value)."""
    n = sum(rows)
    if math.prod(math.comb(m + len(cols) - 1, len(cols) - 1) for m in rows) > _MAX_TABLES:
        stats = _association_monte_carlo(rows, cols)
        values, counts = np.unique(np.round(stats, 9), return_counts=True)
        tail = (1 + np.cumsum(counts[::-1])[::-1]) / (1 + len(stats))
        return values, tail
    total = math.factorial(n) // math.prod(math.factorial(c) for c in cols)
    weight: dict[float, int] = {}
    for table, ways in _tables(rows, cols):
        key = round(association_statistic(table), 9)
        weight[key] = weight.get(key, 0) + ways
    values = np.array(sorted(weight), dtype=np.float64)
    counts = np.array([weight[v] for v in sorted(weight)], dtype=object)
    tail = np.array([float(x) / total for x in np.cumsum(counts[::-1])[::-1]], dtype=np.float64)
    return values, tail


def _association_monte_carlo(rows: tuple[int, ...], cols: tuple[int, ...]) -> np.ndarray:
    """T of 20,000 seeded relabellings (for margins too large to enumerate)."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    labels = np.repeat(np.arange(len(cols)), cols)
    route_of = np.repeat(np.arange(len(rows)), rows)
    draws, block, out = 20_000, 1_000, []
    for _ in range(draws // block):
        perms = rng.permuted(np.tile(labels, (block, 1)), axis=1)
        cell = (np.arange(block)[:, None] * len(rows) + route_of) * len(cols) + perms
        counts = np.bincount(cell.ravel(), minlength=block * len(rows) * len(cols)).astype(np.float64)
        terms = np.where(counts > 1, counts * np.log(np.maximum(counts, 1.0)), 0.0)
        out.append(terms.reshape(block, -1).sum(axis=1))
    return np.concatenate(out)


def alignment_p_from_margins(rows: tuple[int, ...], cols: tuple[int, ...], observed: int) -> float:
    """`route_alignment_p` from the table's margins (rounds per route, per answer) and its S."""
    return _alignment_p(tuple(sorted(rows)), tuple(sorted(cols)), observed)


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q-values), in the input order.

    q_(i) = min over j >= i of p_(j) m / j, capped at 1, for the p-values sorted ascending; calling
    every test with q <= Q discoveries keeps the expected share of false ones at most Q (for
    independent or positively dependent tests).
    """
    m = len(p_values)
    if m == 0:
        return []
    p = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    out = np.empty(m, dtype=np.float64)
    out[order] = adjusted
    return out.tolist()


@lru_cache(maxsize=4096)
def _alignment_p(rows: tuple[int, ...], cols: tuple[int, ...], observed: int) -> float:
    """P(S >= observed) over all relabellings; depends only on the margins, hence cached."""
    if len(rows) <= 1 or len(cols) <= 1:
        return 1.0
    n = sum(rows)
    total = math.factorial(n) // math.prod(math.factorial(c) for c in cols)
    if observed == n:  # every route gave one answer: count the pure relabellings directly
        return _pure_assignments(rows, cols) / total
    # an upper bound on the tables: each route's row is one of C(m_r + answers - 1, answers - 1) splits
    if math.prod(math.comb(m + len(cols) - 1, len(cols) - 1) for m in rows) > _MAX_TABLES:
        return _alignment_p_monte_carlo(rows, cols, observed)
    hits = 0
    for table, ways in _tables(rows, cols):
        if alignment_statistic(table) >= observed:
            hits += ways
    return hits / total


def _pure_assignments(rows: tuple[int, ...], cols: tuple[int, ...]) -> int:
    """Relabellings in which every route gives one answer: ways to give each route an answer so that
    the routes of each answer hold exactly its count of rounds (one relabelling each)."""

    @cache
    def ways(i: int, left: tuple[int, ...]) -> int:
        if i == len(rows):
            return int(not any(left))
        total = 0
        for j, room in enumerate(left):
            if room >= rows[i]:
                total += ways(i + 1, (*left[:j], room - rows[i], *left[j + 1 :]))
        return total

    return ways(0, cols)


def _tables(rows: tuple[int, ...], cols: tuple[int, ...]) -> Iterator[tuple[list[list[int]], int]]:
    """Every table with these margins and how many relabellings give it: prod_r m_r! / prod n_ra!."""

    def fill(i: int, left: tuple[int, ...]) -> Iterator[tuple[list[list[int]], int]]:
        if i == len(rows):
            if not any(left):
                yield [], 1
            return
        for row in _compositions(rows[i], left):
            ways_row = math.factorial(rows[i]) // math.prod(math.factorial(x) for x in row)
            rest = tuple(lft - x for lft, x in zip(left, row, strict=True))
            for tail, ways in fill(i + 1, rest):
                yield [list(row), *tail], ways_row * ways

    yield from fill(0, cols)


def _compositions(total: int, caps: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every way to split `total` into len(caps) parts with part j <= caps[j]."""
    if len(caps) == 1:
        if total <= caps[0]:
            yield (total,)
        return
    room = sum(caps[1:])
    for first in range(max(0, total - room), min(total, caps[0]) + 1):
        for rest in _compositions(total - first, caps[1:]):
            yield (first, *rest)


def _alignment_p_monte_carlo(rows: tuple[int, ...], cols: tuple[int, ...], observed: int) -> float:
    """Seeded estimate (1 + hits) / (1 + draws) for margins too large to enumerate."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    labels = np.repeat(np.arange(len(cols)), cols)
    route_of = np.repeat(np.arange(len(rows)), rows)
    draws, block, hits = 20_000, 1_000, 0
    for _ in range(draws // block):
        perms = rng.permuted(np.tile(labels, (block, 1)), axis=1)
        cell = (np.arange(block)[:, None] * len(rows) + route_of) * len(cols) + perms
        counts = np.bincount(cell.ravel(), minlength=block * len(rows) * len(cols))
        stat = counts.reshape(block, len(rows), len(cols)).max(axis=2).sum(axis=1)
        hits += int((stat >= observed).sum())
    return (1 + hits) / (1 + draws)


def chance_agreement(counts: Sequence[int], k: int, prior: float = JEFFREYS) -> float:
    """P(k new rounds all give the same answer) under the Dirichlet posterior predictive.

    Args:
        counts: How often the parent gave each distinct answer (zeros are ignored).
        k: Rounds of the new run (k <= 1 always agrees).
        prior: Dirichlet concentration per answer seen.
    """
    seen = [c for c in counts if c > 0]
    if len(seen) <= 1 or k <= 1:
        return 1.0
    a = np.asarray(seen, dtype=np.float64) + prior
    steps = np.arange(k, dtype=np.float64)
    # E[p_i^k] = prod_j (a_i + j) / (A + j), in logs to stay finite for large k
    log_moment = np.log(a[:, None] + steps).sum(axis=1) - np.log(a.sum() + steps).sum()
    return float(min(1.0, np.exp(log_moment).sum()))


def rounds_needed(
    routes: Sequence[Hashable | None],
    answers: Sequence[Hashable],
    alpha: float = ALPHA,
    cap: int = ROUNDS_CAP,
) -> int | None:
    """Smallest k (2..cap) at which k agreeing rounds on a pinned route would be significant at `alpha`.

    At least 2: agreement needs two answers, whatever one round would already show.

    "Significant" is `route_alignment_p` over the parent's rounds and the k new ones together, the
    new rounds on a route of their own giving the parent's most common answer (the least telling
    answer they could give). A round with no recorded route counts as a route of its own.
    None when even `cap` rounds would not do (or the parent gave one answer: nothing to explain).

    Args:
        routes: The parent's route per answered round (None where not recorded).
        answers: The parent's answer per round.
        alpha: Significance level.
        cap: Largest k considered.
    """
    if len(set(answers)) < 2:
        return None
    labels = [r if r is not None else ("unrecorded", i) for i, r in enumerate(routes)]
    majority = Counter(answers).most_common(1)[0][0]
    pinned = ("pinned",)
    for k in range(2, cap + 1):
        if route_alignment_p([*labels, *[pinned] * k], [*answers, *[majority] * k]) <= alpha:
            return k
    return None


def bootstrap_means(
    values: np.ndarray, samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED, level: float = 0.95
) -> np.ndarray:
    """Percentile bootstrap intervals of column means, resampling rows (tasks) with replacement.

    Every column is resampled with the same task draws, so figures computed together stay paired.

    Args:
        values: Shape (tasks,) or (tasks, figures): one row per task.
        samples: Resamples.
        seed: Generator seed (same seed and values, same interval).
        level: Coverage of the interval.

    Returns:
        Shape (figures, 2): [low, high] per column; NaN when there are no tasks.
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[:, None] if x.ndim == 1 else x
    n, m = x.shape
    if n == 0:
        return np.full((m, 2), np.nan)
    rows, counts = np.unique(x, axis=0, return_counts=True)
    if len(rows) <= _FEW_DISTINCT:
        return bootstrap_grouped_means(rows, counts, samples=samples, seed=seed, level=level)
    rng = np.random.default_rng(seed)
    means = np.empty((samples, m))
    block = max(1, _CHUNK_CELLS // n)
    for start in range(0, samples, block):
        stop = min(samples, start + block)
        means[start:stop] = x[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    return _percentiles(means, level)


def bootstrap_grouped_means(
    rows: np.ndarray,
    counts: np.ndarray,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> np.ndarray:
    """`bootstrap_means` for tasks given as distinct rows and how many tasks have each row.

    Resampling n tasks with replacement draws each distinct row a Multinomial(n, counts / n) number
    of times: the same distribution as picking tasks one by one, at a fraction of the cost (per-task
    figures take few values: consistent or not, c successes of n).

    Args:
        rows: Shape (distinct, figures).
        counts: Tasks per row.
        samples, seed, level: As for `bootstrap_means`.
    """
    rows = np.asarray(rows, dtype=np.float64).reshape(len(counts), -1)
    n = int(np.sum(counts))
    if n == 0:
        return np.full((rows.shape[1], 2), np.nan)
    weights = np.random.default_rng(seed).multinomial(n, np.asarray(counts) / n, size=samples)
    return _percentiles(weights @ rows / n, level)


def _percentiles(means: np.ndarray, level: float) -> np.ndarray:
    tail = (1.0 - level) / 2.0 * 100.0
    return np.percentile(means, [tail, 100.0 - tail], axis=0).T


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of the share successes / n, clipped to [0, 1]; (nan, nan) when n is 0.

    `successes` may be fractional: the mean of n values in [0, 1] times n gives the Wilson interval
    of that mean, conservative for such values (their variance is at most p(1 - p)).

    Args:
        successes: Tasks counted (0 <= successes <= n).
        n: Tasks measured.
        z: Normal quantile of the two-sided level (`Z95` for 95 %).
    """
    if n <= 0:
        return float("nan"), float("nan")
    p = min(1.0, max(0.0, successes / n))
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def exact_share_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson interval of the share successes / n; (nan, nan) when n is 0.

    The bounds invert the two one-sided binomial tests: low solves P(Binomial(n, low) >= k) = a / 2
    and high solves P(Binomial(n, high) <= k) = a / 2 (low = 0 at k = 0, high = 1 at k = n). Its
    coverage is at least `level` for every true share and every n (the Wilson interval's drops to
    84-86 % near 0 or 1 with 30 tasks or fewer); in closed form 0 of n gives high = 1 - (a / 2)^(1/n).

    Args:
        successes: Tasks counted (an integer, 0 <= successes <= n).
        n: Tasks measured.
        level: Two-sided coverage.
    """
    if n <= 0:
        return float("nan"), float("nan")
    k = int(round(min(max(successes, 0), n)))
    tail = (1.0 - level) / 2.0
    low = 0.0 if k == 0 else _bisect(lambda p: _binomial_upper_tail(n, k, p) - tail, increasing=True)
    high = 1.0 if k == n else _bisect(lambda p: tail - _binomial_cdf(n, k, p), increasing=True)
    return low, high


def _binomial_cdf(n: int, k: int, p: float) -> float:
    """P(Binomial(n, p) <= k)."""
    return float(np.exp(_log_pmf_any(n, p)[: k + 1]).sum())


def _binomial_upper_tail(n: int, k: int, p: float) -> float:
    """P(Binomial(n, p) >= k)."""
    return float(np.exp(_log_pmf_any(n, p)[k:]).sum())


def _log_pmf_any(n: int, p: float) -> np.ndarray:
    k = np.arange(n + 1, dtype=np.float64)
    log_fact = _log_factorials(n)
    return log_fact[n] - log_fact - log_fact[::-1] + k * math.log(p) + (n - k) * math.log1p(-p)


@lru_cache(maxsize=64)
def _log_factorials(n: int) -> np.ndarray:
    """log k! for k = 0..n."""
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))])


def _bisect(f: Callable[[float], float], increasing: bool) -> float:
    """The root in (0, 1) of a monotone f, to 1e-12."""
    lo, hi = 1e-15, 1.0 - 1e-15
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if (f(mid) < 0) == increasing:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def bounded_mean_intervals(
    rows: np.ndarray,
    counts: np.ndarray,
    upper: np.ndarray | float = 1.0,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> np.ndarray:
    """Intervals of column means of per-task values in [0, upper] that never claim more than n tasks allow.

    Per column: all values 0 or upper (a share of tasks) -> the exact (Clopper-Pearson) interval of
    the share, scaled by upper; otherwise the wider bounds of the seeded bootstrap interval and the
    Wilson interval of
    the mean (mean / upper with n = tasks), scaled by upper. A column with upper 0 is identically 0.

    Args:
        rows: Shape (distinct, figures): the distinct per-task rows.
        counts: Tasks per row.
        upper: Largest value a task can take, per column (or one for all columns).
        samples, seed, level: As for `bootstrap_means`.

    Returns:
        Shape (figures, 2): [low, high] per column; NaN when there are no tasks.
    """
    rows = np.asarray(rows, dtype=np.float64).reshape(len(counts), -1)
    counts = np.asarray(counts)
    n = int(counts.sum())
    boot = bootstrap_grouped_means(rows, counts, samples=samples, seed=seed, level=level)
    if n == 0:
        return boot
    top = np.broadcast_to(np.asarray(upper, dtype=np.float64), (rows.shape[1],))
    z = NormalDist().inv_cdf(1.0 - (1.0 - level) / 2.0)
    out = np.zeros((rows.shape[1], 2))
    for j in np.flatnonzero(top > 0):
        scaled = rows[counts > 0, j] / top[j]
        if np.all(np.isclose(scaled, 0.0, atol=1e-12) | np.isclose(scaled, 1.0, atol=1e-12)):
            low, high = exact_share_interval(int(round(float(counts[counts > 0] @ scaled))), n, level)
        else:
            low, high = wilson_interval(float(counts[counts > 0] @ scaled), n, z)
            low, high = min(low, boot[j, 0] / top[j]), max(high, boot[j, 1] / top[j])
        out[j] = low * top[j], high * top[j]
    return out


def paired_difference_ci(
    first: np.ndarray,
    second: np.ndarray,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
    upper: float | None = None,
) -> tuple[float, float]:
    """95 % interval of mean(second - first) over paired tasks; (nan, nan) without tasks.

    The seeded bootstrap of the per-task differences. With `upper` (every value lies in [0, upper])
    the wider bounds of it and Newcombe's hybrid score interval for paired data: the MOVER of the two
    means' Wilson intervals (`wilson_interval` of the mean, conservative for bounded values) with the
    tasks' correlation r, low = D - sqrt((p2 - l2)^2 - 2r (p2 - l2)(u1 - p1) + (u1 - p1)^2) and high
    likewise (Newcombe 1998, method 10; r = 0 when a side has no spread). The bootstrap alone is a
    point when no task differs, and stops at 0 when all the differing tasks go one way.

    Args:
        first: Per-task values of the first group.
        second: The same tasks' values in the second group.
        samples, seed: As for `bootstrap_means`.
        upper: Largest value a task can take (None: the bootstrap alone).
    """
    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    low, high = (float(x) for x in bootstrap_means(b - a, samples=samples, seed=seed)[0])
    if upper is None or upper <= 0 or len(a) == 0:
        return low, high
    score_low, score_high = _paired_score_interval(a / upper, b / upper)
    return min(low, score_low * upper), max(high, score_high * upper)


def _paired_score_interval(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Newcombe's hybrid score interval of mean(b - a) for paired values in [0, 1]."""
    n = len(a)
    p1, p2 = float(a.mean()), float(b.mean())
    l1, u1 = wilson_interval(p1 * n, n)
    l2, u2 = wilson_interval(p2 * n, n)
    spread = float(a.std() * b.std())
    r = float(np.mean((a - p1) * (b - p2)) / spread) if spread > 0 else 0.0
    d = p2 - p1
    below = math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * r * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    above = math.sqrt(max(0.0, (u2 - p2) ** 2 - 2 * r * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return max(-1.0, d - below), min(1.0, d + above)


def fisher_exact(a: int, b: int, c: int, d: int) -> float:
    """Two-sided exact Fisher test of the 2x2 table [[a, b], [c, d]]: the probability, with the margins
    fixed, of every table no more likely than the observed one (hypergeometric, in logs)."""
    row, col, n = a + b, a + c, a + b + c + d
    if n == 0 or row in (0, n) or col in (0, n):
        return 1.0
    low, high = max(0, col - (n - row)), min(row, col)
    x = np.arange(low, high + 1)
    f = _log_factorials(n)
    log_p = (
        f[row]
        + f[n - row]
        + f[col]
        + f[n - col]
        - f[n]
        - f[x]
        - f[row - x]
        - f[col - x]
        - f[n - row - col + x]
    )
    observed = log_p[a - low]
    return float(min(1.0, np.exp(log_p[log_p <= observed + 1e-7]).sum()))


TASKS_CAP = 5000
"""`mcnemar_tasks_needed` computes exact power up to this many tasks; beyond it says "more"."""


def mcnemar_tasks_needed(b: int, c: int, n: int, alpha: float = ALPHA, power: float = 0.8) -> int | None:
    """The smallest number of paired tasks at which the exact McNemar test reaches `alpha` with
    probability `power`, for a difference like the one observed.

    The alternative is the observed one: each task is discordant with probability p_d = (b + c) / n,
    and a discordant task flips the majority way with probability pi = max(b, c) / (b + c). With N
    tasks, D ~ Binomial(N, p_d) are discordant and the larger side B ~ Binomial(D, pi); the test
    rejects when `mcnemar_exact(B, D - B)` <= alpha, and power(N) = sum_D P(D) P(reject | D), exact.
    When every discordant task flips one way (pi = 1) the test needs at least 6 discordant tasks
    (2 / 2^6 = 0.031; 5 give 0.0625), so N is the smallest with P(D >= 6) >= power.
    None when there is no difference (b = c) or when more than `TASKS_CAP` tasks would be needed.

    Args:
        b: Tasks that flip one way.
        c: Tasks that flip the other way.
        n: Paired tasks observed.
        alpha: The test's level.
        power: The chance of reaching it.
    """
    if n <= 0 or b == c:
        return None
    p_d, pi = (b + c) / n, max(b, c) / (b + c)
    low, high = 2, 8
    while _mcnemar_power(high, p_d, reject := _reject_given_discordant(pi, alpha, high)) < power:
        if high >= TASKS_CAP:
            return None
        low, high = high, min(TASKS_CAP, high * 2)
    while low < high:  # power rises with N (up to the test's discreteness): the first N that reaches it
        mid = (low + high) // 2
        if _mcnemar_power(mid, p_d, reject) >= power:
            high = mid
        else:
            low = mid + 1
    return high


def _binomial_log_pmf(n: int, p: float) -> np.ndarray:
    k = np.arange(n + 1, dtype=np.float64)
    log_comb = np.array([math.lgamma(n + 1)]) - _LGAMMA[: n + 1] - _LGAMMA[n::-1][: n + 1]
    with np.errstate(divide="ignore"):
        return (
            log_comb + k * np.log(p) + (n - k) * np.log1p(-p)
            if 0 < p < 1
            else np.where(k == (n if p >= 1 else 0), 0.0, -np.inf)
        )


def _mcnemar_power(tasks: int, p_d: float, reject: np.ndarray) -> float:
    return float(np.exp(_binomial_log_pmf(tasks, p_d)) @ reject[: tasks + 1])


@lru_cache(maxsize=256)
def _reject_given_discordant(pi: float, alpha: float, cap: int) -> np.ndarray:
    """P(the exact McNemar test rejects | D discordant), D = 0..cap, each flipping the larger way w.p. pi."""
    out = np.zeros(cap + 1, dtype=np.float64)
    for d in range(6, cap + 1):
        m = _mcnemar_critical(d, alpha)
        if m < 0:
            continue
        pmf = np.exp(_binomial_log_pmf(d, pi))
        out[d] = float(pmf[: m + 1].sum() + pmf[d - m :].sum())
    return out


@cache
def _mcnemar_critical(d: int, alpha: float) -> int:
    """The largest m with mcnemar_exact(m, d - m) <= alpha (-1 when none)."""
    tail = 2.0 * np.cumsum(np.exp(_binomial_log_pmf(d, 0.5)))
    return int(np.searchsorted(tail, alpha * (1 + 1e-12), side="right")) - 1


_LGAMMA = np.array([math.lgamma(k + 1) for k in range(TASKS_CAP + 2)], dtype=np.float64)
