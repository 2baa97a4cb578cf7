"""Facts two answers must share before their meaning can count as the same.

A sentence embedding puts "refundable" and "not refundable", "3 items" and "4 items", "March 3" and
"March 4" close together: they are about the same thing. The `semantic` key therefore joins two
answers only when they also agree on these facts, read from the text in English and Chinese:

- **polarity**: whether the answer is negated (`not`, `no`, `never`, `cannot`, `n't`, `non-`,
  `不`, `没`, `无`, `未`, `非`, ...);
- **numbers**: the set of numbers it states, digits or words (`3`, `three`, `三`, `十二`, `两`), a
  scale word taken with its number (`86 billion`, `86,000,000,000` and `860亿` are one number);
- **months**: month names and `N月`, so `March 3` and `3月3日` state the same date;
- **units**: the set of units it names (km and 公里 are one unit; items and 件 too);
- **weekdays**: `Monday` and `星期一` are one day.

An answer that states no number (or no unit) does not disagree with one that does: "3 items" and
"3" are the same answer, "Paris" and "the capital is Paris" too. Numbers and units disagree only
when neither answer's set holds the other's, so an answer that shows its working ("3 bags each for
two passengers, 6 in all") still agrees with "6 bags"; months and weekdays must be equal.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from analyzer.metrics.semantic.numerals import EN_SCALES, EN_TENS, EN_UNITS, ZH_DIGITS, ZH_SCALES
from analyzer.metrics.semantic.quantities import spelled_numbers, temperatures
from analyzer.metrics.semantic.times import ClockTime, clock_times, times_conflict

__all__ = ["Facts", "conflict", "facts", "quantity_word"]

# fmt: off
_NEGATION_WORDS = frozenset([
    "not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor", "cannot", "cant",
    "without", "unable", "isnt", "arent", "wasnt", "werent", "dont", "doesnt", "didnt", "wont", "wouldnt",
    "shouldnt", "couldnt", "hasnt", "havent", "hadnt"
])
# fmt: on
_NEGATION_PREFIXES = ("non-", "non ", "un-")
_ZH_NEGATION = re.compile(r"[不没無无未非别否]")
_ZH_NEGATION_IDIOMS = ("不错", "不客气", "不用谢", "不仅", "不但", "无论", "非常", "未读", "未接", "无人机",
                       "无人驾驶", "无线", "非洲", "不丹", "否则", "不断", "不久", "不少")  # fmt: skip
"""Chinese words that contain a negation character but do not negate the answer."""

_WORD_NUMBERS = {**EN_UNITS, **EN_TENS, **EN_SCALES, "once": 1, "twice": 2}
_A_UNIT = re.compile(r"\b(?:a|an|one)\s+([a-z]+)")
_SCALE = re.compile(r"\s*(hundred|thousand|million|billion|trillion|万|亿)")
_SCALES = {**EN_SCALES, "万": ZH_SCALES["万"], "亿": ZH_SCALES["亿"]}
_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        ("january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
         "august aug", "september sep sept", "october oct", "november nov", "december dec")
    )
    for m in names.split()
}  # fmt: skip
_MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                "october", "november", "december"]  # fmt: skip
_KILO = ("千克", "千米")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_WEEKDAYS = {
    **{
        d: i
        for i, d in enumerate(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
    },
    **{f"星期{c}": i for i, c in enumerate("一二三四五六日")},
    **{f"周{c}": i for i, c in enumerate("一二三四五六日")},
    "星期天": 6,
}
_UNITS = {
    "km": ("km", "kilometer", "kilometers", "kilometre", "kilometres", "公里", "千米"),
    "m": ("meter", "meters", "metre", "metres", "米"),
    "mile": ("mile", "miles", "英里"),
    "kg": ("kg", "kilogram", "kilograms", "公斤", "千克"),
    "g": ("gram", "grams", "克"),
    "lb": ("lb", "lbs", "pound", "pounds", "磅"),
    "usd": ("$", "usd", "dollar", "dollars", "美元", "美金"),
    "eur": ("€", "eur", "euro", "euros", "欧元"),
    "cny": ("¥", "cny", "rmb", "yuan", "元", "人民币"),
    "gbp": ("£", "gbp", "英镑"),
    "percent": ("%", "percent", "per cent", "百分之"),
    "hour": ("hour", "hours", "hr", "hrs", "小时", "钟头"),
    "minute": ("minute", "minutes", "min", "mins", "分钟"),
    "second": ("second", "seconds", "sec", "secs", "秒"),
    "day": ("day", "days", "天"),
    "week": ("week", "weeks", "星期", "周"),
    "month": ("month", "months", "个月"),
    "year": ("year", "years", "年"),
    "item": ("item", "items", "piece", "pieces", "件", "pcs"),
    "bag": ("bag", "bags", "suitcase", "suitcases", "件行李", "行李"),
    "person": ("person", "people", "persons", "passenger", "passengers", "人", "位"),
}
_LARGER = {"minute": ("hour", 60), "second": ("hour", 3600), "g": ("kg", 1000), "m": ("km", 1000)}
_SMALL_UNIT = re.compile(
    r"(\d+(?:[.,]\d+)*)\s*(minutes?|mins?|seconds?|secs?|grams?|meters?|metres?|分钟|秒|克|米)(?![a-z])"
)
_HOURS_MINUTES = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:hours?|hrs?|小时)\s*(?:and\s+)?(\d+)\s*(?:minutes?|mins?|分钟|分)(?![a-z])"
)
_UNIT_OF = {alias: unit for unit, aliases in _UNITS.items() for alias in aliases}
_ZH_UNIT_ALIASES = sorted((a for a in _UNIT_OF if not a.isascii() and a not in "$€¥£"), key=len, reverse=True)
_ZH_COUNTERS = "件个本张次天月年号日元岁点分秒人位台条份只块双周倍公米克斤英小美欧磅星"
"""Characters after which a Chinese numeral is a number (so 一 in 一下 or 统一 is not)."""
_ZH_RUN = re.compile(r"[零〇一二两三四五六七八九十百千万亿]+")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_LATIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|[$€¥£%]")
_UNIT_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[a-z]+(?:'[a-z]+)?|[$€¥£%]")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")


@dataclass(frozen=True)
class Facts:
    """What an answer states besides its wording."""

    negated: bool
    numbers: frozenset[float]
    months: frozenset[int]
    units: frozenset[str]
    weekdays: frozenset[int]
    times: frozenset[ClockTime] = frozenset()
    """Clock times (`semantic/times`): their digits are not in `numbers`."""


@lru_cache(maxsize=65536)
def facts(text: str) -> Facts:
    """The polarity, numbers, units and weekdays an answer states.

    Args:
        text: The answer (any case; NFKC is applied here).
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = _ISO_DATE.sub(_spelled_date, folded)  # 2024-06-01 is June 1, 2024
    times, folded = clock_times(spelled_numbers(folded))
    words = _LATIN_WORD.findall(folded.replace("’", "'"))
    folded = folded.replace("百分之", "%")  # 百分之十 is ten percent: 百 is not a hundred here
    numbers: set[float] = set()
    months = {_MONTHS[w] for w in words if _is_month(w, folded)}
    scaled: set[int] = set()
    for d in _DIGITS.finditer(folded):
        is_month = folded[d.end() : d.end() + 1] == "月" and folded[d.end() + 1 : d.end() + 2] != "份"
        scale = _SCALE.match(folded, d.end())
        if scale is not None:  # 86 billion, 860亿: one number, not 86 and a billion
            scaled.add(scale.start(1))
        value = _number(d[0]) * (_SCALES[scale[1]] if scale is not None else 1)
        months.add(int(value)) if is_month else numbers.add(value)
    numbers |= {1.0 for m in _A_UNIT.finditer(folded) if _UNIT_OF.get(m[1], "person") != "person"}  # an hour
    numbers |= {
        float(_WORD_NUMBERS[m[0]])
        for m in re.finditer(r"[a-z]+", folded)
        if m[0] in _WORD_NUMBERS and m.start() not in scaled
    }
    zh = _without_weekdays(folded)
    for run in _ZH_RUN.finditer(zh):
        if zh[: run.start()][-1:].isdigit() and (
            run[0][0] in "万亿" or zh[run.start() : run.end() + 1] in _KILO
        ):
            continue  # the scale of a number in digits, read above, or the 千 of 千克 / 千米
        if zh[run.end() : run.end() + 1] == "月" and zh[run.end() + 1 : run.end() + 2] != "份":
            months.add(_zh_number(run[0]))
        elif _counted(zh, run):
            numbers.add(float(_zh_number(run[0])))
    numbers, units = temperatures(folded, *_in_larger_units(folded, numbers, _units(folded)))
    return Facts(
        negated=_negated(folded, words),
        numbers=frozenset(float(n) for n in numbers),
        months=frozenset(months),
        units=frozenset(units),
        weekdays=frozenset(v for k, v in _WEEKDAYS.items() if k in folded),
        times=times,
    )


