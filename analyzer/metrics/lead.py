"""What an agent log's headline leads with: the answer gap and the tool-call gap side by side, and which
of the two varies.

An agent's closing words may repeat while what it did does not (or the other way round); a headline
that shows only the answer gap under the default key hides the other. The tool-call gap is the share
of tasks (with 2+ rounds that recorded a trajectory) whose rounds did not all make the same calls in
the same order, in points: 100 - the trajectories' identical share, with its Wilson interval.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

import analyzer.numbers as numbers
from analyzer.metrics.stats import wilson_interval
from analyzer.metrics.trajectories import Trajectories

Varies = Literal["answers", "tool_calls", "both", "neither", "unmeasured"]


class Lead(BaseModel):
    """The two gaps of an agent log and what varies."""

    answer_gap_pp: float | None
    """The answer gap under the key used, in points."""
    tool_call_gap_pp: float | None
    """Tasks whose rounds made different tool calls / tasks measured, in points."""
    tool_call_gap_ci: list[float] | None
    """Its 95 % Wilson interval over tasks, in points."""
    tool_call_tasks: int
    """Tasks with at least two rounds that recorded a trajectory."""
    varies: Varies
    """Which of the two is above 0."""
    sentence: str
    """The report's first line about them."""


def agent_lead(answer_gap_pp: float | None, key: str, trajectories: Trajectories | None) -> Lead | None:
    """Both gaps and what varies; None for a log without tool calls (no agent to lead with).

    Args:
        answer_gap_pp: The headline answer gap (None when no task has two answers).
        key: The answer key it was measured with.
        trajectories: `measure_trajectories(log)`.
    """
    if trajectories is None:
        return None
    report = trajectories.report()
    if not report["tasks"]:
        return None
    measured, identical = int(report["tasks_measured"]), int(report["identical"])
    tool_gap = ci = None
    if measured:
        tool_gap = 100.0 * (measured - identical) / measured
        low, high = wilson_interval(measured - identical, measured)
        ci = [round(100.0 * low, 12), round(100.0 * high, 12)]
    varies = _varies(answer_gap_pp, tool_gap)
    return Lead(
        answer_gap_pp=answer_gap_pp,
        tool_call_gap_pp=tool_gap,
        tool_call_gap_ci=ci,
        tool_call_tasks=measured,
        varies=varies,
        sentence=_sentence(varies, answer_gap_pp, numbers.pp_ci(tool_gap, ci), key),
    )


def _varies(answer: float | None, tools: float | None) -> Varies:
    if answer is None or tools is None:
        return "unmeasured"
    if answer > 0 and tools > 0:
        return "both"
    if answer > 0:
        return "answers"
    return "tool_calls" if tools > 0 else "neither"


def _sentence(varies: Varies, answer: float | None, tools: str, key: str) -> str:
    gaps = f"answer gap {numbers.pp(answer)} (key {key}), tool-call gap {tools}"
    return {
        "tool_calls": f"answers agree but tool calls do not: {gaps}; `--key actions` clusters by tool calls",
        "answers": f"tool calls agree but answers do not: {gaps}",
        "both": f"answers and tool calls both vary: {gaps}",
        "neither": f"answers and tool calls agree: {gaps}",
        "unmeasured": f"{gaps}: one of them has no task with two rounds to compare",
    }[varies]
