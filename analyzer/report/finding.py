"""A log's finding in one sentence and one chart's worth of counts (Overview's first screen).

It reads only what `Analysis.report()` holds (the JSON report): the measured and consistent tasks,
the rounds, each inconsistent task's `attribution` entry (its `cause`, and a `q_value` when the
analysis adjusts for many tasks, else a `p_value`) and, for agent logs, the `trajectories` entry.
A cause it does not know by name is still counted, under its own word, so a wider verdict
vocabulary needs no change here.

Every count carries its uncertainty: the share of tasks that disagree comes with the analysis' own
95 % interval of the answer gap (the one every other figure of the page and the reports quotes),
and a cause that is tested (a p- or q-value per task) says how many of its tasks pass the
threshold. A cause without a test (answers that differ within one route) is a plain observation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

import analyzer.numbers as numbers
from analyzer.metrics.route_factors import SIDED_CAUSES, sided_cause
from analyzer.metrics.stats import FDR_Q, reaches

THRESHOLD = FDR_Q
"""The p- (or q-) value at or below which a tested cause counts as beyond chance: the analysis' own
rule (`stats.reaches`: a route call passes at q <= 0.05)."""

CAUSE_WORDS: dict[str, tuple[str, str]] = {
    "route": (
        "follows your route (key, base URL or parameters)",
        "follow your route (key, base URL or parameters)",
    ),
    "backend": (
        "follows the provider's backend (served model or fingerprint)",
        "follow the provider's backend (served model or fingerprint)",
    ),
    "route or backend": (
        "follows your route and the backend together",
        "follow your route and the backend together",
    ),
    "both": ("varies with the route and within it", "vary with the route and within it"),
    "model": ("varies within one route (the model)", "vary within one route (the model)"),
    "unclear": ("cannot be told apart from this log", "cannot be told apart from this log"),
    "inconclusive": (
        "is inconclusive: too few rounds to tell the route from the model",
        "are inconclusive: too few rounds to tell the route from the model",
    ),
    "unmeasured": (
        "has no measured cause: its rounds record no key or base URL to test",
        "have no measured cause: their rounds record no key or base URL to test",
    ),
}
"""What the sentence says of one task of each cause, and of several; an unknown cause reads
`read as <cause>`."""

ORDER = (*SIDED_CAUSES, "unclear")
UNDECIDED = frozenset({"inconclusive", "unclear", "unmeasured"})
"""Causes that are the absence of a finding: their p- or q-values are not counted as a test passed."""
UNTESTED = UNDECIDED | {"model"}
"""Causes said without a test of their own. A `model` task carries the p- or q-value of the route
factor that failed to explain it; "none beyond chance" beside it would read as a doubt about the
model, while the answers differing within one route is an observation."""


class CausePart(BaseModel):
    """One cause's inconsistent tasks."""

    cause: str
    tasks: int
    tested: bool
    """Its tasks carry a p- or q-value."""
    adjusted: bool
    """Those values are q-values (adjusted for testing many tasks at once)."""
    passing: int
    """Tasks whose value reaches `THRESHOLD` (0 when untested)."""
    task_ids: list[str]


class Bar(BaseModel):
    """One bar of the first screen's chart: tasks in one state."""

    label: str
    tasks: int
    kind: str
    """`consistent`, `passing`, `weak` (tested, not beyond chance), `untested`; `calls` (tool calls
    that differ between rounds) on an agent log's calls bar."""


class Chart(BaseModel):
    """One bar of the first screen: a title and its segments."""

    title: str
    bars: list[Bar]


ANSWERS_TITLE = "Measured tasks, by what their answers did"
CALLS_TITLE = "Agent tasks, by the tool calls of their rounds"


