"""Quantities written more than one way, rewritten to one form before the facts guard reads them.

- numbers spelled in several words: "twenty-five" is 25, "one hundred and twenty" 120 (read word by
  word they were 20 and 5, which disagree with 25);
- dollars and cents: "forty-five dollars and fifty cents" is 45.50 dollars;
- temperatures: degrees Fahrenheit are stated in Celsius (212 °F is 100 °C), and a temperature's unit
  is `celsius` however it is written (°C, degrees Celsius, 摄氏度, ℃).
"""

from __future__ import annotations

import re

__all__ = ["spelled_numbers", "temperatures"]

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_WORD = "|".join(sorted([*_UNITS, *_TENS, *_SCALES], key=len, reverse=True))
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
            if last not in _SCALES or i + 1 == len(words):
                return None
            continue
        if word in _SCALES:
            if last is not None and last in _SCALES and _SCALES[word] <= _SCALES[last]:
                return None
            if _SCALES[word] == 100:
                current = (current or 1) * 100
            else:
                total, current = total + (current or 1) * _SCALES[word], 0
        elif word in _TENS:
            if last is not None and last not in _SCALES:
                return None
            current += _TENS[word]
        else:
            if last is not None and last not in _SCALES and last not in _TENS:
                return None
            if last in _TENS and _UNITS[word] >= 10:
                return None
            current += _UNITS[word]
        last = word
    return total + current


def spelled_numbers(folded: str) -> str:
    """The case-folded text with numbers of several words as digits, and cents as decimals."""

    def digits(m: re.Match[str]) -> str:
        words = _PART.findall(m[0])
        if words[0] in _SCALES:  # "86 billion" is read with its digits
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
