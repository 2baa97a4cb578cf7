"""Trajectories across rounds: the tool calls each round made, where the rounds part ways, how alike
they are, and how uncertain each step is.

A call is its tool name plus its arguments as canonical JSON (keys sorted, no spaces; arguments sent
as a JSON string are parsed first), so two rounds made "the same call" exactly when the strings
match. Only results that recorded a trajectory take part; a task is measured when at least two of
its rounds did and at least one of them called a tool (rounds that all called none did not "make the
same calls", so they are not measured).

- First divergence: the 0-based index into the tool-call sequence of the first step where the
  task's rounds do not all make the same call; a round that ended earlier disagrees there. None
  (null) when every round made the same calls in the same order.
- Similarity: over every pair of rounds, the Jaccard index of their call sets (two empty sets count
  as equal) and the normalized Damerau-Levenshtein similarity of their call sequences; per task the
  mean and the minimum over pairs.
- Step entropy: at step s, the calls the rounds made there (a round that ended counts as the action
  "end"), Shannon entropy in bits and normalized by log2 of the rounds measured.

The per-step and divergence figures are computed on flat arrays of call codes (one entry per call,
or per round and step for the entropy), so the cost follows the number of calls.
"""

from __future__ import annotations

import contextlib
import functools
import json
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from analyzer.log.call_tokens import CallTokens, call_token, canonical_json
from analyzer.log.model import RunLog
from analyzer.log.table import has_trajectories, log_table
from analyzer.metrics.stats import wilson_interval

__all__ = [
    "Trajectories",
    "call_frame",
    "call_token",
    "canonical_json",
    "divergence_counts",
    "divergence_histogram",
    "first_divergence",
    "measure_trajectories",
    "pairwise_similarity",
    "short_label",
    "step_entropy",
]

END = -1
"""Call code after a round's sequence ended."""
END_LABEL = "(end)"
"""The call shown where a round stopped calling tools."""
LABEL_CHARS = 28
"""Longest short label of a call (tool name and argument values)."""


def short_label(name: str, arguments: Any) -> str:
    """A call as a few words for a chart label: `get_order(O-5002)`, cut to LABEL_CHARS."""
    if isinstance(arguments, str):
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments)
    values = arguments.values() if isinstance(arguments, dict) else [] if arguments is None else [arguments]
    text = f"{name}({', '.join(str(v) for v in values)})"
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def call_frame(log: RunLog) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The log's tool calls and the rounds that recorded a trajectory.

    Read from the log's table (`tool_calls`, tokens made once while the log was read), so a loaded
    log's result objects are not built.

    Returns:
        calls: one row per tool call: task_id (str), round, step (0-based), name, call (token).
        sequences: one row per result with a trajectory: task_id, round, n_calls (file order).
        A task listed twice in one round counts once (its first result), as everywhere else.
    """
    if not has_trajectories(log):
        return pd.DataFrame([], columns=_CALL_COLUMNS), pd.DataFrame([], columns=_SEQUENCE_COLUMNS)
    table = log_table(log)
    rounds = np.repeat(np.arange(1, len(table.round_sizes) + 1), table.round_sizes).tolist()
    kept: list[CallTokens] = []
    seq_rows: list[tuple[str, int, int]] = []
    seen: set[tuple[str, int]] = set()
    for task_id, rnd, tokens in zip(
        table.results["task_id"], rounds, table.results["tool_calls"], strict=True
    ):
        task = str(task_id)
        if tokens is None or (task, rnd) in seen:
            continue
        seen.add((task, rnd))
        kept.append(tokens)
        seq_rows.append((task, rnd, len(tokens)))
    sequences = pd.DataFrame(seq_rows, columns=_SEQUENCE_COLUMNS)
    counts = sequences["n_calls"].to_numpy()
    if not counts.sum():
        return pd.DataFrame([], columns=_CALL_COLUMNS), sequences
    flat = list(chain.from_iterable(kept))
    names, tokens = list(map(itemgetter(0), flat)), list(map(itemgetter(1), flat))
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    calls = pd.DataFrame(
        {
            "task_id": sequences["task_id"].repeat(counts).tolist(),
            "round": np.repeat(sequences["round"].to_numpy(), counts),
            "step": np.arange(len(starts)) - starts,
            "name": names,
            "call": tokens,
        },
        columns=_CALL_COLUMNS,
    )
    return calls, sequences


_CALL_COLUMNS = ["task_id", "round", "step", "name", "call"]
_SEQUENCE_COLUMNS = ["task_id", "round", "n_calls"]


@dataclass(frozen=True)
class _Flat:
    """The recorded sequences as flat integer arrays, one entry per sequence or per call.

    Every per-step figure is computed from these with whole-array operations, so the cost follows
    the number of calls, not the number of tasks times their longest sequence in Python.
    """

    task_ids: list[str]
    """Task ids by task code (first-appearance order)."""
    task: np.ndarray
    """Per sequence: its task code."""
    lengths: np.ndarray
    """Per sequence: its number of calls."""
    offsets: np.ndarray
    """Per sequence: where its calls start in `codes`."""
    codes: np.ndarray
    """Per call: the call's code (equal calls, equal codes)."""
    first: np.ndarray
    """Per task code: its first sequence (the reference round)."""
    rounds: np.ndarray
    """Per task code: its recorded rounds."""
    longest: np.ndarray
    """Per task code: its longest sequence."""


