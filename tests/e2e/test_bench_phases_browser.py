"""scripts/bench_phases.py reads what it says it reads: a bare page loads no element code on demand
and waits for none, a view that draws HTML loads Streamlit's Html chunk, and its times are counted
from the websocket's opening. No timing is asserted: the figures are the benchmark's to print."""

from __future__ import annotations

import sys
from pathlib import Path

from browser_kit import browser_marks

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import bench_phases  # noqa: E402

pytestmark = browser_marks()


def test_phases_of_a_bare_page_and_a_view() -> None:
    figures = bench_phases.measure(1, {"Runs": bench_phases.SAMPLE_VIEWS["Runs"]}, [])
    [bare] = figures["bare page /runs"]
    [runs] = figures["Runs"]
    assert bare["chunks"] == "" and bare["codeWait"] == 0 and bare["elements"] == 1
    assert "Html" in runs["chunks"].split() and runs["elements"] > bare["elements"]
    assert all(phases["messages"] > 0 and phases["drawn"] > 0 for phases in (bare, runs))
