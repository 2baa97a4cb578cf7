"""The `judge` answer key: each task's distinct normalized answers clustered by a chat model's
verdicts (`cluster.judge_clusters`), the local encoder settling the pairs it is sure of.

`JudgeOptions` extends the semantic key's options (the local encoder is the band's), adding the
judge (`decide`, named by `model`), the band, and `confirm`, which is shown the most calls and
tokens a pass can cost before the first call and may refuse (the CLI without `--yes` or a limit).
Every verdict goes through the disk cache, so a log analysed again asks nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analyzer.log.model import RunLog
from analyzer.metrics.judge.cache import DecisionCache, cached
from analyzer.metrics.judge.cluster import Decide, Decision, JudgedTask, judge_clusters
from analyzer.metrics.judge.prompt import JUDGE_INSTRUCTION, JUDGE_MAX_TOKENS
from analyzer.metrics.semantic import SemanticOptions, SemanticUnavailable
from analyzer.metrics.semantic.key import PairJudge
from analyzer.metrics.semantic.text import embedding_text

__all__ = [
    "DEFAULT_BAND",
    "NOT_RECORDED",
    "JudgeOptions",
    "JudgePlan",
    "band",
    "distinct_by_task",
    "judge_keys",
    "judge_plan",
    "task_prompts",
]

DEFAULT_BAND = (0.10, 0.95)
"""Cosines of the bundled encoder outside which no call is made: below 0.10 the pair is apart, at
or above 0.95 with no guard against it the pair is one. On the labelled set's seen splits the lowest
cosine of a pair of one meaning was 0.12 and the highest of two meanings no guard kept apart 0.92
(`scripts/bench_judge_band.py`; docs/metrics.md)."""
NOT_RECORDED = "(the question is not recorded in this log)"


@dataclass(frozen=True, eq=False)
class JudgeOptions(SemanticOptions):
    """How the `judge` key runs: the judge, its name, the band, and the consent before calls."""

    decide: Decide | None = field(default=None, repr=False)
    """The judge (`analyzer.runner.judge.RouteJudge.decide`)."""
    model: str = "judge"
    """Names the judge's model and endpoint: part of every cached verdict's key."""
    band: tuple[float, float] | None = DEFAULT_BAND
    """(apart below, one at or above) the local encoder's cosine; None asks about every pair."""
    confirm: Callable[[JudgePlan], None] | None = field(default=None, repr=False)
    """Shown the pass's most calls and tokens before any call; raises to refuse."""
    decisions: DecisionCache | None = field(default=None, repr=False)
    """Where verdicts are kept (None: the user's cache folder)."""


@dataclass(frozen=True)
class JudgePlan:
    """The most a pass can cost: calls (k(k-1)/2 per task of k distinct answers) and tokens."""

    tasks: int
    calls: int
    tokens: int

    def sentence(self, model: str) -> str:
        return (
            f"the judge key asks {model} at most {self.calls:,} questions over {self.tasks:,} tasks "
            f"(about {self.tokens:,} tokens at most; the band and the cache make it fewer)"
        )


def judge_plan(groups: Mapping[str, list[str]], prompts: Mapping[str, str]) -> JudgePlan:
    """The most calls and tokens for these tasks' answers (one per result; the distinct ones count),
    before the band and the cache make them fewer."""
    calls = tokens = 0
    for task, answers in groups.items():
        distinct = set(answers)
        k = len(distinct)
        pairs = k * (k - 1) // 2
        mean = sum(len(a) for a in distinct) / k if k else 0
        per_call = (len(JUDGE_INSTRUCTION) + len(prompts.get(task, NOT_RECORDED)) + 2 * mean) / 4
        calls += pairs
        tokens += int(pairs * (per_call + JUDGE_MAX_TOKENS))
    return JudgePlan(len(groups), calls, tokens)


def task_prompts(log: RunLog) -> dict[str, str]:
    """Each task's prompt, as the log records it (format 2's `tasks`); empty when it records none."""
    return {str(t.task_id): t.prompt for t in log.tasks or []}


