"""The task x round grid of answers: each cell's answer cluster (its colour), the route that
served it (its mark: R1, R2, ... numbered by first use in the log) and its answer for hovering,
with a legend saying what each route mark stands for.

A route is the tuple of route factors the attribution tests (`metrics.route_factors.factor_columns`:
key and base URL of the attempt that answered, parameters, backend, retry state), so the marks split
cells exactly where the cause from the log does. The legend names only the fields that differ
between the routes shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import pandas as pd

from analyzer.metrics.attribution import route_codes
from analyzer.metrics.route_factors import FACTORS, factor_columns

if TYPE_CHECKING:
    from analyzer.analysis import Analysis

ANSWER_CHARS = 80


class AnswerGrid(NamedTuple):
    """Task x round frames, index the task ids asked for and columns the rounds."""

    clusters: pd.DataFrame
    """Cluster numbers (NaN: no answer)."""
    routes: pd.DataFrame
    """Route marks (`R1`, ...; '' where no route was recorded)."""
    answers: pd.DataFrame
    """Answers, shortened to one line."""
    legend: list[tuple[str, str]]
    """(mark, what it stands for), in mark order."""


def answer_grid(analysis: Analysis, task_ids: list[str]) -> AnswerGrid:
    """The grid of `task_ids`' results (one cell per task and round)."""
    results = analysis.results.reset_index(drop=True)
    factors = factor_columns(results, analysis.attempts)  # once: the marks and their legend
    codes = pd.Series(route_codes(factors), index=results.index)
    order = {c: i + 1 for i, c in enumerate(dict.fromkeys(codes[codes >= 0]))}  # first use, log-wide
    marks = codes.map(lambda c: f"R{order[c]}" if c in order else "")
    keep = results["task_id"].astype(str).isin(task_ids)
    rows = results[keep].assign(task_id=results.loc[keep, "task_id"].astype(str), mark=marks[keep])
    rows = rows.drop_duplicates(["task_id", "round"])
    index = pd.Index(task_ids, name="task_id")
    rounds = sorted(rows["round"].unique().tolist()) if len(rows) else []

    def grid(values: pd.Series, fill: object = None) -> pd.DataFrame:
        frame = pd.DataFrame({"task_id": rows["task_id"], "round": rows["round"], "v": values})
        out = frame.pivot(index="task_id", columns="round", values="v").reindex(index=index, columns=rounds)
        return out if fill is None else out.fillna(fill)

    answers = rows["answer"].astype("string").str.slice(0, ANSWER_CHARS)
    if "no_answer" in rows:
        answers = answers.mask(rows["no_answer"].astype(bool), "(no answer)")
    answers = answers.fillna("(error)")
    return AnswerGrid(
        clusters=grid(rows["cluster"].astype("Float64")),
        routes=grid(rows["mark"], ""),
        answers=grid(answers.str.replace("\n", " ⏎ "), ""),
        legend=_legend(factors.drop(columns="recorded")[keep.to_numpy()], rows["mark"]),
    )


def _legend(factors: pd.DataFrame, marks: pd.Series) -> list[tuple[str, str]]:
    """Each mark shown, by the route factors that differ between the marks shown."""
    factors = factors.reset_index(drop=True).assign(mark=marks.reset_index(drop=True))
    factors = factors[factors["mark"] != ""].drop_duplicates("mark")
    if factors.empty:
        return []
    varying = [f for f in FACTORS if f in factors and factors[f].astype(str).nunique() > 1]
    shown = varying or ["key"]
    out = []
    for _, row in factors.sort_values("mark", key=lambda m: m.str[1:].astype(int)).iterrows():
        out.append((str(row["mark"]), ", ".join(f"{f} {row[f]}" for f in shown)))
    return out
