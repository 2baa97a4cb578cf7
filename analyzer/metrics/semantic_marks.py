"""Two more facts an answer states in few characters: the codes it names and its yes-or-no verdict.

- **codes**: tokens mixing digits and letters (`14C`, `HAT088`, `M20IZO`): a seat, a flight, a
  reservation. A sentence embedding reads `14C` and `14D` as one; two answers that both name codes
  must name the same ones (or one answer's a subset of the other's, as for numbers). Ordinals
  (`21st`), times (`7am`) and a number glued to a unit of two letters or more (`5km`) are not codes.
- **verdict**: an answer that opens with yes (`yes`, `yeah`, `correct`, `是的`, `可以`) or with no
  (`no`, `nope`, `不是`, `没有`, `不可以`) has given its verdict before its reasons; two answers with opposite
  verdicts differ, whatever follows ("Yes, X is not prohibited" / "No, X is not allowed").
- **prefix antonyms**: `eligible` / `ineligible`, `legal` / `illegal`, `available` /
  `unavailable`: one answer has a word, the other that word with a negating prefix.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["codes", "prefix_antonym", "verdict"]

_CODE = re.compile(r"(?<![\w.])(?=[a-z]*\d)(?=\d*[a-z])[a-z\d]{2,}(?![\w])")
_NOT_CODE = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|hr|hrs|min|mins|km|kg|mm|cm|ml|lb|lbs|mph|kmh|gb|mb|kb|tb|bn)"
)
_YES = re.compile(r"(?:yes|yeah|yep|correct|that's right|是的|对的|对[,.!]|可以)(?![a-z])")
_NO = re.compile(r"(?:no|nope|不是|不对|不可以|不行|没有|不[,.!])(?![a-z])")
_PREFIXES = ("in", "im", "il", "ir", "un", "dis", "non-", "non")
_WORD = re.compile(r"[a-z][a-z-]+")


@lru_cache(maxsize=65536)
def codes(text: str) -> frozenset[str]:
    """The codes a normalized answer names (`14c`, `hat088`)."""
    return frozenset(c for c in _CODE.findall(text) if not _NOT_CODE.fullmatch(c))


def verdict(text: str) -> str | None:
    """`yes` or `no` when the normalized answer opens with one, else None."""
    head = text.lstrip(" \"'“(")
    if _NO.match(head) and not head.startswith(("not ", "no one", "nobody", "nothing")):
        return "no" if not head.startswith("no ") or _opens_clause(head) else None
    return "yes" if _YES.match(head) else None


def _opens_clause(head: str) -> bool:
    """`no, ...` / `no.` is a verdict; "no refund is possible" is a claim, read by the polarity guard."""
    return head[:3] in ("no,", "no.", "no!", "no;") or head == "no"


def prefix_antonym(a: str, b: str) -> str | None:
    """A word of one answer that the other has with a negating prefix (`eligible` / `ineligible`).

    Asked only of two answers that hold no negation ("not refundable" and "non-refundable" agree).
    """
    wa, wb = set(_WORD.findall(a)), set(_WORD.findall(b))
    for words, others in ((wa, wb), (wb, wa)):
        for w in others:
            for p in _PREFIXES:
                if w.startswith(p) and len(w) - len(p) >= 5 and w[len(p) :] in words:
                    return f"{w[len(p) :]} / {w}"
    return None
