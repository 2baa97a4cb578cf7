"""A job's pace: time elapsed since it (or its latest resume) started, and the time left at the
rate it has kept since then.

The rate counts only results finished since the start: a resumed job's earlier results (already in
its journal at `done_at_start`) do not make it look faster than it is.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

import analyzer.numbers as numbers


class Pace(NamedTuple):
    """Seconds elapsed and left (None when unknown: not started, or nothing finished yet)."""

    elapsed_s: float | None
    left_s: float | None


def pace(done: int, total: int, started_at: datetime | None, now: datetime, done_at_start: int = 0) -> Pace:
    """Elapsed since `started_at`; left = remaining results x seconds per result so far."""
    if started_at is None:
        return Pace(None, None)
    elapsed = max(0.0, (now - started_at).total_seconds())
    finished = done - done_at_start
    if done >= total:
        return Pace(elapsed, 0.0)
    if finished <= 0 or elapsed <= 0:
        return Pace(elapsed, None)
    return Pace(elapsed, (total - done) * elapsed / finished)


def pace_text(p: Pace, finished: bool) -> str:
    """`1 min 05 s elapsed · about 28 s left`; `took 1 min 05 s` once finished; '' when unknown."""
    if p.elapsed_s is None:
        return ""
    if finished:
        return f"took {numbers.duration(p.elapsed_s)}"
    left = (
        "time left: after the first result"
        if p.left_s is None
        else f"about {numbers.duration(p.left_s)} left"
    )
    return f"{numbers.duration(p.elapsed_s)} elapsed · {left}"
