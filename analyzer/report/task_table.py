"""The Tasks page's two read-only tables as a person reads them: human headers, one number style.

`task_table` is the task list (one row per task of `filter_tasks`), `cluster_table` one task's
answer clusters. Missing values read `—`; a task with fewer than two answers is neither consistent
nor inconsistent.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

import analyzer.numbers as numbers

TASK_HEADERS = {
    "task_id": "task",
    "cause": "cause",
    "n_results": "results",
    "n_clusters": "clusters",
    "consistent": "consistent",
    "majority_share": "majority",
    "success_rate": "success",
    "tokens_total": "tokens",
    "retries": "retries",
    "n_errors": "errors",
    "n_no_answer": "no answer",
    "drifted": "drifted",
}
"""Each task-table column shown, and its header."""
TASK_LEGEND = (
    "clusters: distinct answers under the answer key · majority: the largest cluster's share of the "
    "answers · no answer: results that gave none, never counted as agreeing"
)
"""What the task table's less obvious headers mean (the page shows it beside the table)."""

CLUSTER_HEADERS = {
    "cluster": "cluster",
    "size": "answers",
    "share": "share",
    "representative": "representative answer",
    "rounds": "rounds",
    "tokens_mean": "tokens per round",
    "successes": "successes",
}
"""Each cluster-table column shown, and its header (cluster 0 is the largest)."""

SHARES = ("majority_share", "success_rate", "share")
COUNTS = (
    "n_results",
    "n_clusters",
    "tokens_total",
    "retries",
    "n_errors",
    "n_no_answer",
    "size",
    "tokens_mean",
    "successes",
)


def task_table(tasks: pd.DataFrame) -> pd.DataFrame:
    """`tasks` (rows of the analysis' task table, with `cause`) as shown: text cells, human headers."""
    return _shown(tasks, TASK_HEADERS)


def cluster_table(clusters: pd.DataFrame) -> pd.DataFrame:
    """One task's rows of the analysis' cluster table as shown. A table cell reads on one line, so
    where two answers would then read the same (they differ in white space inside them, which the
    exact key counts), their line breaks, tabs and runs of spaces are shown as marks."""
    shown = _shown(clusters, CLUSTER_HEADERS)
    column = CLUSTER_HEADERS["representative"]
    if column in shown.columns and shown[column].duplicated(keep=False).any():
        same = shown[column].duplicated(keep=False).to_numpy()
        raw = clusters["representative"].tolist()
        shown[column] = [
            visible_spaces(str(r)) if s else c for r, s, c in zip(raw, same, shown[column], strict=True)
        ]
    return shown


def visible_spaces(text: str) -> str:
    """`text` with its inner white space marked: ⏎ a line break, → a tab, · each space of a run."""
    text = text.replace("\r\n", "\n").replace("\n", "⏎").replace("\t", "→")
    return re.sub(r" {2,}", lambda run: "·" * len(run.group()), text)


def _shown(frame: pd.DataFrame, headers: dict[str, str]) -> pd.DataFrame:
    columns = [c for c in headers if c in frame.columns]
    return pd.DataFrame(
        {headers[c]: [_cell(c, v) for v in frame[c]] for c in columns}, columns=[headers[c] for c in columns]
    )


def _cell(column: str, value: object) -> str:
    if numbers.missing(value):
        return numbers.NONE
    if column in SHARES:
        return numbers.pct(float(value))  # type: ignore[arg-type]
    if column in COUNTS:
        return numbers.count(float(value))  # type: ignore[arg-type]
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    return " ".join(str(value).split())


def pick_labels(tasks: pd.DataFrame) -> list[str]:
    """Each task as a task picker lists it: `shop-002 · 2 clusters · route` (its cause, if any)."""
    causes = tasks["cause"] if "cause" in tasks.columns else pd.Series("", index=tasks.index)
    return [
        " · ".join(
            [str(task), numbers.counted(int(n), "cluster") if n else "no answer"]
            + ([str(cause)] if cause else [])
        )
        for task, n, cause in zip(tasks["task_id"], tasks["n_clusters"].fillna(0), causes, strict=True)
    ]


def first_to_open(tasks: pd.DataFrame) -> str | None:
    """The task a table opens on: its first inconsistent task, else its first; None when empty."""
    if tasks.empty:
        return None
    unstable = tasks.loc[tasks["consistent"].eq(False).fillna(False).astype(bool), "task_id"]
    return str((unstable if len(unstable) else tasks["task_id"]).iloc[0])


def table_window(rows: int, at: int, size: int) -> tuple[int, int]:
    """The rows [start, stop) of a `rows`-row table that a page draws when it draws at most `size`:
    all of them, or `size` rows that hold row `at` a quarter of the way down (a few rows above it)."""
    if rows <= size:
        return 0, rows
    start = min(max(at - size // 4, 0), rows - size)
    return start, start + size
