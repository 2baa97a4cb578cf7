"""Chart axes (app/charts): count axes in round steps; log latency axes labelled at 1, 2 and 5 times
a power of ten over the data's range (or finer when it is narrow), minor ticks only at the other
digits, so no decade's end crowds into a black bar."""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import pytest

from app.charts import _count_axis, latency_box


def axis(values: list[float]) -> dict:
    frame = pd.DataFrame({"latency_ms": values, "retried": [i % 2 == 0 for i in range(len(values))]})
    fig = latency_box(frame, "latency_ms", "retried", "Result wall time", "latency (ms, log scale)")
    return fig.to_dict()["layout"]["xaxis"]


@pytest.mark.parametrize(
    ("values", "labelled", "with_minor"),
    [
        ([5.2, 7.0, 12.0, 60.0, 110.0], [5, 10, 20, 50, 100], True),
        ([1.1, 3.0, 19.0], [1, 2, 5, 10, 20], True),
        ([2.0, 3.5], [2, 3, 4], False),  # fewer than three at 1-2-5: every digit
        ([120.0, 130.0, 150.0], [100, 120, 140, 160, 180], False),  # within one digit: even steps
        ([1.0, 1.05], [0.9, 1.0, 1.1, 1.2], False),
        ([900.0, 30_000.0], [1_000, 2_000, 5_000, 10_000, 20_000], True),
    ],
)
def test_labels_and_minor_ticks_cover_the_range_once(
    values: list[float], labelled: list[float], with_minor: bool
) -> None:
    x = axis(values)
    ticks = x["tickvals"]
    assert ticks == pytest.approx(labelled)
    assert len(set(x["ticktext"])) == len(ticks)  # every label reads differently
    minor = x["minor"]["tickvals"]
    assert x["minor"]["tickmode"] == "array"
    assert not set(minor) & set(ticks)  # a digit is a label or a minor tick, never both
    assert bool(minor) == with_minor
    every = sorted([*ticks, *minor])
    assert len(every) == len(set(every))
    # at most one tick per digit of a decade: 9 a decade, never Plotly's dense default
    decades = math.log10(max(values) * 1.2) - math.log10(max(min(values), 1) / 1.2)
    assert len(every) <= 9 * (math.ceil(decades) + 1)
    low, high = max(min(values), 1) / 1.2, max(values) * 1.2
    assert all(low <= t <= high for t in every)


@pytest.mark.parametrize(
    ("largest", "step"), [(0, 1), (5, 1), (6, 1), (14, 5), (162, 50), (300, 50), (301, 100), (56_624, 10_000)]
)
def test_a_count_axis_steps_by_1_2_or_5_times_a_power_of_ten(largest: float, step: int) -> None:
    fig = go.Figure()
    _count_axis(fig, "x", largest)
    assert fig.layout.xaxis.dtick == step
    assert largest / step <= 6  # at most about six steps to the largest
