"""The Routes page's tables with human headers, in a width that fits: the route tuples with only
the fields that tell them apart (the shared ones said once), and per drifted task one column per
field that changed, listing the values it took.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from analyzer.log.field_labels import field_label
from analyzer.report.task_rounds import RoundTable

if TYPE_CHECKING:
    from analyzer.analysis import Analysis

COUNTS = ("results", "attempts")


def route_tuples(routes: pd.DataFrame) -> RoundTable:
    """The route tuples (most used first) with the fields that differ between them, human headers;
    the fields every tuple shares in `shared`. A single route comes as `field` and `value` rows: its
    dozen fields down the page, not across it."""
    shared: dict[str, str] = {}
    keep: list[str] = []
    for name in routes.columns:
        values = routes[name].dropna().astype(str).unique()
        if name in COUNTS or len(values) > 1 or (len(values) == 1 and routes[name].isna().any()):
            keep.append(name)
        elif len(values) == 1 and len(routes) > 1:
            shared[field_label(name)] = str(values[0])
        elif len(values) == 1:
            keep.append(name)
    rows = routes[keep].rename(columns=field_label).reset_index(drop=True)
    if len(rows) == 1:
        rows = pd.DataFrame({"field": rows.columns, "value": rows.iloc[0].tolist()})
    return RoundTable(rows, shared)


def drift_by_field(analysis: Analysis) -> pd.DataFrame:
    """Per drifted task, one column per field that changed within some task: the values the task
    saw, first seen first (empty where the task kept one value)."""
    fields = [f for f in analysis.headline.route.drifted_fields if f in analysis.results.columns]
    drifted = analysis.tasks.loc[analysis.tasks["drifted"].fillna(False).astype(bool), "task_id"].astype(str)
    results = analysis.results.assign(task_id=analysis.results["task_id"].astype(str))
    results = results[results["task_id"].isin(set(drifted))]
    out = pd.DataFrame({"task": drifted.tolist()})
    for field in fields:
        seen = results.groupby("task_id", sort=False)[field].agg(
            lambda v: ", ".join(dict.fromkeys(v.dropna().astype(str))) if v.dropna().nunique() > 1 else ""
        )
        column = out["task"].map(seen).fillna("")
        if column.astype(bool).any():  # a field that changed only between tasks says nothing here
            out[field_label(field)] = column
    return out
