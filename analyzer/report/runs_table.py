"""The runs table: one row per log to pick from, with its label, date, size, headline and parent.

The parent is named by its label when that log is among the listed ones (else by its run id), so
a re-run reads `re-run of A: baseline`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import pandas as pd

import analyzer.numbers as numbers
from analyzer.report.compare_view import short_names

if TYPE_CHECKING:
    from analyzer.analysis import Analysis

COLUMNS = ("file", "log", "date", "tasks x rounds", "headline", "parent")
"""`log` is the label, or the file name for a log without one; `file` is how the sidebar names it."""


class ListedLog(NamedTuple):
    """One log as the sidebar names it, and its analysis (None: it could not be read)."""

    name: str
    analysis: Analysis | None
    problem: str = ""


def headline(analysis: Analysis) -> str:
    """`13 of 30 tasks disagree · gap 43.3 pp` (the answer gap), or for a log where no task has two answers,
    what it holds."""
    h = analysis.headline
    if not h.tasks_measured:
        return f"no task with two answers ({numbers.counted(h.results, 'result')})"
    inconsistent = h.tasks_measured - h.consistent_tasks
    tasks = numbers.counted(h.tasks_measured, "task")
    return f"{numbers.count(inconsistent)} of {tasks} disagree · gap {numbers.pp(h.answer_gap_pp)}"


def _kind(analysis: Analysis) -> str:
    log = analysis.log
    return "resample of" if log.resample else ("re-run of" if log.rerun_of else "made from")


def runs_table(logs: Sequence[ListedLog]) -> pd.DataFrame:
    """One row per log, newest first (logs without a date last, in the order given)."""
    labels = {
        a.log.run_id: short_names([a.log.display_label(name)])[0]
        for name, a, _ in logs
        if a is not None and a.log.run_id
    }
    rows = []
    for order, (name, a, problem) in enumerate(logs):
        if a is None:
            rows.append(
                {
                    "file": name,
                    "log": name,
                    "date": None,
                    "tasks x rounds": "",
                    "headline": problem,
                    "parent": "",
                    "_order": order,
                }
            )
            continue
        log, h = a.log, a.headline
        parent = log.parent_run_id
        rows.append(
            {
                "file": name,
                "log": log.display_label(name.rsplit("/", 1)[-1]),
                "date": pd.Timestamp(log.created_at) if log.created_at else None,
                "tasks x rounds": f"{numbers.count(h.tasks)} x {numbers.count(h.rounds)}",
                "headline": headline(a),
                "parent": "" if not parent else f"{_kind(a)} {labels.get(parent, parent)}",
                "_order": order,
            }
        )
    frame = pd.DataFrame(rows, columns=[*COLUMNS, "_order"])
    frame["date"] = pd.to_datetime(frame["date"], utc=True)
    frame = frame.sort_values(["date", "_order"], ascending=[False, True], na_position="last", kind="stable")
    return frame.drop(columns="_order").reset_index(drop=True)
