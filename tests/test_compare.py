"""Comparing groups side by side and finding the tasks that flip."""

from __future__ import annotations

from typing import Any

from analyzer.analysis import analyze
from analyzer.compare import TABLE_COLUMNS, compare
from analyzer.model import RunLog


def _log(answers: dict[str | int, list[str]], **extra: Any) -> RunLog:
    rounds = max(len(a) for a in answers.values())
    runs = [
        [{"task_id": t, "answer": a[r], "total_tokens": 10, **extra} for t, a in answers.items()]
        for r in range(rounds)
    ]
    return RunLog.model_validate({"runs": runs})


def test_table_and_flips() -> None:
    # A: 1 inconsistent, t2 and t3 consistent -> 1 of 3 inconsistent -> gap 33.33
    # C: 1, t2, t4 consistent, t3 inconsistent -> 1 of 4 -> gap 25 (task 1 is int in A, str in C)
    a = analyze(_log({1: ["x", "y"], "t2": ["x", "x"], "t3": ["x", "x"]}))
    c = analyze(_log({"1": ["x", "x"], "t2": ["x", "x"], "t3": ["x", "z"], "t4": ["q", "q"]}))
    result = compare([("A: default", a), ("C: pinned route", c)])
    assert list(result.table.columns) == list(TABLE_COLUMNS)
    assert result.table["label"].tolist() == ["A: default", "C: pinned route"]
    assert result.table["answer_gap_pp"].round(2).tolist() == [33.33, 25.0]
    assert result.table["tokens_total"].tolist() == [60, 80]
    assert result.table["route_pinned"].isna().all()  # format-1 logs record no route
    # t1 flips (inconsistent -> consistent), t3 flips the other way; t2 steady; t4 only in C
    assert result.flips["task_id"].tolist() == ["1", "t3"]
    assert result.flips["A: default"].tolist() == [False, True]
    assert result.flips["C: pinned route"].tolist() == [True, False]
    all_tasks = result.consistency.set_index("task_id")
    assert not all_tasks.loc["t4", "flipped"]
    assert all_tasks["A: default"].isna()["t4"]


def test_outcome_columns_and_repeated_labels() -> None:
    graded = analyze(_log({1: ["x", "x"], 2: ["y", "y"]}, success=True))
    plain = analyze(_log({1: ["x", "x"]}))
    table = compare([("run", graded), ("run", plain)]).table
    assert table["label"].tolist() == ["run", "run (2)"]
    assert table["mean_at_n"].tolist()[0] == 1.0
    assert table["pass_hat_n"].tolist()[0] == 1.0
    assert table["outcome_gap_pp"].tolist()[0] == 0.0
    assert table["mean_at_n"].isna().tolist() == [False, True]


def test_compare_nothing() -> None:
    result = compare([])
    assert result.table.empty and result.flips.empty


def test_labels_never_collide_with_each_other_or_the_columns() -> None:
    a = analyze(_log({1: ["x", "y"], "t2": ["x", "x"]}))
    c = analyze(_log({1: ["x", "x"], "t2": ["x", "x"]}))
    result = compare([("flipped", a), ("task_id", c)])
    assert result.labels == ["flipped (2)", "task_id (2)"]
    assert result.flips["task_id"].tolist() == ["1"]  # only task 1 flips; t2 is steady
    repeated = compare([("A", a), ("A", c), ("A (2)", a)])
    assert repeated.labels == ["A", "A (2)", "A (2) (2)"]
