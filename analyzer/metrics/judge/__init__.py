"""The `judge` answer key's clustering: a task's distinct answers grouped by a model's pairwise
verdicts (`decide(prompt, a, b)`), and the on-disk cache of those verdicts. The HTTP judge that
answers `decide` belongs to the runner; this package never calls a model itself."""

from analyzer.metrics.judge.cache import DecisionCache, cached
from analyzer.metrics.judge.cluster import Decision, JudgedMember, JudgedTask, JudgeFailed, judge_clusters

__all__ = [
    "Decision",
    "DecisionCache",
    "JudgeFailed",
    "JudgedMember",
    "JudgedTask",
    "cached",
    "judge_clusters",
]
