"""Quantities written more than one way, rewritten to one form before the facts guard reads them.

- numbers spelled in several words: "twenty-five" is 25, "one hundred and twenty" 120 (read word by
  word they were 20 and 5, which disagree with 25);
- dollars and cents: "forty-five dollars and fifty cents" is 45.50 dollars;
- temperatures: degrees Fahrenheit are stated in Celsius (212 °F is 100 °C), and a temperature's unit
  is `celsius` however it is written (°C, degrees Celsius, 摄氏度, ℃).
"""

from __future__ import annotations

import re

from analyzer.metrics.semantic.numerals import EN_SCALES, EN_TENS, EN_UNITS

__all__ = ["spelled_numbers", "temperatures"]

_WORD = "|".join(sorted([*EN_UNITS, *EN_TENS, *EN_SCALES], key=len, reverse=True))
_RUN = re.compile(rf"(?<![\w-])(?:{_WORD})(?:(?:\s+and\s+|\s+|-)(?:{_WORD}))*(?![\w-])")
_PART = re.compile(rf"{_WORD}|and")
_CENTS = re.compile(r"(\d+)\s*(dollars?|euros?|pounds?|bucks|yuan)\s*(?:and\s+)?(\d{1,2})\s*cents?(?![a-z])")
_DEGREES = re.compile(
    r"(-?\d+(?:\.\d+)?)\s*(°\s*[cf](?![a-z])|degrees?\s+(?:celsius|centigrade|fahrenheit)|(?:celsius|fahrenheit)"
    r"|摄氏度|华氏度|摄氏|华氏)"
)


def _value(words: list[str]) -> int | None:
    """The number a run of number words spells, or None when it is no one number ("one two")."""
    total, current, last = 0, 0, None
    for i, word in enumerate(words):
        if word == "and":
            if last not in EN_SCALES or i + 1 == len(words):
                return None
            continue
        if word in EN_SCALES:
            if last is not None and last in EN_SCALES and EN_SCALES[word] <= EN_SCALES[last]:
                return None
            if EN_SCALES[word] == 100:
                current = (current or 1) * 100
            else:
                total, current = total + (current or 1) * EN_SCALES[word], 0
        elif word in EN_TENS:
            if last is not None and last not in EN_SCALES:
                return None
            current += EN_TENS[word]
        else:
            if last is not None and last not in EN_SCALES and last not in EN_TENS:
                return None
            if last in EN_TENS and EN_UNITS[word] >= 10:
                return None
            current += EN_UNITS[word]
        last = word
    return total + current


def spelled_numbers(folded: str) -> str:
    """The case-folded text with numbers of several words as digits, and cents as decimals."""

    def digits(m: re.Match[str]) -> str:
        words = _PART.findall(m[0])
        if words[0] in EN_SCALES:  # "86 billion" is read with its digits
            return m[0]
        value = _value(words)
        return m[0] if value is None else str(value)

    text = _RUN.sub(digits, folded)
    return _CENTS.sub(lambda m: f"{m[1]}.{int(m[3]):02d} {m[2]}", text)


def temperatures(folded: str, numbers: set[float], units: set[str]) -> tuple[set[float], set[str]]:
    """Temperatures as degrees Celsius: a Fahrenheit number is replaced by its Celsius value."""
    for m in _DEGREES.finditer(folded):
        value = float(m[1])
        if "f" in m[2] or "华" in m[2]:
            numbers.discard(value)
            numbers.add(round((value - 32) * 5 / 9, 1))
        units.add("celsius")
    return numbers, units
