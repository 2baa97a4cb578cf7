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

from analyzer.errors import RerunLensError
from analyzer.log.model import RunLog
from analyzer.log.table import log_table
from analyzer.log.task_set import pairing, task_set

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

    @property
    def mask(self) -> np.ndarray:
        return self.rows >= 0

    def take(self, rows: np.ndarray, n_ref: np.ndarray, n_cand: np.ndarray) -> Samples:
        """The same pooled columns over other rows (a resample for the power simulation)."""
        ids = self.task_ids[: len(rows)]
        return Samples(self.columns, ids, rows, n_ref, n_cand, len(ids), self.by_id_only, (0, 0))


def _by_task(log: RunLog, shared: frozenset[str]) -> tuple[dict[str, list[int]], dict[str, list[Any]], int]:
    table = log_table(log)
    cols = table.results
    by_task: dict[str, list[int]] = {}
    errors = 0
    for i, (task, status) in enumerate(zip(cols["task_id"], cols["status"], strict=True)):
        tid = str(task)
        if tid not in shared:
            continue
        if status != "ok":
            errors += 1
            continue
        by_task.setdefault(tid, []).append(i)
    return by_task, {c: list(cols[c]) for c in COLUMNS}, errors


def paired_samples(reference: RunLog, candidate: RunLog) -> Samples:
    """The two logs' samples over the prompts they share.

    Raises:
        RerunLensError: the logs share no prompt, or shared task ids carry different prompts.
    """
    pair = pairing(task_set(reference), task_set(candidate))
    if not pair.comparable:
        raise RerunLensError(f"audit: the two logs are not runs of the same prompts: {pair.reason}")
    ref_rows, ref_cols, ref_err = _by_task(reference, pair.shared)
    cand_rows, cand_cols, cand_err = _by_task(candidate, pair.shared)
    offset = len(ref_cols["answer"])
    columns = {c: ref_cols[c] + cand_cols[c] for c in COLUMNS}
    tested = sorted(
        t
        for t in pair.shared
        if len(ref_rows.get(t, ())) >= MIN_PER_ROUTE and len(cand_rows.get(t, ())) >= MIN_PER_ROUTE
    )
    lists = [ref_rows[t] + [offset + i for i in cand_rows[t]] for t in tested]
    return Samples(
        columns,
        tested,
        padded(lists),
        np.array([len(ref_rows[t]) for t in tested], dtype=np.int64),
        np.array([len(cand_rows[t]) for t in tested], dtype=np.int64),
        len(pair.shared),
        pair.by_id_only,
        (ref_err, cand_err),
    )


def padded(lists: Sequence[Sequence[int]]) -> np.ndarray:
    """Index lists as one (len, longest) array padded with -1."""
    width = max((len(x) for x in lists), default=0)
    out = np.full((len(lists), width), -1, dtype=np.int64)
    for i, x in enumerate(lists):
        out[i, : len(x)] = x
    return out
