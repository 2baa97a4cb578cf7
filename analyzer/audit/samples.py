"""Two logs of the same prompts as one pooled sample table: tasks are prompts, rounds are samples.

Each paired prompt keeps its reference samples first, then its candidate samples, in one row of a
padded index array (`rows`), so the observed route labels are "position < n_ref" and a permutation
of labels within a prompt is a permutation of positions. Only answered results (`status` ok) are
samples; errors are counted apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analyzer.errors import RerunLensError
from analyzer.log.model import RunLog
from analyzer.log.table import log_table
from analyzer.log.task_set import pairing, task_ids, task_set

MIN_PER_ROUTE = 2
"""Samples a prompt needs on each route to enter the test (an unbiased MMD needs two)."""

COLUMNS = (
    "answer",
    "completion_tokens",
    "prompt_tokens",
    "finish_reason",
    "served_model",
    "system_fingerprint",
)
"""Result columns the audit reads for each sample."""


@dataclass(frozen=True)
class Samples:
    """The pooled samples of two routes over their shared prompts."""

    columns: dict[str, list[Any]]
    """Pooled result columns (`COLUMNS`), reference results first, then candidate results."""
    task_ids: list[str]
    """The prompts tested (those with `MIN_PER_ROUTE` samples on each route), one per row of `rows`."""
    rows: np.ndarray
    """(prompts, width) indices into `columns`, reference samples first, padded with -1."""
    n_ref: np.ndarray
    """Reference samples per prompt."""
    n_cand: np.ndarray
    """Candidate samples per prompt."""
    shared_prompts: int
    """Prompts both logs ran (paired by `log.task_set`), tested or not."""
    by_id_only: bool
    """Whether the prompts were paired by task id alone (a log does not record its prompts)."""
    errors: tuple[int, int]
    """Results that produced no answer, per route."""

    def take(self, rows: np.ndarray, n_ref: np.ndarray, n_cand: np.ndarray) -> Samples:
        """The same pooled columns over other rows (a resample for the power simulation)."""
        ids = self.task_ids[: len(rows)]
        return Samples(self.columns, ids, rows, n_ref, n_cand, len(ids), self.by_id_only, (0, 0))


@dataclass(frozen=True)
class _Groups:
    """One log's answered results of the shared prompts, grouped by prompt."""

    names: np.ndarray
    starts: np.ndarray
    counts: np.ndarray
    order: np.ndarray
    """Row numbers, prompt by prompt (file order within a prompt)."""
    columns: dict[str, list[Any]]
    errors: int


def completion_texts(answers: Sequence[Any], actions: Sequence[Any]) -> list[Any]:
    """Each result's completion as the audit reads it: its answer, or, when it answered with tool
    calls and no text, its calls (`actions`: each call's name and canonical arguments), so a route that
    changes the calls it makes differs in wording and opening like one that changes its text."""
    pairs = zip(answers, actions, strict=True)
    return [a if (isinstance(a, str) and a) or c is None else c for a, c in pairs]


def _groups(log: RunLog, shared: frozenset[str]) -> _Groups:
    cols = log_table(log).results
    ids = np.array(task_ids(log), dtype=object)
    in_shared = np.fromiter((t in shared for t in ids), dtype=bool, count=len(ids))
    ok = np.fromiter((s == "ok" for s in cols["status"]), dtype=bool, count=len(ids))
    keep = np.nonzero(in_shared & ok)[0]
    codes, distinct = pd.factorize(ids[keep])
    names = np.asarray(distinct, dtype=object)
    order = keep[np.argsort(codes, kind="stable")]
    counts = np.bincount(codes, minlength=len(names))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    columns = {c: list(cols[c]) for c in COLUMNS}
    columns["answer"] = completion_texts(cols["answer"], cols["actions"])
    return _Groups(names, starts, counts, order, columns, int((in_shared & ~ok).sum()))


def _place(out: np.ndarray, g: _Groups, target: np.ndarray, first: np.ndarray, offset: int) -> None:
    """Write each kept row of `g` into its prompt's row of `out`, from column `first` of that prompt."""
    group = np.repeat(np.arange(len(g.names)), g.counts)
    within = np.arange(len(g.order)) - g.starts[group]
    rows = target[group]
    keep = rows >= 0
    out[rows[keep], first[rows[keep]] + within[keep]] = g.order[keep] + offset


def paired_samples(reference: RunLog, candidate: RunLog) -> Samples:
    """The two logs' samples over the prompts they share.

    Raises:
        RerunLensError: the logs share no prompt, or shared task ids carry different prompts.
    """
    pair = pairing(task_set(reference), task_set(candidate))
    if not pair.comparable:
        raise RerunLensError(f"audit: the two logs are not runs of the same prompts: {pair.reason}")
    ref, cand = _groups(reference, pair.shared), _groups(candidate, pair.shared)
    ref_count = dict(zip(ref.names.tolist(), ref.counts.tolist(), strict=True))
    cand_count = dict(zip(cand.names.tolist(), cand.counts.tolist(), strict=True))
    tested = sorted(
        t
        for t in pair.shared
        if ref_count.get(t, 0) >= MIN_PER_ROUTE and cand_count.get(t, 0) >= MIN_PER_ROUTE
    )
    position = {t: i for i, t in enumerate(tested)}
    n_ref = np.array([ref_count[t] for t in tested], dtype=np.int64)
    n_cand = np.array([cand_count[t] for t in tested], dtype=np.int64)
    rows = np.full((len(tested), int((n_ref + n_cand).max(initial=0))), -1, dtype=np.int64)
    offset = len(ref.columns["answer"])
    _place(
        rows, ref, np.array([position.get(t, -1) for t in ref.names], dtype=np.int64), np.zeros_like(n_ref), 0
    )
    _place(rows, cand, np.array([position.get(t, -1) for t in cand.names], dtype=np.int64), n_ref, offset)
    return Samples(
        {c: ref.columns[c] + cand.columns[c] for c in COLUMNS},
        tested,
        rows,
        n_ref,
        n_cand,
        len(pair.shared),
        pair.by_id_only,
        (ref.errors, cand.errors),
    )


def padded(lists: Sequence[Sequence[int]]) -> np.ndarray:
    """Index lists as one (len, longest) array padded with -1."""
    width = max((len(x) for x in lists), default=0)
    out = np.full((len(lists), width), -1, dtype=np.int64)
    for i, x in enumerate(lists):
        out[i, : len(x)] = x
    return out
