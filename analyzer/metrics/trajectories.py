"""Trajectories across rounds: the tool calls each round made, where the rounds part ways, how alike
they are, and how uncertain each step is.

A call is its tool name plus its arguments as canonical JSON (keys sorted, no spaces; arguments sent
as a JSON string are parsed first), so two rounds made "the same call" exactly when the strings
match. Only results that recorded a trajectory take part; a task is measured when at least two of
its rounds did.

- First divergence: the 0-based index into the tool-call sequence of the first step where the
  task's rounds do not all make the same call; a round that ended earlier disagrees there. None
  (null) when every round made the same calls in the same order.
- Similarity: over every pair of rounds, the Jaccard index of their call sets (two empty sets count
  as equal) and the normalized Damerau-Levenshtein similarity of their call sequences; per task the
  mean and the minimum over pairs.
- Step entropy: at step s, the calls the rounds made there (a round that ended counts as the action
  "end"), Shannon entropy in bits and normalized by log2 of the rounds measured.

The per-step and divergence figures are computed on a (tasks x rounds x steps) array of call codes,
tasks taken in chunks of similar length so one very long trajectory does not inflate the array.
"""

from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from analyzer.log_table import has_trajectories
from analyzer.model import RunLog, ToolCallStep

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
CHUNK_TASKS = 256
"""Tasks per array chunk (sorted by length, so short tasks share a narrow array)."""
Z95 = 1.959963984540054
END_LABEL = "(end)"
"""The call shown where a round stopped calling tools."""
LABEL_CHARS = 28
"""Longest short label of a call (tool name and argument values)."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
"""One encoder for every call (json.dumps with options builds a new one each time)."""


def canonical_json(value: Any) -> str:
    """Arguments as canonical JSON; a string holding a JSON object or list is parsed first."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        if isinstance(parsed, dict | list):
            value = parsed
    return _CANONICAL.encode(value)


