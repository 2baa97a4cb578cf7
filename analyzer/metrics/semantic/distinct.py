"""Distinct against included: "X and Y are two countries" denies "X is part of Y".

An answer that calls two things separate ("Scotland and England are two countries inside the UK",
"bats and birds are different animals", "苏格兰和英格兰是两个国家") holds no negation word, yet it denies
an answer that puts one inside or equal to the other ("Scotland is part of England"). The sentence
embedding sees the same names and scores them close. An answer **separates** when it says "A and B
are two / separate / different / distinct ..." (`A和B是两个 / 不同的 / 独立的`); two answers of
which only one separates, and the other holds no negation, differ.
"""

from __future__ import annotations

import re
from functools import lru_cache

from analyzer.metrics.semantic.polarity import polarity

__all__ = ["distinct_conflict"]

_SEPARATES = re.compile(
    r"\b[a-z]+ and [a-z]+ (?:are|were) (?:\w+ )?(?:two|separate|different|distinct|not the same)\b"
)
_ZH_RUN = re.compile(r"[\u4e00-\u9fff]{4,}")
_ZH_JOINER = re.compile(r"[和与跟]")
_ZH_SEPARATE = re.compile(r"(?:是|为)(?:两个|两种|不同的|独立的|两码事)")


@lru_cache(maxsize=65536)
def _separates(text: str) -> bool:
    return _SEPARATES.search(text) is not None or any(_zh_separates(run[0]) for run in _ZH_RUN.finditer(text))


def _zh_separates(run: str) -> bool:
    """A run of Chinese characters that holds `A和B是两个` (A and B one or more characters each).

    Read in one pass over the run: the first joiner after the run's first character, then any
    `是两个` after the character that follows it. (`[CJK]+[和与跟][CJK]+是…` as one pattern backtracks
    over every pair of positions: quadratic or worse in a long answer with no punctuation.)"""
    joiner = _ZH_JOINER.search(run, 1)
    return joiner is not None and _ZH_SEPARATE.search(run, joiner.end() + 1) is not None


def distinct_conflict(a: str, b: str) -> bool:
    """One answer says two things are separate; the other does not, and denies nothing."""
    sa, sb = _separates(a), _separates(b)
    if sa == sb:
        return False
    other = b if sa else a
    return not polarity(other)
