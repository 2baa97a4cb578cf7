"""Tasks flagged for a re-run, each with its reasons: inconsistent, route-drifted, errored."""

from __future__ import annotations

import pandas as pd
from pydantic import BaseModel, TypeAdapter

REASONS: tuple[str, ...] = ("inconsistent", "route-drifted", "errored")
"""Every flag reason, in the order they are listed."""


class FlaggedTask(BaseModel):
    """A task worth re-running and why."""

    task_id: str
    """The task."""
    reasons: list[str]
    """Why: `inconsistent`, `route-drifted` and/or `errored`."""


def flag_tasks(tasks: pd.DataFrame) -> pd.DataFrame:
    """A copy of `tasks` with `flagged` (bool) and `flag_reasons` (e.g. "inconsistent, errored").

    Inconsistent means two or more answers fell into more than one cluster; a task with fewer than
    two answers is never inconsistent (it is reported apart). Route-drifted is `drifted`; errored is
    any result that errored.

    Args:
        tasks: Task frame with `consistent`, `drifted` and `n_errors`.
    """
    out = tasks.copy()
    checks = {
        "inconsistent": ~tasks["consistent"].fillna(True).astype(bool),
        "route-drifted": tasks["drifted"].fillna(False).astype(bool),
        "errored": tasks["n_errors"] > 0,
    }
    reasons = _join(checks, tasks.index)
    out["flagged"] = (reasons != "").to_numpy()
    out["flag_reasons"] = pd.array(reasons.to_numpy(), dtype="string")
    return out


def flagged_list(tasks: pd.DataFrame) -> list[FlaggedTask]:
    """The flagged tasks in task order, for reports.

    Args:
        tasks: Task frame from `flag_tasks`.
    """
    rows = tasks.loc[tasks["flagged"], ["task_id", "flag_reasons"]]
    return _FLAGGED.validate_python(  # one call for every task: 10k tasks cost milliseconds
        [
            {"task_id": str(t), "reasons": str(r).split(", ")}
            for t, r in zip(rows["task_id"].tolist(), rows["flag_reasons"].tolist(), strict=True)
        ]
    )


_FLAGGED = TypeAdapter(list[FlaggedTask])


def _join(checks: dict[str, pd.Series], index: pd.Index) -> pd.Series:
    """Join the names of the checks that hit, per row, with ", "."""
    text = pd.Series("", index=index, dtype=object)
    for name in REASONS:
        hit = checks[name].to_numpy(dtype=bool)
        sep = pd.Series(", ", index=index, dtype=object).where(text != "", "")
        text = text.where(~hit, text + sep + name)
    return text
