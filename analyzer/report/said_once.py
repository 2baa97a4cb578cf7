"""Warnings said once: a line that comes back (one per result, per row, per log) is shown once with
how many times it came, in the text report, the HTML report and on Overview alike."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


def said_once(lines: Iterable[str]) -> list[str]:
    """Each distinct line once, in first-seen order; a repeated one ends with `(said 20 times)`."""
    counts = Counter(lines)
    return [line if n == 1 else f"{line} (said {n:,} times)" for line, n in counts.items()]
