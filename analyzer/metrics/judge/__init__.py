"""The `judge` answer key: a task's distinct answers grouped by a chat model's pairwise verdicts.

`cluster` holds the leader clustering over `decide(prompt, a, b)`, `cache` the verdicts kept on disk,
`prompt` what the judge is asked and how its reply is read, `key` the answer key itself (the local
encoder's band, the plan shown before any call, the notes), `view` one task's clusters with each
verdict and reason. The HTTP judge that answers `decide` is the runner's (`analyzer.runner.judge`);
this package never calls a model itself.
"""

from analyzer.metrics.judge.cache import DecisionCache, cached
from analyzer.metrics.judge.cluster import Decision, JudgedMember, JudgedTask, JudgeFailed, judge_clusters
from analyzer.metrics.judge.key import (
    DEFAULT_BAND,
    JudgeOptions,
    JudgePlan,
    distinct_by_task,
    judge_keys,
    judge_plan,
    task_prompts,
)
from analyzer.metrics.judge.view import JUDGED_COLUMNS, judged_members

__all__ = [
    "DEFAULT_BAND",
    "JUDGED_COLUMNS",
    "Decision",
    "DecisionCache",
    "JudgeFailed",
    "JudgeOptions",
    "JudgePlan",
    "JudgedMember",
    "JudgedTask",
    "cached",
    "distinct_by_task",
    "judge_clusters",
    "judge_keys",
    "judge_plan",
    "judged_members",
    "task_prompts",
]