def _flat(calls: pd.DataFrame, sequences: pd.DataFrame) -> _Flat:
    """Codes of `call_frame`'s frames (its calls are in sequence order, `n_calls` per sequence)."""
    task, uniques = pd.factorize(sequences["task_id"], sort=False)
    task = task.astype(np.int64)
    lengths = sequences["n_calls"].to_numpy(dtype=np.int64)
    codes = pd.factorize(calls["call"])[0].astype(np.int64) if len(calls) else np.zeros(0, np.int64)
    n_tasks = len(uniques)
    first = np.full(n_tasks, len(task), dtype=np.int64)
    np.minimum.at(first, task, np.arange(len(task), dtype=np.int64))
    longest = np.zeros(n_tasks, dtype=np.int64)
    np.maximum.at(longest, task, lengths)
    return _Flat(
        task_ids=[str(t) for t in uniques],
        task=task,
        lengths=lengths,
        offsets=np.cumsum(lengths) - lengths,
        codes=codes,
        first=first,
        rounds=np.bincount(task, minlength=n_tasks),
        longest=longest,
    )


def _within(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For `counts[i]` entries per item: each entry's item and its 0-based index within the item."""
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    return owner, np.arange(len(owner), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)


def first_divergence(calls: pd.DataFrame, sequences: pd.DataFrame) -> pd.Series:
    """Per task with at least two recorded rounds: the first step where the rounds disagree, or NA.

    A round parts from the task's first round at its first differing call or, if one is a prefix
    of the other, where the shorter one ends; the task's divergence is the earliest of its rounds'.

    Args:
        calls: `call_frame`'s calls.
        sequences: `call_frame`'s sequences.
    """
    f = _flat(calls, sequences)
    never = np.iinfo(np.int64).max
    ref = f.first[f.task]  # per sequence: its task's first sequence
    seq, step = _within(f.lengths)
    ref_of_call = ref[seq]
    inside = step < f.lengths[ref_of_call]
    differ = np.zeros(len(step), dtype=bool)
    differ[inside] = f.codes[inside] != f.codes[f.offsets[ref_of_call[inside]] + step[inside]]
    per_seq = np.full(len(f.task), never, dtype=np.int64)
    np.minimum.at(per_seq, seq[differ], step[differ])
    ended = f.lengths != f.lengths[ref]
    per_seq[ended] = np.minimum(per_seq[ended], np.minimum(f.lengths, f.lengths[ref])[ended])
    per_task = np.full(len(f.task_ids), never, dtype=np.int64)
    np.minimum.at(per_task, f.task, per_seq)
    measured = np.flatnonzero(f.rounds >= 2)
    values = [pd.NA if per_task[t] == never else int(per_task[t]) for t in measured]
    order = [f.task_ids[t] for t in measured]
    return pd.Series(values, index=pd.Index(order, name="task_id"), dtype="Int64")


def step_entropy(calls: pd.DataFrame, sequences: pd.DataFrame) -> pd.DataFrame:
    """Per measured task and step: rounds, distinct actions, entropy (bits) and normalized entropy.

    A round that ended before the step counts as the action "end"; steps run to the task's longest
    sequence. Normalized entropy divides by log2(rounds), so 1 means every round did something else.
    """
    columns = ["task_id", "step", "rounds", "actions", "entropy_bits", "entropy"]
    if sequences.empty:
        return pd.DataFrame(columns=columns)
    f = _flat(calls, sequences)
    seq, step = _within(f.longest[f.task])  # every round at every step of its task's longest
    code = np.full(len(step), END, dtype=np.int64)
    made = step < f.lengths[seq]
    code[made] = f.codes[f.offsets[seq[made]] + step[made]]
    long = pd.DataFrame({"t": f.task[seq], "step": step, "code": code})
    counts = long.groupby(["t", "step", "code"], sort=False).size().rename("k").reset_index()
    totals = counts.groupby(["t", "step"], sort=False)["k"].transform("sum")
    p = counts["k"] / totals
    counts = counts.assign(h=-(p * np.log2(p)), n=totals)
    per = counts.groupby(["t", "step"], sort=False).agg(
        rounds=("n", "first"), actions=("code", "size"), entropy_bits=("h", "sum")
    )
    per = per.reset_index()
    per = per[per["rounds"] >= 2].sort_values(["t", "step"], kind="stable")  # task codes: file order
    per = per.assign(
        task_id=pd.Series(
            np.asarray(f.task_ids, dtype=object)[per["t"].to_numpy()], index=per.index, dtype="str"
        ),
        entropy_bits=per["entropy_bits"].clip(lower=0.0) + 0.0,
    )
    per = per.assign(entropy=per["entropy_bits"] / np.log2(per["rounds"]))
    return per.reset_index(drop=True)[columns]


def pairwise_similarity(sequences: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Jaccard (call sets) and normalized Damerau-Levenshtein similarity (call sequences) of every
    pair of rounds, as two symmetric (rounds x rounds) matrices with ones on the diagonal."""
    n = len(sequences)
    vocab = sorted({c for seq in sequences for c in seq})
    where = {c: i for i, c in enumerate(vocab)}
    member = np.zeros((n, max(len(vocab), 1)), dtype=np.int64)
    for i, seq in enumerate(sequences):
        member[i, [where[c] for c in set(seq)]] = 1
    inter = member @ member.T
    sizes = member.sum(axis=1)
    union = sizes[:, None] + sizes[None, :] - inter
    jaccard = np.where(union == 0, 1.0, inter / np.maximum(union, 1))
    edit = process.cdist(
        sequences, sequences, scorer=DamerauLevenshtein.normalized_similarity, dtype=np.float64
    )
    return jaccard, np.asarray(edit)


@dataclass(frozen=True, eq=False)
class Trajectories:
    """Everything measured about a log's trajectories. Frames are for reading."""

    calls: pd.DataFrame
    """One row per tool call: task_id, round, step, name, call."""
    sequences: pd.DataFrame
    """One row per result that recorded a trajectory: task_id, round, n_calls."""
    tasks: pd.DataFrame
    """One row per measured task: rounds, calls (min, max), first_divergence, identical, similarity
    (mean and minimum over pairs of rounds), the largest step entropy."""
    steps: pd.DataFrame
    """One row per measured task and step: rounds, actions, entropy_bits, entropy."""

    def report(self) -> dict[str, Any]:
        """The `trajectories` entry of `analyze --json`."""
        tasks = self.tasks
        measured = len(tasks)
        identical = int(tasks["identical"].sum()) if measured else 0
        fd = {
            t: (None if pd.isna(v) else int(v))
            for t, v in zip(tasks["task_id"], tasks["first_divergence"], strict=True)
        }
        entropy = {
            str(t): [round(float(v), 4) for v in g["entropy"]]
            for t, g in self.steps.groupby("task_id", sort=False)
        }
        return {
            "tasks": int(self.sequences.loc[self.sequences["n_calls"] > 0, "task_id"].nunique()),
            "tasks_measured": measured,
            "identical": identical,
            "identical_share": _share(identical, measured),
            "first_divergence": fd,
            "divergence_histogram": divergence_histogram(tasks),
            "similarity": {
                str(r.task_id): {
                    "jaccard_mean": round(float(r.jaccard_mean), 4),
                    "jaccard_min": round(float(r.jaccard_min), 4),
                    "edit_mean": round(float(r.edit_mean), 4),
                    "edit_min": round(float(r.edit_min), 4),
                }
                for r in tasks.itertuples()
            },
            "step_entropy": entropy,
        }


def divergence_histogram(tasks: pd.DataFrame) -> dict[str, int]:
    """How many measured tasks first diverge at each step (`"none"`: rounds identical)."""
    fd = tasks["first_divergence"] if len(tasks) else pd.Series([], dtype="Int64")
    counts = fd.dropna().astype(int).value_counts().sort_index()
    out = {str(int(k)): int(v) for k, v in counts.items()}
    out["none"] = int(fd.isna().sum())
    return out


def divergence_counts(tasks: pd.DataFrame) -> pd.DataFrame:
    """The histogram of first-divergence steps as a frame: label (the step, or "same calls") and
    tasks, steps in order with the identical tasks last."""
    hist = divergence_histogram(tasks)
    labels = [k for k in hist if k != "none"]
    return pd.DataFrame(
        {"label": [*labels, "same calls"], "tasks": [hist[k] for k in labels] + [hist["none"]]}
    )


def _share(k: int, n: int) -> dict[str, float | None]:
    """k/n with its Wilson 95% interval (None when n is 0)."""
    if n == 0:
        return {"value": None, "low": None, "high": None}
    low, high = wilson_interval(k, n)
    return {"value": k / n, "low": low, "high": high}


def _task_table(calls: pd.DataFrame, sequences: pd.DataFrame, steps: pd.DataFrame) -> pd.DataFrame:
    """One row per measured task: rounds, call counts, divergence, similarity, peak entropy."""
    f = _flat(calls, sequences)
    fd = first_divergence(calls, sequences)
    order = fd.index.tolist()
    by_task = np.argsort(f.task, kind="stable")  # each task's sequences, in file order
    bounds = np.cumsum(f.rounds) - f.rounds
    parts = np.split(f.codes, f.offsets[1:]) if len(f.task) else []
    rows = []
    for t in np.flatnonzero(f.rounds >= 2).tolist():
        members = by_task[bounds[t] : bounds[t] + f.rounds[t]]
        jac, edit = pairwise_similarity([parts[j].tolist() for j in members])
        upper = np.triu_indices(len(members), k=1)
        lengths = f.lengths[members]
        rows.append(
            (f.task_ids[t], len(members), int(lengths.min()), int(lengths.max()))
            + (
                float(jac[upper].mean()),
                float(jac[upper].min()),
                float(edit[upper].mean()),
                float(edit[upper].min()),
            )
        )
    cols = [
        "task_id",
        "rounds",
        "calls_min",
        "calls_max",
        "jaccard_mean",
        "jaccard_min",
        "edit_mean",
        "edit_min",
    ]
    table = pd.DataFrame(rows, columns=cols).set_index("task_id").reindex(order)
    peak = steps.groupby("task_id", sort=False)["entropy"].max() if len(steps) else pd.Series(dtype=float)
    table = table.assign(
        first_divergence=fd.reindex(order),
        identical=fd.reindex(order).isna().to_numpy(dtype=bool),
        entropy_max=peak.reindex(order).fillna(0.0),
    )
    # a task none of whose rounds called a tool is not measured: "no calls" is not "the same calls"
    return table.loc[table["calls_max"].fillna(0) > 0].reset_index()


def measure_trajectories(log: RunLog) -> Trajectories:
    """Measure the log's recorded trajectories (empty frames when none were recorded)."""
    if not has_trajectories(log):  # most logs: the empty frames, made once, copied
        return Trajectories(*(frame.copy() for frame in _frames_of(_no_trajectories())))
    return _measured(*call_frame(log))


def _measured(calls: pd.DataFrame, sequences: pd.DataFrame) -> Trajectories:
    steps = step_entropy(calls, sequences)
    return Trajectories(
        calls=calls, sequences=sequences, tasks=_task_table(calls, sequences, steps), steps=steps
    )


def _frames_of(found: Trajectories) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The four frames in field order (`dataclasses.astuple` would deep-copy them)."""
    return found.calls, found.sequences, found.tasks, found.steps


@functools.cache
def _no_trajectories() -> Trajectories:
    """What a log without trajectories measures: the same code path on empty frames (4 ms), once."""
    return _measured(pd.DataFrame([], columns=_CALL_COLUMNS), pd.DataFrame([], columns=_SEQUENCE_COLUMNS))
