"""One task's rounds as a table that fits: the columns that vary between its rounds, and the
values every round shares said once beside it.

A route field (key, base URL, served model, backend) that is the same in every round of the task
tells nothing beside each answer; written once it frees the width for the ones that changed.
"""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

from analyzer.log.field_labels import field_label

ALWAYS = ("round", "cluster", "status", "answer")
"""Shown whatever they hold."""

WHEN_THEY_VARY = (
    "key_fingerprint",
    "base_url",
    "served_model",
    "system_fingerprint",
    "n_attempts",
)
"""Shown as a column when they differ between the task's rounds, else named once."""

WHEN_RECORDED = ("total_tokens", "success", "latency_ms", "error_message")
"""Shown as a column when any round recorded a value."""


class RoundTable(NamedTuple):
    """The rows to show and what every round shared."""

    rows: pd.DataFrame
    shared: dict[str, str]
    """Label to the value every round had (e.g. `{"base URL": "http://..."}`)."""


def round_table(results: pd.DataFrame, task_id: str) -> RoundTable:
    """The task's results, one row per round, with only the columns that tell rounds apart."""
    rows = results[results["task_id"].astype(str) == task_id]
    columns = [c for c in ALWAYS if c in rows.columns]
    shared: dict[str, str] = {}
    for name in WHEN_THEY_VARY:
        if name not in rows.columns:
            continue
        values = rows[name].dropna().astype(str).unique()
        if len(values) > 1 or (len(values) == 1 and rows[name].isna().any()):
            columns.append(name)
        elif len(values) == 1:
            shared[field_label(name)] = str(values[0])
    columns += [c for c in WHEN_RECORDED if c in rows.columns and rows[c].notna().any()]
    return RoundTable(rows[columns].reset_index(drop=True), shared)
