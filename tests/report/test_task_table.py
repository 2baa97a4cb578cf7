"""The Tasks page's tables as read (analyzer/report/task_table.py) and the task table's orders
(analyzer/report/task_filter.sort_tasks): human headers, the one number style, a missing value as
a dash, ties and missing values placed predictably."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.numbers import NONE
from analyzer.report.task_filter import SORTS, sort_tasks
from analyzer.report.task_table import (
    CLUSTER_HEADERS,
    TASK_HEADERS,
    cluster_table,
    first_to_open,
    pick_labels,
    table_window,
    task_table,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "app"


def tasks() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "task_id": pd.array(["b-2", "a-1", "c-3", "d-4"], dtype="string"),
            "cause": ["route", "", "model", ""],
            "n_results": [5, 5, 5, 1],
            "n_clusters": [2, 1, 3, 1],
            "consistent": pd.array([False, True, False, None], dtype="boolean"),
            "majority_share": pd.array([0.6, 1.0, 0.4, None], dtype="Float64"),
            "success_rate": pd.array([None, 1.0, 0.25, None], dtype="Float64"),
            "tokens_total": pd.array([1500, 20, 1500, None], dtype="Int64"),
            "retries": [0, 3, 1, 0],
            "n_errors": [0, 0, 2, 0],
            "n_no_answer": [1, 0, 0, 0],
            "drifted": [True, False, False, False],
        }
    )


def test_the_task_table_reads_as_a_person_reads_it() -> None:
    shown = task_table(tasks())
    assert list(shown.columns) == list(TASK_HEADERS.values())
    assert shown.loc[0].tolist() == [
        "b-2",
        "route",
        "5",
        "2",
        "no",
        "60.0 %",
        NONE,
        "1,500",
        "0",
        "0",
        "1",
        "yes",
    ]
    assert shown.loc[3, "consistent"] == NONE  # one answer: neither consistent nor not
    assert shown.loc[3, "tokens"] == NONE and shown.loc[3, "majority"] == NONE


def test_the_cluster_table_keeps_answers_as_text_on_one_line() -> None:
    clusters = pd.DataFrame(
        {
            "task_id": ["t"] * 2,
            "cluster": [0, 1],
            "size": [3, 2],
            "share": [0.6, 0.4],
            "representative": ["Paris\nFrance", "<b>Lyon</b>"],
            "rounds": ["1, 2, 4", "3, 5"],
            "tokens_mean": pd.array([1234.4, None], dtype="Float64"),
            "successes": pd.array([3, None], dtype="Int64"),
        }
    )
    shown = cluster_table(clusters)
    assert list(shown.columns) == list(CLUSTER_HEADERS.values())
    assert shown["representative answer"].tolist() == ["Paris France", "<b>Lyon</b>"]  # escaped when drawn
    assert shown["tokens per round"].tolist() == ["1,234", NONE]
    assert shown["share"].tolist() == ["60.0 %", "40.0 %"] and shown["successes"].tolist() == ["3", NONE]


def test_the_picker_names_each_task_with_its_clusters_and_cause() -> None:
    assert pick_labels(tasks().assign(n_clusters=[2, 1, 3, 0]))[-1] == "d-4 · no answer"
    assert pick_labels(tasks()) == [
        "b-2 · 2 clusters · route",
        "a-1 · 1 cluster",
        "c-3 · 3 clusters · model",
        "d-4 · 1 cluster",
    ]


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        ("log order", ["b-2", "a-1", "c-3", "d-4"]),
        ("least consistent first", ["c-3", "b-2", "a-1", "d-4"]),  # no majority (one answer): last
        ("most answers first", ["c-3", "b-2", "a-1", "d-4"]),
        ("most tokens first", ["b-2", "c-3", "a-1", "d-4"]),  # a tie keeps the log's order
        ("most retries first", ["a-1", "c-3", "b-2", "d-4"]),
        ("most errors first", ["c-3", "b-2", "a-1", "d-4"]),
        ("task id", ["a-1", "b-2", "c-3", "d-4"]),
        ("no such order", ["b-2", "a-1", "c-3", "d-4"]),
    ],
)
def test_each_order(order: str, expected: list[str]) -> None:
    assert order in SORTS or order == "no such order"
    assert sort_tasks(tasks(), order)["task_id"].tolist() == expected


def test_every_order_sorts_by_a_column_the_analysis_has() -> None:
    """An order whose column the task table lacked would keep the log's order while the page names it."""
    for name in ("drift_v2.json", "plain_v1.json"):
        columns = set(analyze(load_path(FIXTURES / name).log).tasks.columns)
        assert {column for column, _ in SORTS.values() if column} <= columns


def test_answers_that_differ_only_inside_their_white_space_read_apart() -> None:
    clusters = pd.DataFrame(
        {
            "cluster": [0, 1, 2, 3],
            "size": [1] * 4,
            "representative": ["a  b", "a b", "x\ny", "x\ty"],
            "rounds": ["1", "2", "3", "4"],
        }
    )
    assert cluster_table(clusters)["representative answer"].tolist() == ["a··b", "a b", "x⏎y", "x→y"]
    alone = cluster_table(clusters.iloc[[0, 2]])  # nothing to tell apart: one line, as read
    assert alone["representative answer"].tolist() == ["a b", "x y"]


def test_the_task_opened_first_is_the_first_inconsistent_one() -> None:
    assert first_to_open(tasks()) == "b-2"
    assert first_to_open(tasks().iloc[[1, 3]]) == "a-1"  # none inconsistent: the first
    assert first_to_open(tasks().iloc[[]]) is None


@pytest.mark.parametrize(
    ("rows", "at", "size", "expected"),
    [
        (30, 25, 100, (0, 30)),
        (1000, 0, 100, (0, 100)),
        (1000, 500, 100, (475, 575)),
        (1000, 999, 100, (900, 1000)),
    ],
)
def test_a_long_table_is_drawn_around_its_open_row(
    rows: int, at: int, size: int, expected: tuple[int, int]
) -> None:
    start, stop = table_window(rows, at, size)
    assert (start, stop) == expected and start <= at < stop and stop - start == min(rows, size)
