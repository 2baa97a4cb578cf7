"""The re-run verdict per task, with chance taken into account.

A task that was inconsistent is tested again over the parent's rounds and the re-run's together:
each route factor (`attribution.Round.factors`, or the route label when the rounds carry none) and
one more, `re-run` (parent round or re-run round), by `metrics.factor_test` (an exact permutation
test per factor, Bonferroni over the distinct partitions). Under "nothing about the route matters"
every round is exchangeable, whichever log it is in, so the parent's split by route and the re-run's
agreement both count, as strongly as their rounds allow; and a parent that disagreed within one
recorded route can be overturned by a pinned re-run that agrees beyond chance (the `re-run` factor:
what the pinning removed, retries for one, was not recorded in the parent). The parent was re-run
because it disagreed, which makes its rounds look more varied than a fresh sample's; the p-value is
divided by the chance of that selection (`factor_test.selection_adjusted`), which keeps it valid.
Tasks of one re-run are held to a false discovery rate of 2 % (`stats.RERUN_FDR_Q`,
Benjamini-Hochberg in `before_after`).

- `route`: the test passes and the re-run agrees on its pinned route;
- `both`: the test passes and the re-run's answers still vary on the pinned route;
- `model`: the re-run disagrees on its pinned route and no factor passes;
- `inconclusive`: the re-run agrees but not beyond chance; `rounds_needed` agreeing pinned rounds
  would decide (`planner.plan_rerun`, with the re-run's other tasks in the false discovery rate), or
  the reason says no number up to the cap would and what re-run could;
- `stable` (consistent before and after), `regressed` (consistent before, not after) and
  `unmeasured` (fewer than two answers after).

`chance_p` is the probability that the re-run's K pinned rounds all agree if nothing changed
(`stats.chance_agreement`, from the parent's answer shares); it is given for every task that was
inconsistent, whatever the re-run showed, so the headline can sum it over all of them.

K counts the rounds on the re-run's most used route tuple (rounds a load balancer spilled elsewhere are
named in the reason); answers must be labelled alike in both logs (e.g. by answer key), and routes by
their tuple, so that the same answer or route in both logs is one label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Literal, NamedTuple

import analyzer.numbers as numbers
from analyzer.metrics.attribution import Round
from analyzer.metrics.factor_test import FactorTest, factor_test, selection_adjusted
from analyzer.metrics.route_factors import FACTORS, your_route
from analyzer.metrics.stats import RERUN_FDR_Q, chance_agreement, reaches
from analyzer.verdicts.planner import TaskPlan, plan_rerun, plan_sentence

Verdict = Literal["route", "both", "model", "inconclusive", "stable", "regressed", "unmeasured"]
"""What a task's before/after says about the cause of its inconsistency."""


class TaskVerdict(NamedTuple):
    """One task's verdict and the figures behind it."""

    verdict: Verdict
    """The verdict."""
    chance_p: float | None
    """P(the re-run's pinned rounds all agree by chance if nothing changed); for every task that was
    inconsistent before and has two answers after, None otherwise."""
    p_value: float | None
    """The combined test's p-value (parent and re-run together); None when no test was run."""
    rounds_needed: int | None
    """Agreeing rounds in all that would decide (None past the cap or when moot)."""
    reason: str
    """Why, in a few words."""
    factor: str | None = None
    """The route factor(s) the test names (`re-run` when the pinning itself made the difference)."""
    q_value: float | None = None
    """The Benjamini-Hochberg q-value over the re-run's tested tasks (the p-value for one task alone)."""


class Evidence(NamedTuple):
    """One task's before/after before the false discovery rate: what `settle` needs."""

    early: TaskVerdict | None
    """A verdict that needs no test (stable, regressed, unmeasured), else None."""
    test: FactorTest | None
    agreed: bool
    pinned: int
    spilled: int
    chance: float | None


def rerun_verdict(parent: Sequence[Round], rerun: Sequence[Round]) -> TaskVerdict:
    """The verdict of one task from its answered rounds before and after, held to `RERUN_FDR_Q` alone."""
    evidence = rerun_evidence(parent, rerun)
    plan = plan_rerun({"task": parent}, ["task"]).tasks if evidence.agreed else ()
    p_value = None if evidence.test is None else evidence.test.p_value
    return settle(evidence, p_value, plan[0] if plan else None)