_QUANTITY_WORDS = frozenset(
    ["am", "pm", "o'clock", "degree", "degrees", "celsius", "fahrenheit", "c", "f", "cent", "cents", "and"]
)


def quantity_word(word: str) -> bool:
    """A word that only states a quantity (a number, a unit, am / pm): the facts guard compares
    those, so two answers that differ only in such words are left to it ("7:30 pm" / "19:30")."""
    return (
        _is_number(word)
        or word in _UNIT_OF
        or word in _QUANTITY_WORDS
        or all(c in ZH_DIGITS or c in ZH_SCALES for c in word)
    )


def _spelled_date(m: re.Match[str]) -> str:
    month = int(m[2])
    return f"{_MONTH_NAMES[month - 1]} {int(m[3])}, {m[1]}" if 1 <= month <= 12 else m[0]


def _in_larger_units(folded: str, numbers: set[float], units: set[str]) -> tuple[set[float], set[str]]:
    """Minutes and seconds as hours, grams as kilograms, metres as kilometres, so "120 minutes" is
    "2 hours" and "2000 grams" is "2 kg" (only these exact metric and clock conversions)."""
    for m in _HOURS_MINUTES.finditer(folded):  # 2 hours 30 minutes is 2.5 hours
        hours, minutes = _number(m[1]), _number(m[2])
        numbers.difference_update((hours, minutes))
        numbers.add(round(hours + minutes / 60, 6))
        units.add("hour")
    folded = _HOURS_MINUTES.sub(" ", folded)
    for m in _SMALL_UNIT.finditer(folded):
        unit = _UNIT_OF[m[2]]
        larger, factor = _LARGER[unit]
        value = _number(m[1])
        numbers.discard(value)
        numbers.add(round(value / factor, 6))
        units.discard(unit)
        units.add(larger)
    return numbers, units


