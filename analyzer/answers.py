"""Answer keys: what counts as "the same answer" when results are grouped into clusters.

- `exact`: the answer with surrounding white space stripped.
- `normalized`: Unicode NFKC, case-folded, inner white space collapsed to one space, trailing
  punctuation (and white space around it) dropped. An answer that is nothing but punctuation keeps
  it, so "?" and "..." stay apart.
- `fuzzy`: normalized answers of one task joined when their rapidfuzz `ratio` (0..100) is at least
  the threshold. Clustering is greedy and deterministic: a task's distinct normalized answers are
  visited by frequency (most frequent first, ties by first appearance); each joins the most similar
  existing cluster representative that passes the threshold, or else starts a new cluster and becomes
  its representative. So the representative is always the cluster's most frequent normalized answer.

Keys are computed once per distinct answer (not once per result), so a log with 100k results but few
distinct answers costs little.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np
import pandas as pd
from rapidfuzz import fuzz, process

from analyzer.answer_keys import ANSWER_KEYS, AnswerKey
from analyzer.metrics.grouping import sorted_distinct

__all__ = ["ANSWER_KEYS", "AnswerKey", "answer_keys", "exact_key", "fuzzy_representatives", "normalized_key"]

DEFAULT_FUZZY_THRESHOLD = 90.0
"""Default rapidfuzz ratio (0..100) at or above which two normalized answers are joined."""


def exact_key(answer: str) -> str:
    """The answer with surrounding white space stripped.

    Args:
        answer: The answer text as recorded.
    """
    return answer.strip()


def normalized_key(answer: str) -> str:
    """NFKC, case-folded, inner white space collapsed, trailing punctuation dropped.

    Args:
        answer: The answer text as recorded.
    """
    text = " ".join(unicodedata.normalize("NFKC", answer).casefold().split())
    end = len(text)
    while end > 0 and (text[end - 1].isspace() or unicodedata.category(text[end - 1]).startswith("P")):
        end -= 1
    return text[:end] if end > 0 else text


def fuzzy_representatives(
    answers: Sequence[str], threshold: float = DEFAULT_FUZZY_THRESHOLD
) -> dict[str, str]:
    """Map each of one task's normalized answers to its fuzzy cluster's representative.

    Args:
        answers: The task's normalized answers, one per result, in result order (repeats count
            towards frequency).
        threshold: rapidfuzz `ratio` (0..100) at or above which an answer joins a representative.
    """
    counts: dict[str, int] = {}
    for a in answers:
        counts[a] = counts.get(a, 0) + 1
    # dicts keep first-appearance order and sorted() is stable, so ties go to the earlier answer
    ordered = sorted(counts, key=lambda a: -counts[a])
    reps: list[str] = []
    mapping: dict[str, str] = {}
    for a in ordered:
        match = process.extractOne(a, reps, scorer=fuzz.ratio, score_cutoff=threshold) if reps else None
        if match is None:
            reps.append(a)
            mapping[a] = a
        else:
            mapping[a] = match[0]
    return mapping


def answer_keys(
    results: pd.DataFrame, key: AnswerKey = "exact", *, fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD
) -> pd.Series:
    """The answer key of every result (a new Series aligned with `results`); `<NA>` for errors.

    An `ok` result with a null answer counts as the empty answer.

    Args:
        results: Frame from `analyzer.frames.results_frame` (needs `task_id`, `status`, `answer`).
        key: `exact`, `normalized` or `fuzzy`.
        fuzzy_threshold: rapidfuzz ratio (0..100) for the `fuzzy` key.
    """
    if key not in ANSWER_KEYS:
        raise ValueError(f"unknown answer key {key!r}; use one of {', '.join(ANSWER_KEYS)}")
    ok = results["status"] == "ok"
    answers = results["answer"].where(ok).astype("string")
    answers = answers.mask(ok & answers.isna(), "")
    func = exact_key if key == "exact" else normalized_key
    keyed = _map_unique(answers, func)
    if key != "fuzzy":
        return keyed
    return _fuzzy(results["task_id"], keyed, fuzzy_threshold)


def _map_unique(values: pd.Series, func: object) -> pd.Series:
    codes, uniques = pd.factorize(values)  # missing values get -1, and stay missing below
    keyed = pd.array([func(u) for u in uniques], dtype="string")  # type: ignore[operator]
    return pd.Series(keyed.take(codes, allow_fill=True), index=values.index)


def _fuzzy(task_ids: pd.Series, normalized: pd.Series, threshold: float) -> pd.Series:
    """Fuzzy keys: only tasks with more than one distinct normalized answer need any matching."""
    task_code, _ = pd.factorize(task_ids)
    key_code, _ = pd.factorize(normalized)
    keyed = key_code >= 0
    if not keyed.any():
        return normalized.copy()
    width = int(key_code.max()) + 1
    pairs = sorted_distinct(task_code[keyed].astype("int64") * width + key_code[keyed])
    distinct = np.bincount(pairs // width, minlength=int(task_code.max()) + 1)
    rows = np.flatnonzero(keyed & (distinct[task_code] > 1))
    if len(rows) == 0:
        return normalized.copy()
    rows = rows[np.argsort(task_code[rows], kind="stable")]  # grouped by task, result order kept
    cuts = np.flatnonzero(np.diff(task_code[rows])) + 1
    values = normalized.to_numpy(dtype=object, na_value=None)
    out = values.copy()
    for chunk in np.split(rows, cuts):
        answers = values[chunk].tolist()
        mapping = fuzzy_representatives(answers, threshold)
        out[chunk] = [mapping[a] for a in answers]
    return pd.Series(pd.array(out, dtype="string"), index=normalized.index)
