"""Offer against act: an agent that asks before doing something has not done it.

"I can transfer you to a human agent. Would you like me to proceed?" offers; "I will transfer you
to a human agent. Please hold on." acts. A sentence embedding scores the two close (the same words
of the same action), yet one outcome waits for the user and the other does not. An answer **offers**
when it asks the user whether to act (`would you like me to`, `shall I`, `do you want me to`, `if
you'd like, I can`, `需要我…吗`, `要不要`, `是否需要`) or asks the user to confirm (`are you
sure you want`, `您想…吗`, `确定要…吗`), and **acts** when it says the agent is doing it now or has done
it (`I will`, `I'll`, `I am going to`, `please hold`, `I've rebooked`, `has been cancelled`, `我将`,
`正在为您`, `请稍候`, `已为您`). Two answers of which one only offers and the other only acts
differ.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["mood_conflict"]

_OFFERS = re.compile(
    r"\b(?:would you like (?:me )?to|do you want me to|shall i|should i|would you prefer (?:me )?to"
    r"|if you(?:'d| would)? like,? i can|i can [^.?!]*\bif you(?:'d| would)? like)\b"
    r"(?!\s+(?:help|assist|know|be)\b)"
    r"|\bare you sure (?:you want|you'd like)\b|\bdo you (?:still )?want to\b"
    r"|需要我[^。！？]*[吗？?]|要不要|是否需要|是否希望|您希望我|您想[^。！？]*[吗？?]|确定要[^。！？]*[吗？?]|确认要"
)
_ACTS = re.compile(
    r"(?<!if )\b(?:i will|i'll|i am going to|i'm going to|i am now|i'm now|please hold|hold on"
    r"|proceed(?:ing)? with the \w+ now)\b(?!\s+(?:be|not|need|help|assist)\b)"
    r"|\bi've (?!not\b|no\b)\w+ed\b|\bi have (?!not\b|no\b)\w+ed\b|\b(?:has|have) been (?:\w+ly )?\w+ed\b"
    r"|我将|我会为您|正在为您|马上为您|请稍候|请稍等|已为您|已经为您|已帮您|已经帮您|已成功"
)


@lru_cache(maxsize=65536)
def _mood(text: str) -> str | None:
    """`offer`, `act`, or None (both or neither)."""
    text = text.replace("’", "'")
    offers, acts = _OFFERS.search(text) is not None, _ACTS.search(text) is not None
    if offers == acts:
        return None
    return "offer" if offers else "act"


def mood_conflict(a: str, b: str) -> bool:
    """One answer only offers to act, the other only acts."""
    ma, mb = _mood(a), _mood(b)
    return ma is not None and mb is not None and ma != mb
