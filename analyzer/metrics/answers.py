"""Answer keys: what counts as "the same answer" when results are grouped into clusters.

- `exact`: the answer with surrounding white space stripped.
- `normalized`: Unicode NFKC, case-folded, inner white space collapsed to one space, punctuation
  (and white space around it) dropped at both ends, so `"Paris"`, `Paris.` and `paris` are one
  answer. A sign or decimal point right before a digit stays (`-5` is not `5`), and an answer that
  is nothing but punctuation keeps it, so "?" and "..." stay apart.
- `fuzzy`: normalized answers of one task joined when their rapidfuzz `ratio` (0..100) is at least
  the threshold. Clustering is greedy and deterministic: a task's distinct normalized answers are
  visited by frequency (most frequent first, ties by first appearance); each joins the most similar
  existing cluster representative that passes the threshold, or else starts a new cluster and becomes
  its representative. So the representative is always the cluster's most frequent normalized answer.
- `actions`: what the agent did rather than what it said: the sequence of tool calls in the result's
  trajectory, each as its name and canonical JSON arguments (keys sorted; arguments sent as a JSON
  string are parsed first). Two runs are one answer when they made the same calls in the same
  order. A result with no recorded trajectory has no actions key and is left out, like an error;
  a trajectory without tool calls is the empty sequence, and a task in which no round called a tool
  has no actions keys at all (rounds that did nothing did not "do the same things").
- `semantic`: normalized answers of one task clustered by meaning (sentence embeddings plus guards
  on negation, numbers, units and weekdays), in `analyzer.metrics.semantic`.
- `judge`: normalized answers of one task clustered by a chat model's verdict on each pair, with the
  task's prompt as context, in `analyzer.metrics.judge`.

An absent answer (missing, null, empty or white space only) is "no answer": it has no text key, so
it never joins a cluster and never agrees with another absent answer (two rounds that both said
nothing did not say the same thing). `no_answer` marks these results.

Keys are computed once per distinct answer (not once per result), so a log with 100k results but few
distinct answers costs little.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from rapidfuzz import fuzz, process

from analyzer.log.call_tokens import canonical_json, signature, signature_piece
from analyzer.metrics.answer_keys import ANSWER_KEYS, AnswerKey
from analyzer.metrics.grouping import sorted_distinct
from analyzer.metrics.judge import JudgeOptions, judge_keys
from analyzer.metrics.normalized import normalized_key
from analyzer.metrics.semantic import SemanticOptions, semantic_keys

__all__ = [
    "ANSWER_KEYS",
    "AnswerKey",
    "action_signature",
    "answer_keys",
    "no_answer",
    "exact_key",
    "fuzzy_representatives",
    "normalized_key",
]

DEFAULT_FUZZY_THRESHOLD = 90.0
"""Default rapidfuzz ratio (0..100) at or above which two normalized answers are joined."""


def exact_key(answer: str) -> str:
    """The answer with surrounding white space stripped.

    Args:
        answer: The answer text as recorded.
    """
    return answer.strip()


def action_signature(trajectory: Sequence[Any] | None) -> str | None:
    """The tool calls of a trajectory as one canonical JSON string; None when none was recorded.

    Each call is `[name, arguments]` with arguments in canonical JSON (keys sorted, no spaces);
    arguments that arrive as a JSON string (the OpenAI wire format) are parsed first, so
    the object `{"a": 1}` and the string `'{"a": 1}'` are the same call. Messages are ignored.

    Args:
        trajectory: A result's steps (`ToolCallStep`/`MessageStep` objects or plain dicts).
    """
    if trajectory is None:
        return None
    pieces = []
    for step in trajectory:
        kind = step.get("type") if isinstance(step, dict) else getattr(step, "type", None)
        if kind != "tool_call":
            continue
        name = step.get("name") if isinstance(step, dict) else step.name
        arguments = step.get("arguments") if isinstance(step, dict) else step.arguments
        pieces.append(signature_piece(name, canonical_json(arguments)))
    return signature(pieces)


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
    results: pd.DataFrame,
    key: AnswerKey = "exact",
    *,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    semantic: SemanticOptions | None = None,
    prompts: Mapping[str, str] | None = None,
) -> pd.Series:
    """The answer key of every result (a new Series aligned with `results`); `<NA>` for errors.

    An `ok` result with no answer (missing, null, empty or white space only) has no text key
    (`<NA>`), so it is left out of the clusters like an error.

    Args:
        results: Frame from `analyzer.log.frames.results_frame` (needs `task_id`, `status`, `answer`;
            the `actions` key needs the `actions` column, from `action_signature`).
        key: `exact`, `normalized`, `fuzzy`, `actions` or `semantic`.
        fuzzy_threshold: rapidfuzz ratio (0..100) for the `fuzzy` key.
        semantic: Threshold and embedder for the `semantic` key (default: the bundled model); for
            the `judge` key, its `JudgeOptions`.
        prompts: Each task's prompt, the judge's context (`judge` key only).
    """
    if key not in ANSWER_KEYS:
        raise ValueError(f"unknown answer key {key!r}; use one of {', '.join(ANSWER_KEYS)}")
    ok = results["status"] == "ok"
    if key == "actions":
        if "actions" not in results:
            raise ValueError("the actions key needs an `actions` column (see analyzer.log.frames)")
        return _actions_keys(results, ok)
    answers = results["answer"].where(ok & ~no_answer(results)).astype("string")
    func = exact_key if key == "exact" else normalized_key
    keyed = _map_unique(answers, func)
    if key == "semantic":
        return semantic_keys(results["task_id"], keyed, semantic or SemanticOptions())
    if key == "judge":
        if not isinstance(semantic, JudgeOptions):
            raise ValueError(
                "the judge key needs its judge: JudgeOptions (the CLI builds it from --key judge)"
            )
        return judge_keys(results["task_id"], keyed, semantic, prompts or {})
    if key != "fuzzy":
        return keyed
    return _fuzzy(results["task_id"], keyed, fuzzy_threshold)


def no_answer(results: pd.DataFrame) -> pd.Series:
    """Results that did not error but gave no answer: missing, null, empty or white space only.

    Args:
        results: Frame with `status` and `answer`.
    """
    codes, uniques = pd.factorize(results["answer"])  # each distinct answer checked once
    empty = np.array([not str(u).strip() for u in uniques.tolist()] + [True], dtype=bool)
    blank = empty[np.where(codes < 0, len(uniques), codes)]  # a missing answer (-1) is blank
    return pd.Series((results["status"] == "ok").to_numpy(dtype=bool) & blank, index=results.index)


def _actions_keys(results: pd.DataFrame, ok: pd.Series) -> pd.Series:
    """The `actions` keys; `<NA>` for every round of a task in which no round called a tool (they
    did nothing to compare, which is not doing the same thing)."""
    keys = results["actions"].where(ok).astype("string")
    called = (keys.notna() & (keys != signature([]))).to_numpy(dtype=bool)
    codes, _ = pd.factorize(results["task_id"])
    task_called = np.bincount(codes[called], minlength=int(codes.max()) + 1 if len(codes) else 0) > 0
    return keys.where(task_called[codes] if len(codes) else called)


def _map_unique(values: pd.Series, func: object) -> pd.Series:
    codes, uniques = pd.factorize(values)  # missing values get -1, and stay missing below
    keyed = pd.array([func(u) for u in uniques.tolist()], dtype="string")  # type: ignore[operator]
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
    grouped = values[rows].tolist()
    mapped: list[str] = []
    for start, end in zip([0, *cuts.tolist()], [*cuts.tolist(), len(rows)], strict=True):
        answers = grouped[start:end]
        mapping = fuzzy_representatives(answers, threshold)
        mapped.extend(mapping[a] for a in answers)
    out = values.copy()
    out[rows] = mapped
    return pd.Series(pd.array(out, dtype="string"), index=normalized.index)
