"""How uncertain one agent step is, from several samples of it (ALTK's "accurate mode").

A sample is what the model did at the step: tool calls (each as `name {canonical arguments}`) or a
text reply. Two samples' similarity is the Jaccard index of their call sets when both called tools,
the normalized Levenshtein similarity of their texts when both replied in text, 0 when one called
and the other replied.

- Uncertainty = 1 - mean similarity over every pair of samples; with it a 95% bootstrap interval
  over the samples (the samples are what varies), so five samples that happen to agree say so
  with the width five samples deserve.
- Entropy: Shannon entropy (bits) of the distinct actions, and normalized by log2(samples).
- Flags: up to `MAX_FLAGS` steps with uncertainty >= `FLAG_AT`, most uncertain first.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from rapidfuzz.distance import Levenshtein

from analyzer.log.model import RunLog
from analyzer.metrics.stats import wilson_interval

__all__ = [
    "FLAG_AT",
    "MAX_FLAGS",
    "Sample",
    "StepScore",
    "flag_steps",
    "resample_frame",
    "resample_of",
    "score_step",
    "similarity",
    "step_report",
]

FLAG_AT = 0.2
"""Uncertainty at or above which a step is flagged."""
MAX_FLAGS = 3
"""At most this many steps are flagged."""
BOOTSTRAP = 400
"""Bootstrap draws for the interval."""


@dataclass(frozen=True)
class Sample:
    """What the model did at a step in one sample."""

    calls: tuple[str, ...] | None
    """Tool calls (canonical tokens) when it called tools, else None."""
    text: str
    """Its text reply (empty when it only called tools)."""

    @property
    def action(self) -> str:
        """The sample as one category: its calls in order, or its text."""
        return " | ".join(self.calls) if self.calls is not None else self.text.strip()


def similarity(a: Sample, b: Sample) -> float:
    """Jaccard of call sets, normalized Levenshtein similarity of texts, 0 between a call and a text."""
    if a.calls is not None and b.calls is not None:
        sa, sb = set(a.calls), set(b.calls)
        union = sa | sb
        return 1.0 if not union else len(sa & sb) / len(union)
    if a.calls is None and b.calls is None:
        return float(Levenshtein.normalized_similarity(a.text.strip(), b.text.strip()))
    return 0.0


@dataclass(frozen=True)
class StepScore:
    """One step's samples, scored."""

    samples: int
    """Samples that came back (errors left out)."""
    uncertainty: float | None
    """1 - mean pairwise similarity; None with fewer than two samples."""
    low: float | None
    """2.5th percentile of the bootstrap uncertainty."""
    high: float | None
    """97.5th percentile of the bootstrap uncertainty."""
    entropy_bits: float
    """Entropy of the distinct actions, bits."""
    entropy: float
    """Entropy normalized by log2(samples); 0 with fewer than two samples."""
    actions: dict[str, int]
    """Distinct actions and how many samples took each, most common first."""


def score_step(samples: Sequence[Sample], seed: int = 0) -> StepScore:
    """Score one step's samples (see the module docstring)."""
    n = len(samples)
    counts = Counter(s.action for s in samples)
    bits = -sum(c / n * math.log2(c / n) for c in counts.values()) + 0.0 if n else 0.0
    entropy = bits / math.log2(n) if n >= 2 else 0.0
    actions = dict(counts.most_common())
    if n < 2:
        return StepScore(n, None, None, None, bits, entropy, actions)
    sim = np.array([[similarity(a, b) for b in samples] for a in samples])
    off = ~np.eye(n, dtype=bool)
    point = 1.0 - float(sim[off].mean())
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(BOOTSTRAP, n))
    sub = sim[idx[:, :, None], idx[:, None, :]]
    draws = 1.0 - sub[:, off].mean(axis=1)
    low, high = (float(v) for v in np.percentile(draws, [2.5, 97.5]))
    low, high = widened(point, low, high, n)
    return StepScore(n, point, low, high, bits, entropy, actions)


def widened(point: float, low: float | None, high: float | None, samples: int | None) -> tuple[float, float]:
    """A step's interval never narrower than its samples allow: the wider bounds of the bootstrap
    interval and the Wilson interval of the mean uncertainty over the samples (five samples that all
    agree give 0 to 0.43, not 0 to 0). Also applied to scores read from older resample files."""
    low = point if low is None else min(low, point)
    high = point if high is None else max(high, point)
    if samples and samples >= 1:
        w_low, w_high = wilson_interval(point * samples, samples)
        low, high = min(low, w_low), max(high, w_high)
    return low, high


