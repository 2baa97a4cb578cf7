"""The simulator's judge: a deterministic verdict for a judge request, so the `judge` key runs
offline over real HTTP.

It is a rule, not a reader of meaning: two answers are the same when they state the same numbers
(digit runs), the same negation (`not`, `no`, `never`, `n't`, `不`, `没`, `无`, `未`) and, with
numbers and negation aside, share at least half of the shorter one's words (Chinese characters count
one each). An answer holding `[unclear]` gets a reply that is neither yes nor no, for tests."""

from __future__ import annotations

import re
from typing import Any

from analyzer.metrics.judge.prompt import read_pair

__all__ = ["simulated_verdict"]

_NUMBER = re.compile(r"\d+")
_NEGATION = re.compile(r"\b(?:not|no|never)\b|n't|[不没无未]")
_WORD = re.compile(r"[\u4e00-\u9fff]|[^\W\d_]+")


def simulated_verdict(messages: list[Any]) -> str | None:
    """The reply to a judge request; None when the messages are not one."""
    pair = read_pair(messages)
    if pair is None:
        return None
    _question, a, b = pair
    if "[unclear]" in a or "[unclear]" in b:
        return "It depends on what the user meant."
    a, b = a.casefold(), b.casefold()
    if sorted(_NUMBER.findall(a)) != sorted(_NUMBER.findall(b)):
        return "no: they state different numbers"
    if bool(_NEGATION.search(a)) != bool(_NEGATION.search(b)):
        return "no: one denies what the other states"
    wa, wb = set(_WORD.findall(a)), set(_WORD.findall(b))
    shorter = min(len(wa), len(wb))
    if shorter and len(wa & wb) * 2 >= shorter:
        return "yes: the same numbers and most of the same words"
    return "no: they share too few words" if shorter else "yes: the same numbers"
