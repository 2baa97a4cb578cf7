"""One task across the open logs: in each log that holds it, its rounds, answers, consistency,
most common answer and cause, so a task can be followed from a baseline through its re-runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from analyzer.report.compare_view import short_names

if TYPE_CHECKING:
    from analyzer.analysis import Analysis

ANSWER_CHARS = 60


def task_history(logs: Sequence[tuple[str, Analysis]], task_id: str) -> pd.DataFrame:
    """One row per log (in the order given) that holds `task_id`: log (short name), full label,
    rounds, clusters, consistent, the most common answer and its share, the cause from the log."""
    names = short_names([label for label, _ in logs])
    rows = []
    for name, (label, a) in zip(names, logs, strict=True):
        tasks = a.tasks[a.tasks["task_id"].astype(str) == task_id]
        if tasks.empty:
            continue
        row = tasks.iloc[0]
        clusters = a.clusters[a.clusters["task_id"].astype(str) == task_id]
        top = clusters.sort_values("size", ascending=False, kind="stable").head(1)
        answer = "" if top.empty else " ".join(str(top["representative"].iloc[0]).split())
        cause = next((x.cause for x in a.headline.attribution if x.task_id == task_id), "")
        rows.append(
            {
                "log": name,
                "label": label,
                "rounds": int(row["n_results"]),
                "clusters": row["n_clusters"],
                "consistent": row["consistent"],
                "most common answer": answer[:ANSWER_CHARS] + ("…" if len(answer) > ANSWER_CHARS else ""),
                "its share": row["majority_share"],
                "cause": cause,
            }
        )
    columns = ["log", "label", "rounds", "clusters", "consistent", "most common answer", "its share", "cause"]
    return pd.DataFrame(rows, columns=columns)
