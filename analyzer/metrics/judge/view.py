"""One task's judge clusters as a reader sees them: each answer, its representative, and the
judge's verdict and reason for joining it (read back from the verdict cache: free after a pass)."""

from __future__ import annotations

from collections import Counter

import pandas as pd

from analyzer.metrics.judge.cache import DecisionCache, cached
from analyzer.metrics.judge.cluster import judge_clusters
from analyzer.metrics.judge.key import NOT_RECORDED, JudgeOptions, band
from analyzer.metrics.normalized import normalized_key

__all__ = ["JUDGED_COLUMNS", "judged_members"]

JUDGED_COLUMNS = ["cluster", "representative", "answer", "results", "verdict", "reason"]


def judged_members(
    results: pd.DataFrame, task_id: str, options: JudgeOptions, prompt: str | None
) -> pd.DataFrame:
    """Every distinct answer of one task with its representative and the verdict that joined it.

    Args:
        results: `Analysis.results` (needs `task_id`, `status`, `answer`).
        task_id: The task, compared as a string.
        options: The judge options the analysis ran with.
        prompt: The task's prompt (None when the log does not record it).
    """
    rows = results[(results["task_id"].astype(str) == str(task_id)) & (results["status"] == "ok")]
    answers = [normalized_key(a) for a in rows["answer"].tolist() if isinstance(a, str) and a.strip()]
    if options.decide is None or len(set(answers)) < 2:
        return pd.DataFrame(columns=JUDGED_COLUMNS)
    decide = cached(options.model, options.decide, options.decisions or DecisionCache())
    certain, _ = band(options, {str(task_id): answers})
    task = judge_clusters(prompt or NOT_RECORDED, answers, decide, certain)
    counts = Counter(answers)
    order = {m.answer: i for i, m in enumerate(m for m in task.members if m.verdict is None)}
    return pd.DataFrame(
        [
            {
                "cluster": order[m.representative],
                "representative": m.representative,
                "answer": m.answer,
                "results": counts[m.answer],
                "verdict": "representative" if m.verdict is None else ("same" if m.verdict.same else "apart"),
                "reason": "" if m.verdict is None else m.verdict.reason,
            }
            for m in task.members
        ],
        columns=JUDGED_COLUMNS,
    ).sort_values(["cluster"], kind="stable", ignore_index=True)
