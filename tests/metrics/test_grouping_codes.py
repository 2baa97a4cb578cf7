"""The numpy grouping helpers give what the pandas groupbys they replace gave, missing values included."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.metrics import grouping
from analyzer.metrics.grouping import any_recorded, first_rows, tuple_codes
from analyzer.metrics.tokens import _task_medians

rows = st.lists(
    st.tuples(
        st.sampled_from(["https://a", "https://b", None]),
        st.sampled_from([0.0, 0.7, None]),
        st.sampled_from([1, 2, None]),
    ),
    max_size=30,
)


def _frame(values: list[tuple[str | None, float | None, int | None]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "base_url": pd.array([v[0] for v in values], dtype="string"),
            "temperature": pd.array([v[1] for v in values], dtype="Float64"),
            "seed": pd.array([v[2] for v in values], dtype="Int64"),
        }
    )


@pytest.mark.parametrize("limit", [1 << 62, 8], ids=["digits", "renumbered"])
@settings(max_examples=80, deadline=None)
@given(values=rows)
def test_tuple_codes_number_tuples_as_groupby_does(values: list, limit: int) -> None:
    frame = _frame(values)
    columns = ["base_url", "temperature", "seed"]
    saved, grouping._LIMIT = grouping._LIMIT, limit  # 8: renumbered before every column
    try:
        codes = tuple_codes(frame, columns)
    finally:
        grouping._LIMIT = saved
    expected = frame.groupby(columns, dropna=False, sort=False).ngroup().to_numpy()
    assert codes.tolist() == expected.tolist()
    assert first_rows(codes).tolist() == [int(np.flatnonzero(codes == c)[0]) for c in range(len(set(codes)))]
    recorded = any_recorded(frame, ["base_url", "seed"])
    assert recorded.tolist() == frame[["base_url", "seed"]].notna().any(axis=1).tolist()


def test_a_hand_made_route_table_of_codes() -> None:
    frame = _frame(
        [("https://a", 0.0, None), ("https://b", 0.0, None), ("https://a", 0.0, None), (None, None, 1)]
    )
    assert tuple_codes(frame, ["base_url", "temperature", "seed"]).tolist() == [0, 1, 0, 2]
    assert first_rows(np.array([0, 1, 0, 2])).tolist() == [0, 1, 3]
    assert any_recorded(frame, ["base_url"]).tolist() == [True, True, True, False]


def test_task_medians_by_hand() -> None:
    codes = np.array([0, 1, 0, 1, 0, 1, 1])
    values = np.array([5.0, 10.0, 1.0, 40.0, 3.0, 20.0, 30.0])
    # task 0: 1, 3, 5 -> 3; task 1: 10, 20, 30, 40 -> (20 + 30) / 2
    assert _task_medians(codes, values).tolist() == [3.0, 25.0]
