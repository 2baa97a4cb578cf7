"""The text of an answer that the `semantic` key embeds: what it says, without the courtesies.

Agents wrap an answer in sentences that say nothing about it ("If you have any other questions,
feel free to ask!", "Is there anything else I can help you with?", "祝您旅途愉快"). Two answers that
state one outcome in different wrappings embed further apart than they mean, and a bare outcome
("Your seat is 14C.") looks unlike the same outcome with a courtesy added. So the embedded text
drops the sentences that are courtesies and deny nothing (kept whole when nothing else is left:
"You're welcome!" is that answer's meaning), writes "20 percent" / "20 per cent" as "20%", and
writes a double negation as what it asserts ("not incompatible": "compatible", `semantic/double`).
The guards read this text too, so "don't hesitate to reach out" negates nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from analyzer.metrics.semantic.double import cancel_double_negation
from analyzer.metrics.semantic.guards import facts

__all__ = ["embedding_text"]

_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
_COURTESY = re.compile(
    r"anything else|feel free|let me know|let us know|don't hesitate|do not hesitate|reach out"
    r"|have a (?:great|nice|good|wonderful|fantastic|safe|pleasant|lovely)|safe travels|enjoy your"
    r"|happy to help|glad (?:i|to) (?:could )?help|hope this helps|further assistance|more questions"
    r"|other questions|any questions|thank you|thanks|还有什么|其他问题|任何问题|随时|祝您|谢谢|感谢"
)
_PERCENT = re.compile(r"(\d)\s*(?:percent|per cent|pct)\b")


def _courtesy(sentence: str) -> bool:
    """A sentence that offers help and says nothing else: what is left without its courtesy phrases
    holds no negation ("I can't change it, but let me know ..." is kept)."""
    if not _COURTESY.search(sentence):
        return False
    return not facts(_COURTESY.sub(" ", sentence.replace("don't hesitate", " "))).negated


@lru_cache(maxsize=65536)
def embedding_text(answer: str) -> str:
    """The normalized answer's sentences that are not courtesies, with percentages as `%` and double
    negations as what they assert (`semantic/double`)."""
    sentences = [s.strip() for s in _SENTENCE.findall(answer) if s.strip()]
    kept = [s for s in sentences if not _courtesy(s)]
    text = " ".join(kept) if kept and len(kept) < len(sentences) else answer
    return cancel_double_negation(_PERCENT.sub(r"\1%", text))
