"""What the History view draws, as frames: a figure over the runs with its interval and trend line,
the task x run heat-map, the change points and the tasks that moved.

Each run's interval is the one `analyze` gave its log (kept in the store); tokens per task have none.
"""

from __future__ import annotations

import pandas as pd

import analyzer.numbers as numbers
from analyzer.history.render import change_phrase, label_phrase
from analyzer.history.timeline import History, run_name

CELL_STATES = ("consistent", "inconsistent", "errored", "absent")
"""The heat-map's states, in the order of their codes 0..3."""


def figure_series(history: History, figure: str) -> pd.DataFrame:
    """One row per run: `run`, `value`, `low`/`high` (NaN where no interval is kept) and `trend`."""
    values = [row[figure] for row in history.runs]
    ends = [(row.get(f"{figure}_low"), row.get(f"{figure}_high")) for row in history.runs]
    t = history.trends[figure]
    known = [i for i, v in enumerate(values) if v is not None]
    trend = [float("nan")] * len(values)
    if t.slope is not None and known:
        centre = pd.Series([values[i] - t.slope * i for i in known]).median()
        trend = [centre + t.slope * i for i in range(len(values))]
    return pd.DataFrame(
        {
            "run": [run_name(r) for r in history.runs],
            "value": pd.array(values, dtype="Float64"),
            "low": [float("nan") if low is None else low for low, _ in ends],
            "high": [float("nan") if high is None else high for _, high in ends],
            "trend": trend,
        }
    )


def heat_map(history: History) -> pd.DataFrame:
    """Tasks (rows: moved tasks first, then by id) x runs (columns, time order), each cell a state code."""
    order = {"regressed": 0, "fixed": 1, "flaky": 2, "stable": 3}
    labels = sorted(history.labels, key=lambda t: (order[t.label], t.task_id))
    codes = {state: i for i, state in enumerate(CELL_STATES)}
    runs = [run_name(r) for r in history.runs]
    rows = [[codes[s] for s in history.cells[t.task_id]] for t in labels]
    return pd.DataFrame(rows, index=[t.task_id for t in labels], columns=runs)


def change_marks(history: History) -> list[tuple[str, str]]:
    """Each change point's run and its sentence, to mark on the heat-map."""
    return [(c.run_id, change_phrase(c)) for c in history.changes]


def moved_tasks(history: History) -> pd.DataFrame:
    """The tasks that are not stable: their label in words and the test's q-values."""
    rows = [
        {
            "task": t.task_id,
            "label": label_phrase(history, t.task_id),
            "change test": numbers.p_value(t.q_change, "q"),
            "runs disagree": numbers.p_value(t.q_flaky, "q"),
        }
        for t in history.labels
        if t.label != "stable"
    ]
    return pd.DataFrame(rows, columns=["task", "label", "change test", "runs disagree"])