def conflict(a: Facts, b: Facts) -> str | None:
    """Why two answers cannot mean the same (`negation`, `numbers`, `dates`, `units`, `weekdays`,
    `times`).

    None when nothing conflicts. Months and weekdays conflict only when both answers state some and
    the sets differ; numbers and units only when neither answer's set holds the other's (a longer
    answer may show its working: "3 bags each for two passengers, 6 in all" is the answer "6 bags").
    """
    if a.negated != b.negated:
        return "negation"
    if a.numbers and b.numbers and not (a.numbers <= b.numbers or b.numbers <= a.numbers):
        return "numbers"
    if a.months and b.months and a.months != b.months:
        return "dates"
    if a.units and b.units and not (a.units <= b.units or b.units <= a.units):
        return "units"
    if a.weekdays and b.weekdays and a.weekdays != b.weekdays:
        return "weekdays"
    if times_conflict(a.times, b.times):
        return "times"
    return None


def _negated(folded: str, words: list[str]) -> bool:
    if any(w.replace("'", "") in _NEGATION_WORDS or w.endswith("n't") for w in words):
        return True
    if any(p in folded for p in _NEGATION_PREFIXES) or "n't" in folded:
        return True
    cjk = "".join(_CJK_RUN.findall(folded))
    for idiom in _ZH_NEGATION_IDIOMS:
        cjk = cjk.replace(idiom, "")
    return bool(_ZH_NEGATION.search(cjk))