def rerun_evidence(parent: Sequence[Round], rerun: Sequence[Round], beside: Sequence[Round] = ()) -> Evidence:
    """The combined test of one task (a pure function).

    Args:
        parent: The parent's answered rounds of the task (answers labelled alike in both logs).
        rerun: The re-run's answered rounds on its pinned route.
        beside: Rounds the re-run ran on the parent's own route (`rerun --with-parent-route`): re-run
            rounds in the test (not subject to the parent's selection), never counted as pinned.
    """
    if len(rerun) < 2:
        return _early("unmeasured", "fewer than two answers after the re-run")
    counts = list(Counter(r.answer for r in parent).values())
    if len(parent) < 2 or len(counts) == 1:
        if len({r.answer for r in rerun}) == 1:
            return _early("stable", "consistent before and after")
        return _early("regressed" if len(parent) >= 2 else "model", "inconsistent on the pinned route")
    pinned, spilled = _pinned_rounds(rerun)
    agreed = len({r.answer for r in pinned}) == 1
    chance = chance_agreement(counts, len(pinned))
    rounds = [*parent, *beside, *rerun]
    levels, names = _levels(parent, [*beside, *rerun])
    answers = [r.answer for r in rounds]
    test = factor_test(answers, levels, names)
    test = test._replace(p_value=selection_adjusted(test.p_value, answers, len(parent)))
    return Evidence(None, test, agreed, len(pinned), spilled, chance)


def settle(e: Evidence, q: float | None, plan: TaskPlan | None = None) -> TaskVerdict:
    """The verdict from a task's evidence, its q-value and its re-run plan (what would decide it)."""
    if e.early is not None or e.test is None or q is None:
        return e.early or TaskVerdict("unmeasured", None, None, None, "no test")
    test, factor = e.test, " and ".join(e.test.factors) or None
    left_out = f"; {numbers.counted(e.spilled, 'round')} served by another route" if e.spilled else ""
    odds = numbers.p_value(test.p_value) + (f", {numbers.p_value(q, 'q')}" if q != test.p_value else "")

    def made(verdict: Verdict, reason: str, need: int | None = None) -> TaskVerdict:
        return TaskVerdict(verdict, e.chance, test.p_value, need, reason + left_out, factor, q)

    if not e.agreed:
        if reaches(q, RERUN_FDR_Q):
            return made("both", f"answers follow the {factor} ({odds}) and still vary on the pinned route")
        return made("model", f"still inconsistent on the pinned route; no route factor explains it ({odds})")
    head = f"{e.pinned} rounds agree on the pinned route (alone, by chance {e.chance:.0%} of the time)"
    if reaches(q, RERUN_FDR_Q):
        return made("route", f"{head}; answers follow the {factor}, {odds}")
    decide = "a re-run of its own would decide" if plan is None else plan_sentence(plan)
    return made("inconclusive", f"{head}; {odds}; {decide}", None if plan is None else plan.rounds)


def _early(verdict: Verdict, reason: str) -> Evidence:
    return Evidence(TaskVerdict(verdict, None, None, None, reason), None, False, 0, 0, None)


def _levels(parent: Sequence[Round], rerun: Sequence[Round]) -> tuple[list[list[Hashable]], list[str]]:
    """Per factor, every round's level, and the `re-run` factor; route labels alone when a round
    carries no factors (a parent round with no route recorded counts as a route of its own)."""
    rounds = [*parent, *rerun]
    run: list[Hashable] = [*([0] * len(parent)), *([1] * len(rerun))]
    if all(r.factors and r.route is not None for r in rounds):
        return [*(list(col) for col in zip(*(r.factors for r in rounds), strict=True)), run], [
            *FACTORS,
            "re-run",
        ]
    labels = [r.route if r.route is not None else ("unrecorded", i) for i, r in enumerate(rounds)]
    return [labels, run], ["route", "re-run"]


def _pinned_rounds(rerun: Sequence[Round]) -> tuple[list[Round], int]:
    """The rounds on the re-run's most used route (all rounds when none recorded) and how many were not.

    The route here is the user's (key, base URL, parameters: `route_factors.YOUR_ROUTE`), what the
    re-run pinned: rounds the provider served from another backend are on the same pinned route, so
    answers that differ between backends make the task disagree on it, as the before/after table says.
    """
    by_route: dict[Hashable, list[Round]] = {}
    for r in rerun:
        by_route.setdefault(your_route(r.factors) if r.factors else r.route, []).append(r)
    split = [rows for rows in by_route.values() if len({r.answer for r in rows}) > 1]
    if split:  # a disagreement within any route of the re-run: report that route
        return split[0], len(rerun) - len(split[0])
    main = max(by_route.values(), key=len)
    return main, len(rerun) - len(main)