def judge_keys(
    task_ids: pd.Series, normalized: pd.Series, options: JudgeOptions, prompts: Mapping[str, str]
) -> pd.Series:
    """Each result's cluster representative by the judge (`<NA>` stays); notes in `attrs["notes"]`,
    each task's `JudgedTask` in `attrs["judged"]`."""
    if options.decide is None:
        raise ValueError("the judge key needs a judge: JudgeOptions(decide=...)")
    groups = distinct_by_task(task_ids, normalized)
    if options.confirm is not None and groups:
        options.confirm(judge_plan(groups, prompts))
    store = options.decisions or DecisionCache()
    fresh = _Counting(options.decide)
    decide = cached(options.model, fresh, store)
    certain, band_note = band(options, groups)
    judged: dict[str, JudgedTask] = {}
    mapping: dict[tuple[str, str], str] = {}
    for task, answers in groups.items():
        judged[task] = judge_clusters(prompts.get(task, NOT_RECORDED), answers, decide, certain)
        for m in judged[task].members:
            mapping[(task, m.answer)] = m.representative
    out = normalized.to_numpy(dtype=object, na_value=None).copy()
    tasks = task_ids.astype(str).to_numpy()
    for i in np.flatnonzero(normalized.notna().to_numpy()):
        out[i] = mapping.get((tasks[i], out[i]), out[i])
    keys = pd.Series(pd.array(out, dtype="string"), index=normalized.index)
    keys.attrs["judged"] = judged
    keys.attrs["notes"] = _notes(options.model, judged, fresh.calls, band_note)
    return keys


class _Counting:
    """The judge, counting the calls that reached it (past the cache)."""

    def __init__(self, decide: Decide) -> None:
        self.decide = decide
        self.calls = 0

    def __call__(self, prompt: str, a: str, b: str) -> Decision:
        self.calls += 1
        return self.decide(prompt, a, b)


def distinct_by_task(task_ids: pd.Series, normalized: pd.Series) -> dict[str, list[str]]:
    """Each task with two or more distinct answers: its answers, one per result (frequency counts)."""
    frame = pd.DataFrame({"task": task_ids.astype(str).to_numpy(), "answer": normalized.to_numpy()})
    frame = frame[normalized.notna().to_numpy()]
    out = {str(t): a.tolist() for t, a in frame.groupby("task", sort=False)["answer"]}
    return {t: a for t, a in out.items() if len(set(a)) > 1}


def band(
    options: JudgeOptions, groups: Mapping[str, list[str]]
) -> tuple[Callable[[str, str], bool | None] | None, str | None]:
    """The local encoder's verdict on a pair outside the band (None inside it), or no band at all
    (with why) when the encoder cannot run."""
    if options.band is None or not groups:
        return None, None
    low, high = options.band
    texts = list(dict.fromkeys(embedding_text(a) for answers in groups.values() for a in answers))
    try:
        vectors = options.cache().vectors(texts)
    except SemanticUnavailable as exc:
        return None, f"no local band ({exc}): every pair was put to the judge"
    row = {t: i for i, t in enumerate(texts)}
    guards = PairJudge(options.cache(), options.threshold, options.slot_threshold, options.across())

    def certain(a: str, b: str) -> bool | None:
        cosine = float(vectors[row[embedding_text(a)]] @ vectors[row[embedding_text(b)]])
        if cosine < low:
            return False
        if cosine >= high and guards.guard(a, b, cosine) is None:
            return True
        return None

    return certain, None


def _notes(model: str, judged: Mapping[str, JudgedTask], fresh: int, band_note: str | None) -> list[str]:
    """What the pass did, in one line, and each failure or unclear reply."""
    asked = sum(t.calls for t in judged.values())
    settled = sum(t.settled_locally for t in judged.values())
    notes = [
        f"judge key ({model}): {asked:,} verdicts over {len(judged):,} tasks, {fresh:,} asked now and "
        f"{asked - fresh:,} from the cache; {settled:,} pairs settled by the local encoder's band"
    ]
    if band_note:
        notes.append(band_note)
    unclear = sum(t.unclear for t in judged.values())
    if unclear:
        notes.append(f"{unclear:,} judge replies were neither yes nor no: those pairs were kept apart")
    failed = {t: j.failed for t, j in judged.items() if j.failed}
    if failed:
        shown = ", ".join(list(failed)[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5 else "")
        notes.append(
            f"the judge failed on {len(failed):,} tasks ({shown}): their answers are kept apart, "
            f"each its own cluster ({next(iter(failed.values()))})"
        )
    return notes
