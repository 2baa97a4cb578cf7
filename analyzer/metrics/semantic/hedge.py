"""Certainty: an answer that hedges its claim does not say what a plain one says.

"It will probably rain tomorrow" and "It will rain tomorrow", or "Popes don't need to be Italian"
and "The Pope is not Italian", share every content word, so a sentence embedding scores them as
one, yet the first of each pair commits to less. An answer's **hedge** is read from its first
sentence, the claim it opens with (a long answer's later hedges qualify its reasons, not its
answer): `likely` (`probably`, `likely`, `possibly`, `perhaps`, `maybe`, `might`, `可能`, `也许`,
`或许`, `大概`) or `need not` (`don't need to`, `need not`, `don't have to`, `not required to`,
`不必`, `不用`, `不需要`). Two answers whose hedges differ are different answers.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["hedge_conflict"]

_FIRST = re.compile(r"[^.!?;。！？；]+")
_LIKELY = re.compile(r"\b(?:probably|likely|unlikely|possibly|perhaps|maybe|might)\b|可能|也许|或许|大概")
_NEED_NOT = re.compile(
    r"\b(?:(?:do|does|did)(?: not|n['’]t) (?:need|have) to|need not|needn['’]t|not (?:required|obliged)"
    r" to)\b|不必|不用|不需要"
)


@lru_cache(maxsize=65536)
def _hedges(text: str) -> frozenset[str]:
    first = _FIRST.search(text)
    lead = first[0] if first else text
    kinds = set()
    if _LIKELY.search(lead):
        kinds.add("likely")
    if _NEED_NOT.search(lead):
        kinds.add("need not")
    return frozenset(kinds)


def hedge_conflict(a: str, b: str) -> bool:
    """The two answers' opening claims are hedged differently (one `probably`, the other not)."""
    return _hedges(a) != _hedges(b)