def _units(folded: str) -> set[str]:
    """Units named next to a number: `5 km`, `$5`, `20%`, `three items`; "missing person" has none."""
    tokens = ["", *_UNIT_TOKEN.findall(folded), ""]
    found = {
        _UNIT_OF[t]
        for i, t in enumerate(tokens)
        if t in _UNIT_OF and (_is_number(tokens[i - 1]) or _is_number(tokens[i + 1]))
    }
    for alias in _ZH_UNIT_ALIASES:  # longest first: 美元 is dollars, not 元
        for at in [m.start() for m in re.finditer(re.escape(alias), folded)]:
            if _after_numeral(folded, at):
                found.add(_UNIT_OF[alias])
        folded = folded.replace(alias, " ")
    if "per cent" in folded or "%" in folded:
        found.add("percent")
    if {"bag", "item"} <= found:
        found.discard("item")  # 件 in 件行李 counts bags, not items
    if "week" in found and any(day in folded for day in _WEEKDAYS if not day.isascii()):
        found.discard("week")  # 星期一 is a day, not a number of weeks
    return found


def _counted(text: str, run: re.Match[str]) -> bool:
    """A Chinese numeral is a number before a counter (三件), after 百分之 or 第, or standing alone."""
    after = text[run.end() : run.end() + 1]
    before = text[: run.start()]
    alone = text.strip(" .,!?;:。，！？；：") == run[0]
    return alone or (after != "" and after in _ZH_COUNTERS) or before.endswith(("%", "第"))


def _is_number(word: str) -> bool:
    return bool(word) and (word[0].isdigit() or word in _WORD_NUMBERS)


def _after_numeral(text: str, at: int) -> bool:
    """A Chinese unit counts only after a number (5公里, 三件, 两个人), so 人 in 人们 is no unit."""
    before = text[max(0, at - 2) : at].rstrip(" 个位名")
    return bool(before) and (before[-1].isdigit() or before[-1] in ZH_DIGITS or before[-1] in ZH_SCALES)


def _is_month(word: str, folded: str) -> bool:
    """A month name; `may` only next to a number (`May 21`, `21 may`)."""
    if word != "may":
        return word in _MONTHS
    return re.search(r"\bmay\s+\d|\d(?:st|nd|rd|th)?\s+may\b", folded) is not None


def _without_weekdays(folded: str) -> str:
    for day in _WEEKDAYS:
        if not day.isascii():
            folded = folded.replace(day, " ")
    return folded


def _number(digits: str) -> float:
    """`1,000` is a thousand, `3,5` is three and a half (a comma before one or two digits)."""
    parts = digits.split(",")
    if len(parts) > 1 and all(len(p) == 3 for p in parts[1:]):
        digits = "".join(parts)
    else:
        digits = digits.replace(",", ".")
    if digits.count(".") > 1:
        digits = digits.replace(".", "")
    return float(digits)


def _zh_number(numeral: str) -> int:
    """A Chinese numeral as an integer: 三 3, 十二 12, 二十 20, 两百五十 250, 一万 10000, 二〇二四 2024."""
    if not any(char in ZH_SCALES for char in numeral):
        return int("".join(str(ZH_DIGITS[char]) for char in numeral))
    total, section, digit = 0, 0, 0
    for char in numeral:
        if char in ZH_DIGITS:
            digit = ZH_DIGITS[char]
        elif char in ("万", "亿"):
            total += (section + digit) * ZH_SCALES[char]
            section, digit = 0, 0
        else:
            section += (digit or 1) * ZH_SCALES[char]
            digit = 0
    return total + section + digit
