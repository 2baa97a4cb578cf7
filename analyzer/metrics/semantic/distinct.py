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
    r"|[\u4e00-\u9fff]+[和与跟][\u4e00-\u9fff]+(?:是|为)(?:两个|两种|不同的|独立的|两码事)"
)


@lru_cache(maxsize=65536)
def _separates(text: str) -> bool:
    return _SEPARATES.search(text) is not None


def distinct_conflict(a: str, b: str) -> bool:
    """One answer says two things are separate; the other does not, and denies nothing."""
    sa, sb = _separates(a), _separates(b)
    if sa == sb:
        return False
    other = b if sa else a
    return not polarity(other)
