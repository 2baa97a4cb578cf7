"""Leader clustering by a judge's pairwise verdicts.

A task's distinct answers are visited most frequent first (ties by first appearance). Each is put to
the representatives in turn, in the order they were made, and joins the first one that, in the
judge's verdict, says the same thing; with none, it starts a cluster. So a task with k distinct
answers costs at most k x (clusters) verdicts. `certain(a, b)` may settle a pair without a call
(True: the same, False: apart, None: ask), the local encoder's band. A reply that is not a clear
yes or no is an error for that pair, counted, never taken as either; a judge that fails
(`JudgeFailed`) leaves the task's answers apart, each its own cluster, and the task says why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from analyzer.errors import RerunLensError

__all__ = ["Decide", "Decision", "JudgeFailed", "JudgedMember", "JudgedTask", "judge_clusters"]


class JudgeFailed(RerunLensError):
    """The judge could not be asked (endpoint down, refused, over its limit): one line, no key."""


@dataclass(frozen=True)
class Decision:
    """One verdict: `same` is None when the reply was not a clear yes or no (then `reason` says what
    came back)."""

    same: bool | None
    reason: str


Decide = Callable[[str, str, str], Decision]
"""`decide(prompt, representative, answer)`: whether the two answers to `prompt` say the same thing."""


@dataclass(frozen=True)
class JudgedMember:
    """One distinct answer's place, and the verdict that put it there (None for a representative)."""

    answer: str
    representative: str
    verdict: Decision | None = None


@dataclass
class JudgedTask:
    """One task's clusters and what they cost."""

    members: list[JudgedMember] = field(default_factory=list)
    calls: int = 0
    """Verdicts asked of `decide` (a cached verdict is asked too: the cache answers it)."""
    settled_locally: int = 0
    """Pairs `certain` settled without asking."""
    unclear: int = 0
    """Replies that were not a clear yes or no: those pairs were kept apart."""
    failed: str | None = None
    """Why the judge failed, when it did: the task's answers are then each their own cluster."""


def judge_clusters(
    prompt: str,
    answers: Sequence[str],
    decide: Decide,
    certain: Callable[[str, str], bool | None] | None = None,
) -> JudgedTask:
    """Cluster one task's answers (repeats count towards frequency) by the judge's verdicts.

    Args:
        prompt: The task's prompt, given to the judge as context.
        answers: The task's normalized answers, one per result.
        decide: The judge.
        certain: Settles a pair without a call when the local encoder is sure (None: always ask).
    """
    counts = Counter(answers)
    ordered = sorted(counts, key=lambda a: -counts[a])
    task = JudgedTask()
    reps: list[str] = []
    try:
        for answer in ordered:
            joined = _first_same(prompt, answer, reps, decide, certain, task)
            if joined is None:
                reps.append(answer)
                task.members.append(JudgedMember(answer, answer))
            else:
                task.members.append(JudgedMember(answer, joined[0], joined[1]))
    except JudgeFailed as exc:
        task.failed = str(exc)
        task.members = [JudgedMember(a, a) for a in ordered]
    return task


def _first_same(
    prompt: str,
    answer: str,
    reps: list[str],
    decide: Decide,
    certain: Callable[[str, str], bool | None] | None,
    task: JudgedTask,
) -> tuple[str, Decision] | None:
    """The first representative the answer says the same thing as, with the verdict."""
    for rep in reps:
        settled = certain(rep, answer) if certain is not None else None
        if settled is not None:
            task.settled_locally += 1
            if settled:
                return rep, Decision(True, "the local encoder is certain")
            continue
        task.calls += 1
        verdict = decide(prompt, rep, answer)
        if verdict.same is None:
            task.unclear += 1
        elif verdict.same:
            return rep, verdict
    return None
