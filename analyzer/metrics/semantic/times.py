"""Clock times an answer states, as minutes after midnight, in English and Chinese.

"7:30 pm", "19:30" and "晚上七点半" are one time; "7:30 am" and "早上7点半" another. Read as plain
numbers they were {7, 30} against {19, 30}, and a sentence embedding puts "7:30 am" beside
"7:30 pm". A time without am / pm (or 上午 / 下午) whose hour could be either ("7:30") is
ambiguous: it matches both 7:30 and 19:30. `clock_times` also returns the text with the times
blanked out, so their digits are not read again as numbers.
"""

from __future__ import annotations

import re

from analyzer.metrics.semantic.numerals import ZH_DIGITS

__all__ = ["ClockTime", "clock_times", "times_conflict"]

ClockTime = tuple[int, bool]
"""(minutes after midnight, ambiguous between am and pm)."""

_ZH_NUM = r"\d{1,2}|[零一二两三四五六七八九十]{1,3}"
_EN_TIME = re.compile(
    r"(?<![\d:.])(\d{1,2})(?::(\d{2}))?\s*(?:(a\.?m\.?|p\.?m\.?)(?![a-z])|o'clock)"
    r"(?:\s+in\s+the\s+(morning|afternoon|evening))?"
    r"|(?<![\d:.])(\d{1,2}):(\d{2})(?![\d:])(?:\s+in\s+the\s+(morning|afternoon|evening))?"
)
_ZH_TIME = re.compile(
    rf"(凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间)?\s*({_ZH_NUM})\s*[点點时時]"
    rf"(?:\s*(半|一刻|三刻|(?:{_ZH_NUM})\s*分?))?"
)
_PM_WORDS = frozenset(["afternoon", "evening", "下午", "傍晚", "晚上", "夜里", "夜间"])
_AM_WORDS = frozenset(["morning", "凌晨", "早上", "早晨", "上午"])


def _zh_small(numeral: str) -> int:
    """A number up to 99 in digits or Chinese numerals (七 7, 十二 12, 三十 30)."""
    if numeral.isdigit():
        return int(numeral)
    if "十" not in numeral:
        return ZH_DIGITS.get(numeral, 0)
    tens, _, units = numeral.partition("十")
    return ZH_DIGITS.get(tens, 1) * 10 + ZH_DIGITS.get(units, 0)


def _clock(hour: int, minute: int, period: str | None) -> ClockTime | None:
    """The time, or None when it is no time of day (25:00, 7:75)."""
    if hour > 24 or minute > 59:
        return None
    if period in _PM_WORDS or (period or "").startswith("p"):
        return ((hour % 12 + 12) * 60 + minute, False)
    if period == "中午":
        return ((hour if hour >= 11 else hour + 12) * 60 + minute, False)
    if period in _AM_WORDS or (period or "").startswith("a"):
        return ((hour % 12) * 60 + minute, False)
    return ((hour % 24) * 60 + minute, 1 <= hour <= 12)


def _zh_minutes(part: str | None) -> int:
    if not part:
        return 0
    return {"半": 30, "一刻": 15, "三刻": 45}.get(part) or _zh_small(part.rstrip("分 "))


def clock_times(folded: str) -> tuple[frozenset[ClockTime], str]:
    """The times a case-folded answer states, and the answer with them blanked out."""
    found: set[ClockTime] = set()

    def english(m: re.Match[str]) -> str:
        if m[1] is not None:
            hour, minute, period = int(m[1]), int(m[2] or 0), m[3] or m[4]
        else:
            hour, minute, period = int(m[5]), int(m[6]), m[7]
        time = _clock(hour, minute, period)
        if time is None:
            return m[0]
        found.add(time)
        return " "

    def chinese(m: re.Match[str]) -> str:
        if m[1] is None and m[3] is None and m[2] == "一":
            return m[0]  # 一点 alone is "a little", not one o'clock
        time = _clock(_zh_small(m[2]), _zh_minutes(m[3]), m[1])
        if time is None:
            return m[0]
        found.add(time)
        return " "

    text = _EN_TIME.sub(english, folded)
    text = _ZH_TIME.sub(chinese, text)
    return frozenset(found), text


def _match(x: ClockTime, y: ClockTime) -> bool:
    if x[1] or y[1]:
        return x[0] % 720 == y[0] % 720
    return x[0] == y[0]


def times_conflict(a: frozenset[ClockTime], b: frozenset[ClockTime]) -> bool:
    """Both state times and neither's every time is one of the other's (as for numbers)."""
    if not a or not b:
        return False
    a_in_b = all(any(_match(x, y) for y in b) for x in a)
    b_in_a = all(any(_match(y, x) for x in a) for y in b)
    return not (a_in_b or b_in_a)
