"""One task's semantic clusters as a reader sees them: representative, members, similarity, guard."""

from __future__ import annotations

from collections import Counter

import pandas as pd

from analyzer.metrics.normalized import normalized_key
from analyzer.metrics.semantic.key import PairJudge, SemanticOptions, semantic_clusters
from analyzer.metrics.semantic.text import embedding_text

__all__ = ["MEMBER_COLUMNS", "semantic_members"]

MEMBER_COLUMNS = ["cluster", "representative", "answer", "similarity", "results", "kept_apart_by"]


def semantic_members(results: pd.DataFrame, task_id: str, options: SemanticOptions) -> pd.DataFrame:
    """Every distinct answer of one task with its cluster's representative and its similarity to it.

    The same rule as the `semantic` key, so the rows say why answers were joined. `cluster` 0 is
    the largest (by results); `kept_apart_by` names the guard that kept a representative from the
    nearest other cluster (`negation`, `numbers`, ... or the differing words), when one did.

    Args:
        results: `Analysis.results` (needs `task_id`, `status`, `answer`).
        task_id: The task, compared as a string.
        options: The threshold and embedder the analysis used.
    """
    rows = results[(results["task_id"].astype(str) == str(task_id)) & (results["status"] == "ok")]
    answers = [normalized_key(a) if isinstance(a, str) else "" for a in rows["answer"].tolist()]
    if not answers:
        return pd.DataFrame(columns=MEMBER_COLUMNS)
    cache = options.cache()
    distinct = list(dict.fromkeys(answers))
    members = semantic_clusters(
        answers,
        cache.vectors([embedding_text(a) for a in distinct]),
        PairJudge(cache, options.threshold, options.slot_threshold, options.across()),
    )
    counts = Counter(answers)
    size: Counter[str] = Counter()
    for m in members:
        size[m.representative] += counts[m.answer]
    order = {rep: i for i, rep in enumerate(sorted(size, key=lambda r: -size[r]))}
    frame = pd.DataFrame(
        [
            {
                "cluster": order[m.representative],
                "representative": m.representative,
                "answer": m.answer,
                "similarity": m.similarity,
                "results": counts[m.answer],
                "kept_apart_by": m.blocked,
            }
            for m in members
        ],
        columns=MEMBER_COLUMNS,
    )
    is_rep = frame["answer"] == frame["representative"]
    frame = frame.assign(_rep=~is_rep).sort_values(
        ["cluster", "_rep", "similarity"], ascending=[True, True, False]
    )
    return frame.drop(columns="_rep").reset_index(drop=True)