def call_token(name: str, arguments: Any) -> str:
    """One tool call as a comparable string: `name {canonical arguments}`."""
    return f"{name} {canonical_json(arguments)}"


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

    Returns:
        calls: one row per tool call: task_id (str), round, step (0-based), name, call (token).
        sequences: one row per result with a trajectory: task_id, round, n_calls (file order).
        A task listed twice in one round counts once (its first result), as everywhere else.
    """
    call_rows: list[tuple[str, int, int, str, str]] = []
    seq_rows: list[tuple[str, int, int]] = []
    seen: set[tuple[str, int]] = set()
    for rnd, result in log.results() if has_trajectories(log) else ():  # no result objects built
        task = str(result.task_id)
        if result.trajectory is None or (task, rnd) in seen:
            continue
        seen.add((task, rnd))
        step = 0
        for item in result.trajectory:
            if isinstance(item, ToolCallStep):
                call_rows.append((task, rnd, step, item.name, call_token(item.name, item.arguments)))
                step += 1
        seq_rows.append((task, rnd, step))
    calls = pd.DataFrame(call_rows, columns=["task_id", "round", "step", "name", "call"])
    return calls, pd.DataFrame(seq_rows, columns=["task_id", "round", "n_calls"])


@dataclass(frozen=True)
class _Cube:
    """Call codes of some tasks: codes[t, r, s], END after a sequence ends; rows beyond a task's
    rounds are absent (`present` False)."""

    task_ids: list[str]
    codes: np.ndarray
    present: np.ndarray
    lengths: np.ndarray
    """Longest sequence per task."""


def _cubes(calls: pd.DataFrame, sequences: pd.DataFrame) -> list[_Cube]:
    """The (tasks x rounds x steps) arrays, in chunks of tasks of similar length."""
    if sequences.empty:
        return []
    seqs = sequences.assign(pos=sequences.groupby("task_id", sort=False).cumcount())
    longest = seqs.groupby("task_id", sort=False)["n_calls"].max()
    order = longest.sort_values(kind="stable").index.tolist()
    coded = calls.assign(code=pd.factorize(calls["call"])[0])
    located = coded.merge(seqs[["task_id", "round", "pos"]], on=["task_id", "round"])
    out = []
    for start in range(0, len(order), CHUNK_TASKS):
        ids = order[start : start + CHUNK_TASKS]
        where = {t: i for i, t in enumerate(ids)}
        part = seqs[seqs["task_id"].isin(where)]
        width = max(int(longest[ids].max()), 1)
        cube = np.full((len(ids), int(part["pos"].max()) + 1, width), END, dtype=np.int64)
        present = np.zeros(cube.shape[:2], dtype=bool)
        present[_ints(part["task_id"].map(where)), _ints(part["pos"])] = True
        rows = located[located["task_id"].isin(where)]  # may be empty: rounds that made no call
        cube[_ints(rows["task_id"].map(where)), _ints(rows["pos"]), _ints(rows["step"])] = _ints(rows["code"])
        out.append(_Cube(ids, cube, present, longest[ids].to_numpy()))
    return out


def _ints(column: pd.Series) -> np.ndarray:
    """An index column as integers (an empty selection would otherwise come back as floats)."""
    return column.to_numpy(dtype=np.int64)


def first_divergence(calls: pd.DataFrame, sequences: pd.DataFrame) -> pd.Series:
    """Per task with at least two recorded rounds: the first step where the rounds disagree, or NA.

    Args:
        calls: `call_frame`'s calls.
        sequences: `call_frame`'s sequences.
    """
    found: dict[str, Any] = {}
    for cube in _cubes(calls, sequences):
        ref = cube.codes[:, :1, :]
        differ = ((cube.codes != ref) & cube.present[:, :, None]).any(axis=1)
        has = differ.any(axis=1)
        first = differ.argmax(axis=1)
        for i, task in enumerate(cube.task_ids):
            if cube.present[i].sum() >= 2:
                found[task] = int(first[i]) if has[i] else pd.NA
    order = _measured_order(sequences)
    return pd.Series([found[t] for t in order], index=pd.Index(order, name="task_id"), dtype="Int64")


def step_entropy(calls: pd.DataFrame, sequences: pd.DataFrame) -> pd.DataFrame:
    """Per measured task and step: rounds, distinct actions, entropy (bits) and normalized entropy.

    A round that ended before the step counts as the action "end"; steps run to the task's longest
    sequence. Normalized entropy divides by log2(rounds), so 1 means every round did something else.
    """
    parts = []
    for cube in _cubes(calls, sequences):
        steps = np.arange(cube.codes.shape[2])
        keep = cube.present[:, :, None] & (steps[None, None, :] < cube.lengths[:, None, None])
        t, _, s = np.nonzero(keep)
        parts.append(pd.DataFrame({"t": np.asarray(cube.task_ids)[t], "step": s, "code": cube.codes[keep]}))
    columns = ["task_id", "step", "rounds", "actions", "entropy_bits", "entropy"]
    if not parts:
        return pd.DataFrame(columns=columns)
    long = pd.concat(parts, ignore_index=True)
    counts = long.groupby(["t", "step", "code"], sort=False).size().rename("k").reset_index()
    totals = counts.groupby(["t", "step"], sort=False)["k"].transform("sum")
    p = counts["k"] / totals
    counts = counts.assign(h=-(p * np.log2(p)), n=totals)
    per = counts.groupby(["t", "step"], sort=False).agg(
        rounds=("n", "first"), actions=("code", "size"), entropy_bits=("h", "sum")
    )
    per = per.reset_index().rename(columns={"t": "task_id"})
    measured = per["rounds"] >= 2
    per = per[measured].assign(entropy_bits=lambda f: f["entropy_bits"].clip(lower=0.0) + 0.0)
    per = per.assign(entropy=per["entropy_bits"] / np.log2(per["rounds"]))
    order = {t: i for i, t in enumerate(_measured_order(sequences))}
    per = per.assign(_o=per["task_id"].map(order)).sort_values(["_o", "step"], kind="stable")
    return per.drop(columns="_o").reset_index(drop=True)[columns]


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


def _measured_order(sequences: pd.DataFrame) -> list[str]:
    """Tasks with at least two recorded rounds, in first-appearance order."""
    counts = sequences.groupby("task_id", sort=False).size()
    return counts[counts >= 2].index.tolist()


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
            "tasks": int(self.sequences["task_id"].nunique()),
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
    p = k / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return {"value": p, "low": max(0.0, centre - half), "high": min(1.0, centre + half)}


def _sequences_by_round(calls: pd.DataFrame) -> dict[tuple[str, int], list[int]]:
    """Call codes per (task, round), split at the boundaries of the frame's runs (it is in step order
    within each result, results contiguous), without a groupby per result."""
    if calls.empty:
        return {}
    codes = pd.factorize(calls["call"])[0]
    tasks = calls["task_id"].to_numpy()
    rounds = calls["round"].to_numpy()
    starts = np.flatnonzero(np.r_[True, (tasks[1:] != tasks[:-1]) | (rounds[1:] != rounds[:-1])])
    parts = np.split(codes, starts[1:])
    return {(tasks[i], int(rounds[i])): p.tolist() for i, p in zip(starts, parts, strict=True)}


def _task_table(calls: pd.DataFrame, sequences: pd.DataFrame, steps: pd.DataFrame) -> pd.DataFrame:
    """One row per measured task: rounds, call counts, divergence, similarity, peak entropy."""
    order = _measured_order(sequences)
    fd = first_divergence(calls, sequences)
    by_round = _sequences_by_round(calls)
    rows = []
    for task, g in sequences[sequences["task_id"].isin(set(order))].groupby("task_id", sort=False):
        seqs = [by_round.get((task, rnd), []) for rnd in g["round"]]
        jac, edit = pairwise_similarity(seqs)
        upper = np.triu_indices(len(seqs), k=1)
        rows.append(
            (task, len(seqs), int(g["n_calls"].min()), int(g["n_calls"].max()))
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
    return table.reset_index()


def measure_trajectories(log: RunLog) -> Trajectories:
    """Measure the log's recorded trajectories (empty frames when none were recorded)."""
    calls, sequences = call_frame(log)
    steps = step_entropy(calls, sequences)
    return Trajectories(
        calls=calls, sequences=sequences, tasks=_task_table(calls, sequences, steps), steps=steps
    )