def flag_steps(scores: dict[int, StepScore]) -> list[int]:
    """Up to MAX_FLAGS steps with uncertainty >= FLAG_AT, most uncertain first (earlier on ties)."""
    hits = [
        (s.uncertainty, k)
        for k, s in scores.items()
        if s.uncertainty is not None and s.uncertainty >= FLAG_AT
    ]
    return [k for _u, k in sorted(hits, key=lambda t: (-t[0], t[1]))][:MAX_FLAGS]


STRIP_COLUMNS = [
    "step",
    "tool_step",
    "samples",
    "uncertainty",
    "low",
    "high",
    "entropy",
    "flagged",
    "recorded",
    "actions",
]


def resample_frame(log: RunLog) -> pd.DataFrame | None:
    """The scores a resample log carries (its `resample` block), one row per step; None when the log
    is not a resample log."""
    steps = _stored_steps(log)
    if steps is None:
        return None
    rows = [
        {
            "step": s.get("step"),
            "tool_step": s.get("tool_step"),
            "samples": s.get("samples"),
            "uncertainty": s.get("uncertainty"),
            "low": s["uncertainty_low"],
            "high": s["uncertainty_high"],
            "entropy": s.get("entropy"),
            "flagged": s["flagged"],
            "recorded": s.get("recorded"),
            "actions": len(s.get("actions") or {}),
        }
        for s in steps
    ]
    return pd.DataFrame(rows, columns=STRIP_COLUMNS)


_REPORTED: tuple[str, ...] = ("step", "tool_step", "recorded", "samples", "errors", "uncertainty")
_REPORTED += ("uncertainty_low", "uncertainty_high", "entropy", "altk_uncertainty", "altk_metric", "flagged")


def step_report(log: RunLog) -> dict[str, Any] | None:
    """The `step_uncertainty` entry of `analyze --json` for a log that carries step scores (a
    RerunLens step resample or an imported ALTK-Evolve score card); None for any other log.

    Each step: what the recorded round did, how many samples were scored, the uncertainty with its
    95 % interval over the samples, whether it was flagged, and ALTK-Evolve's own score where the
    card brought one (`altk_uncertainty`, its metric).
    """
    steps = _stored_steps(log)
    if steps is None:
        return None
    block: dict[str, Any] = log.resample  # type: ignore[assignment]
    out = {
        "task_id": None if block.get("task_id") is None else str(block["task_id"]),
        "round": block.get("round"),
        "source": block.get("source") or "rerunlens",
        "cancelled": bool(block.get("cancelled")),
        "steps": [{k: s[k] for k in _REPORTED if k in s} for s in steps],
    }
    if "altk_aggregate_uncertainty" in block:
        out["altk_aggregate_uncertainty"] = block["altk_aggregate_uncertainty"]
        out["altk_aggregation"] = block.get("aggregation")
    return out


def _stored_steps(log: RunLog) -> list[dict[str, Any]] | None:
    """The steps of the log's `resample` block, each with its interval widened as `score_step`
    widens it now (older files were not) and whether it was flagged; None without such a block."""
    block = log.resample
    if not isinstance(block, dict) or not isinstance(block.get("steps"), list):
        return None
    flagged = set(block.get("flagged") or [])
    out = []
    for step in block["steps"]:
        if isinstance(step, dict):
            low, high = _stored_bounds(step)
            out.append(
                {
                    **step,
                    "uncertainty_low": low,
                    "uncertainty_high": high,
                    "flagged": step.get("step") in flagged,
                }
            )
    return out


def _stored_bounds(step: dict[str, Any]) -> tuple[float | None, float | None]:
    """A stored step's interval, widened as `score_step` widens it now (older files were not)."""
    point, samples = step.get("uncertainty"), step.get("samples")
    if not isinstance(point, int | float) or isinstance(point, bool):
        return step.get("uncertainty_low"), step.get("uncertainty_high")
    count = samples if isinstance(samples, int) and not isinstance(samples, bool) else None
    return widened(float(point), step.get("uncertainty_low"), step.get("uncertainty_high"), count)


def resample_of(log: RunLog) -> tuple[str | None, str | None]:
    """(parent run id, task id) of a resample log; (None, None) for any other log."""
    block = log.resample
    if not isinstance(block, dict):
        return None, None
    return log.parent_run_id, str(block.get("task_id"))
