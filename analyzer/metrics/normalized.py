"""The `normalized` answer key's text: what two answers must share to be one under `normalized`,
and the text every finer key (fuzzy, semantic) starts from."""

from __future__ import annotations

import unicodedata


def normalized_key(answer: str) -> str:
    """NFKC, case-folded, inner white space collapsed, punctuation dropped at both ends.

    A leading `-` or `.` right before a digit is a sign or a decimal point and stays. An answer
    that is nothing but punctuation is kept as it is (after the folding).

    Args:
        answer: The answer text as recorded.
    """
    text = " ".join(unicodedata.normalize("NFKC", answer).casefold().split())
    end = len(text)
    while end > 0 and _droppable(text[end - 1]):
        end -= 1
    if end == 0:
        return text
    start = 0
    while start < end and _droppable(text[start]) and not _number_start(text, start):
        start += 1
    return text[start:end]


def _droppable(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("P")


def _number_start(text: str, i: int) -> bool:
    """A `-` or `.` that begins a number (`-5`, `.5`, `-.5`) is part of the answer."""
    if text[i] not in "-.":
        return False
    rest = text[i + 1 : i + 3]
    return rest[:1].isdigit() or (text[i] == "-" and rest[:1] == "." and rest[1:2].isdigit())
