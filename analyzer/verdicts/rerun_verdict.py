"""The re-run verdict per task, with chance taken into account.

A task that was inconsistent and agrees on K rounds of a pinned route points at the route only beyond
chance. Two figures say how far:

- `chance_p` (`stats.chance_agreement`): the probability that K rounds agree if nothing changed, from
  the parent's answer shares under a Dirichlet posterior predictive. It ignores which route gave
  which answer, and it is what the headline sums ("by chance alone about N would have").
- `p_value`, the evidence a `route` verdict is held to: the exact permutation test of answers against
  routes (`stats.route_alignment_p`) over the parent's rounds and the re-run's together. Under "the
  route does not matter" every round is exchangeable, whichever log it is in; the parent's own split
  by route and the re-run's agreement both count, as strongly as their rounds allow. A parent round
  with no recorded route counts as a route of its own.

The parent's own evidence comes first:

- `model` when the parent already disagreed within one route (that proves model noise whatever the
  re-run shows), or when the re-run still disagrees within one route;
- `route` when the re-run agrees within its routes and `p_value` <= 5 %;
- `inconclusive` otherwise, with the rounds that would decide it (`stats.rounds_needed`);
- `stable` (consistent before and after), `regressed` (consistent before, not after) and
  `unmeasured` (fewer than two answers after) as before.

K counts the rounds on the re-run's most used route tuple (rounds a load balancer spilled elsewhere are
named in the reason); answers must be labelled alike in both logs (e.g. by answer key), and routes by
their tuple, so that the same answer or route in both logs is one label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Literal, NamedTuple

from analyzer.metrics.attribution import Round, attribute_rounds
from analyzer.metrics.stats import ALPHA, ROUNDS_CAP, chance_agreement, rounds_needed, route_alignment_p

Verdict = Literal["route", "model", "inconclusive", "stable", "regressed", "unmeasured"]
"""What a task's before/after says about the cause of its inconsistency."""


class TaskVerdict(NamedTuple):
    """One task's verdict and the figures behind it."""

    verdict: Verdict
    """The verdict."""
    chance_p: float | None
    """P(the re-run's agreeing rounds agree by chance if nothing changed); None when it did not agree."""
    p_value: float | None
    """The evidence the `route` verdict is held to (chance, combined with the parent's split)."""
    rounds_needed: int | None
    """Rounds of agreement that would be significant at 5 % (None past the cap or when moot)."""
    reason: str
    """Why, in a few words."""


def rerun_verdict(parent: Sequence[Round], rerun: Sequence[Round]) -> TaskVerdict:
    """The verdict of one task from its answered rounds before (with routes) and after (a pure function).

    Args:
        parent: The parent's answered rounds of the task (answers as cluster labels of the parent).
        rerun: The re-run's answered rounds (answers as cluster labels of the re-run).
    """
    if len(rerun) < 2:
        return TaskVerdict("unmeasured", None, None, None, "fewer than two answers after the re-run")
    after_answers = {r.answer for r in rerun}
    counts = list(Counter(r.answer for r in parent).values())
    if len(parent) < 2 or len(counts) == 1:
        if len(after_answers) == 1:
            return TaskVerdict("stable", None, None, None, "consistent before and after")
        word: Verdict = "regressed" if len(parent) >= 2 else "model"
        return TaskVerdict(word, None, None, None, "inconsistent on the pinned route")
    finding = attribute_rounds(parent)
    pinned, spilled = _pinned_rounds(rerun)
    agreed = len({r.answer for r in pinned}) == 1
    chance = chance_agreement(counts, len(pinned)) if agreed else None
    if finding.cause == "model":
        return TaskVerdict("model", chance, None, None, "the parent already disagreed within one route")
    if not agreed:
        return TaskVerdict("model", None, None, None, "still inconsistent on the pinned route")
    before_routes = [r.route for r in parent]
    need = rounds_needed(before_routes, [r.answer for r in parent])
    labels = [r if r is not None else ("unrecorded", i) for i, r in enumerate(before_routes)]
    p = route_alignment_p(
        [*labels, *[r.route if r.route is not None else ("pinned",) for r in rerun]],
        [*(r.answer for r in parent), *(r.answer for r in rerun)],
    )
    left_out = f"; {spilled} round(s) served by another route" if spilled else ""
    head = f"{len(pinned)} rounds agree on the pinned route (alone, by chance {chance:.0%} of the time)"
    if p <= ALPHA:
        return TaskVerdict("route", chance, p, need, f"{head}; answers follow routes, p = {p:.3f}{left_out}")
    decide = (
        f"{need} agreeing rounds would decide" if need else f"more than {ROUNDS_CAP} rounds would be needed"
    )
    return TaskVerdict("inconclusive", chance, p, need, f"{head}; p = {p:.2f}, {decide}{left_out}")


def _pinned_rounds(rerun: Sequence[Round]) -> tuple[list[Round], int]:
    """The rounds on the re-run's most used route (all rounds when none recorded) and how many were not."""
    by_route: dict[Hashable, list[Round]] = {}
    for r in rerun:
        by_route.setdefault(r.route, []).append(r)
    split = [rows for rows in by_route.values() if len({r.answer for r in rows}) > 1]
    if split:  # a disagreement within any route of the re-run: report that route
        return split[0], len(rerun) - len(split[0])
    main = max(by_route.values(), key=len)
    return main, len(rerun) - len(main)