class Finding(BaseModel):
    """What the first screen says and draws."""

    sentence: str
    outcome: str | None = None
    """For a graded log, what its users look for first: Pass^n and Mean@n (and the mean reward or
    score) with their intervals; the first screen leads with it, the answers' sentence under it."""
    measured: int
    inconsistent: int
    rounds: int
    share_ci: list[float] | None
    """95 % interval of the share of measured tasks that disagree (0..1)."""
    parts: list[CausePart]
    bars: list[Bar]
    tool_calls: str | None = None
    """For agent logs: where the rounds' tool calls part, when answers agree more than calls do."""
    call_bars: list[Bar] = []
    """For agent logs: tasks whose rounds made the same tool calls, and those whose calls differ."""

    def undecided(self) -> int:
        """Inconsistent tasks the log alone cannot decide (`inconclusive`): a pinned re-run would."""
        return len(self.undecided_ids())

    def undecided_ids(self) -> list[str]:
        """Those tasks' ids: what a link to re-run them ticks, and nothing else."""
        return [t for p in self.parts if p.cause == "inconclusive" for t in p.task_ids]

    def charts(self) -> list[Chart]:
        """What the first screen draws: the answers' bar, unless every answer agrees while the tool
        calls differ (then the calls are the finding, and their bar is drawn instead); the calls' bar
        beside it when both vary."""
        calls_differ = any(b.kind == "calls" for b in self.call_bars)
        out = []
        if self.bars and (self.inconsistent or not calls_differ):
            out.append(Chart(title=ANSWERS_TITLE, bars=self.bars))
        if calls_differ:
            out.append(Chart(title=CALLS_TITLE, bars=self.call_bars))
        return out


def finding(report: Mapping[str, Any], *, graded_by_its_tool: bool = False) -> Finding:
    """The finding of one analysed log, from its JSON report (`Analysis.report()`).

    `graded_by_its_tool`: the log is another tool's graded run (tau-bench, Inspect, promptfoo), whose
    users look first for its success over rounds: the finding then leads with `outcome`."""
    measured = int(report.get("tasks_measured") or 0)
    consistent = int(report.get("consistent_tasks") or 0)
    rounds = int(report.get("rounds") or 0)
    inconsistent = measured - consistent
    gap_ci = report.get("answer_gap_ci")  # the analysis' own interval, so no page says another
    share_ci = [gap_ci[0] / 100.0, gap_ci[1] / 100.0] if measured and gap_ci else None
    parts = cause_parts(report.get("attribution") or [])
    calls = tool_call_sentence(report.get("trajectories"))
    sentence = _disagree(inconsistent, measured, rounds, share_ci) + "."
    tail = [_part_phrase(p) for p in parts]
    if tail:
        sentence += " Of them, " + "; ".join(tail) + "."
    if calls:
        sentence += " " + calls
    return Finding(
        sentence=sentence,
        outcome=outcome_sentence(report.get("outcome"), report.get("score")) if graded_by_its_tool else None,
        measured=measured,
        inconsistent=inconsistent,
        rounds=rounds,
        share_ci=share_ci,
        parts=parts,
        bars=_bars(consistent, inconsistent, parts),
        tool_calls=calls,
        call_bars=_call_bars(report.get("trajectories")),
    )


def outcome_sentence(outcome: Mapping[str, Any] | None, score: Mapping[str, Any] | None) -> str | None:
    """`Pass^4 20.0 % (95 % CI 0.5–71.6) of 5 graded tasks succeed in all 4 rounds; Mean@4 50.0 % ...`,
    from the report's `outcome` (and `score`); None for a log without grading."""
    if not outcome:
        return None
    n = int(outcome["n"])
    hat = (outcome.get("pass_hat_k") or {}).get(str(n), (outcome.get("pass_hat_k") or {}).get(n))
    mean = numbers.pct_ci(outcome["mean_at_n"], outcome.get("mean_at_n_ci"))
    text = (
        f"Pass^{n} {numbers.pct_ci(hat, outcome.get('pass_hat_k_ci'))} of "
        f"{numbers.counted(int(outcome['tasks']), 'graded task')} succeed in every one of "
        f"{numbers.counted(n, 'round')}; Mean@{n} {mean}"
    )
    if score:
        text += f"; mean {score['name']} {numbers.num_ci(score['mean'], score.get('mean_ci'), digits=3)}"
    return text + "."


