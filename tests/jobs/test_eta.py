"""A job's pace: elapsed time and what is left at the rate kept since it started."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from analyzer.jobs.eta import Pace, pace, pace_text

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_time_left_is_the_remaining_results_at_the_rate_so_far() -> None:
    # 30 of 120 results in 60 s: 2 s a result, 90 left -> 180 s
    assert pace(30, 120, START, START + timedelta(seconds=60)) == Pace(60.0, 180.0)
    assert pace_text(Pace(60.0, 180.0), finished=False) == "1 min 00 s elapsed · about 3 min 00 s left"


def test_a_resumed_job_counts_only_what_it_finished_since_resuming() -> None:
    # resumed at 100 of 120; 10 more in 50 s: 5 s a result, 10 left -> 50 s
    assert pace(110, 120, START, START + timedelta(seconds=50), done_at_start=100) == Pace(50.0, 50.0)


def test_unknown_and_finished() -> None:
    assert pace(0, 10, None, START) == Pace(None, None)
    assert pace_text(pace(0, 10, START, START + timedelta(seconds=5)), False) == (
        "5 s elapsed · time left: after the first result"
    )
    assert pace_text(pace(10, 10, START, START + timedelta(seconds=75)), True) == "took 1 min 15 s"
    assert pace_text(Pace(None, None), False) == ""