def cause_parts(items: Sequence[Mapping[str, Any]]) -> list[CausePart]:
    """Inconsistent tasks by cause (known causes in `ORDER`, unknown ones after, by first seen)."""
    by: dict[str, list[Mapping[str, Any]]] = {}
    for item in items:  # a route cause split by whose side its factor is on: yours or the provider's
        by.setdefault(sided_cause(str(item.get("cause")), item.get("factor")), []).append(item)
    names = [c for c in ORDER if c in by] + [c for c in by if c not in ORDER]
    out = []
    for cause in names:
        group = by[cause]
        adjusted = any(i.get("q_value") is not None for i in group)
        values = [i.get("q_value") if adjusted else i.get("p_value") for i in group]
        tested = cause not in UNTESTED and any(v is not None for v in values)
        if any("passes" in i for i in group):  # the analysis says which pass its own threshold
            passing = sum(1 for i in group if i.get("passes"))
        else:
            passing = sum(1 for v in values if v is not None and reaches(float(v), THRESHOLD))
        ids = [str(i.get("task_id")) for i in group]
        out.append(
            CausePart(
                cause=cause, tasks=len(group), tested=tested, adjusted=adjusted, passing=passing, task_ids=ids
            )
        )
    return out


def _disagree(inconsistent: int, measured: int, rounds: int, share_ci: list[float] | None) -> str:
    if not measured:
        return "No task has two answers to compare"
    across = f" across {numbers.counted(rounds, 'round')}" if rounds else ""
    if not inconsistent:
        return f"All {numbers.counted(measured, 'task')} give one answer{across}"
    share = numbers.pct_ci(inconsistent / measured, share_ci)
    return f"{numbers.count(inconsistent)} of {numbers.counted(measured, 'task')} disagree{across}: {share}"


def _part_phrase(part: CausePart) -> str:
    one, many = CAUSE_WORDS.get(part.cause, (f"read as {part.cause}",) * 2)
    words = one if part.tasks == 1 else many
    phrase = f"{numbers.count(part.tasks)} {words}"
    if part.tested:
        name = "q" if part.adjusted else "p"
        after = " after FDR" if part.adjusted else ", unadjusted"
        if part.tasks == 1:
            beyond = "beyond chance" if part.passing else "not beyond chance"
        elif not part.passing:
            beyond = "none beyond chance"
        else:
            beyond = f"{'all' if part.passing == part.tasks else numbers.count(part.passing)} beyond chance"
        phrase += f", {beyond} ({name} ≤ {THRESHOLD:g}{after})"
    return phrase


def _bars(consistent: int, inconsistent: int, parts: list[CausePart]) -> list[Bar]:
    bars = [Bar(label="consistent", tasks=consistent, kind="consistent")]
    for part in parts:
        if part.tested:
            name = "q" if part.adjusted else "p"
            bars.append(
                Bar(label=f"{part.cause}, {name} ≤ {THRESHOLD:g}", tasks=part.passing, kind="passing")
            )
            bars.append(
                Bar(label=f"{part.cause}, not beyond chance", tasks=part.tasks - part.passing, kind="weak")
            )
        else:
            bars.append(Bar(label=part.cause, tasks=part.tasks, kind="untested"))
    unattributed = inconsistent - sum(p.tasks for p in parts)
    if unattributed > 0:
        bars.append(Bar(label="inconsistent, no cause given", tasks=unattributed, kind="untested"))
    return [b for b in bars if b.tasks > 0]


def _call_bars(traj: Mapping[str, Any] | None) -> list[Bar]:
    if not traj or not traj.get("tasks_measured"):
        return []
    same = int(traj.get("identical") or 0)
    bars = [
        Bar(label="same tool calls", tasks=same, kind="consistent"),
        Bar(label="tool calls differ", tasks=int(traj["tasks_measured"]) - same, kind="calls"),
    ]
    return [b for b in bars if b.tasks > 0]


def tool_call_sentence(traj: Mapping[str, Any] | None) -> str | None:
    """`Tool calls differ in 3 of 6 tasks: 50.0 % (95 % CI 18.8–81.2), first at tool call 2.`"""
    if not traj or not traj.get("tasks_measured"):
        return None
    measured = int(traj["tasks_measured"])
    differ = measured - int(traj.get("identical") or 0)
    if not differ:
        return f"Tool calls are the same in every round of all {numbers.counted(measured, 'task')}."
    share = traj.get("identical_share") or {}
    bounds = [1 - share["high"], 1 - share["low"]] if "low" in share and "high" in share else None
    steps = [int(k) for k in (traj.get("divergence_histogram") or {}) if str(k).isdigit()]
    first = f", first at {numbers.call_step(min(steps))}" if steps else ""
    return (
        f"Tool calls differ in {numbers.count(differ)} of {numbers.counted(measured, 'task')}: "
        f"{numbers.pct_ci(differ / measured, bounds)}{first}."
    )
