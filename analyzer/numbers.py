"""The one number style of every rendering (dashboard, terminal, HTML report).

- counts are integers with thousands separators: `56,624`;
- a count with its noun agrees in number: `1 log`, `2 logs` (never `log(s)`);
- shares read `66.7 %`, differences of shares `43.3 pp`;
- an interval follows its value: `43.3 pp (95 % CI 27.4–60.8)`, the unit once, after the value;
  with a negative end the ends are joined by "to": `-22.5 pp (95 % CI -40.0 to -5.1)`;
- p-values read `p = 0.032` or `p < 0.001`;
- a tool-call step reads `tool call 1` for the first call (the analyzer's indices are 0-based);
- durations read `45 s`, `3 min 05 s`, `1 h 02 min`.

A missing value (None or NaN) reads `—` in a table's cell; a figure (a page's tile, a report's
figure or sentence) whose value the analyzer gives as None reads `not recorded` (`recorded`): the
analyzer says None when the log does not record what the figure counts, never 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

NONE = "—"
"""What a missing value reads."""

NOT_RECORDED = "not recorded"
"""What a figure reads when the log does not record what it counts."""

RANGE = "–"
"""The dash between an interval's ends (an en dash)."""
SIGNED_RANGE = " to "
"""Between an interval's ends when either is negative: `-40.0 to -5.1`, never `-40.0–-5.1`."""

_DIGITS = re.compile(r"(\d+)")

Bounds = Sequence[float] | None
"""An interval as [low, high], or None."""


def missing(value: object) -> bool:
    """None, NaN or pandas' NA."""
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN and pandas.NA are not equal to themselves
    except TypeError:
        return True


def count(value: float | None) -> str:
    """An integer with thousands separators: `56,624`."""
    if missing(value):
        return NONE
    return f"{round(float(value)):,}"  # type: ignore[arg-type]


def recorded(text: str) -> str:
    """A figure as shown: `not recorded` where its formatter had no value (`—`), else the text."""
    return NOT_RECORDED if text == NONE else text


def counted(value: int | None, noun: str, plural: str | None = None) -> str:
    """A count with its noun in agreement: `1 log`, `3 logs`, `2 tasks`, `1 key`, `2 keys`; without
    a count, `retries not recorded`."""
    word = noun if value == 1 else (plural or _plural(noun))
    return f"{word} {NOT_RECORDED}" if missing(value) else f"{count(value)} {word}"


_HARD_CH = ("epoch", "stomach", "monarch")
"""Nouns whose -ch sounds /k/: their plural takes -s (`27 epochs`, never `epoches`)."""


def _plural(noun: str) -> str:
    if noun.endswith(_HARD_CH):
        return noun + "s"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def num(value: float | None, digits: int = 1) -> str:
    """A measured quantity with `digits` decimals and thousands separators: `1,304.5`."""
    return NONE if missing(value) else f"{float(value):,.{digits}f}"  # type: ignore[arg-type]


def pp(value: float | None) -> str:
    """Percentage points: `43.3 pp`."""
    return NONE if missing(value) else f"{float(value):.1f} pp"  # type: ignore[arg-type]


def pct(share: float | None) -> str:
    """A 0..1 share as a percentage: `66.7 %`."""
    return NONE if missing(share) else f"{100 * float(share):.1f} %"  # type: ignore[arg-type]


def ci(bounds: Bounds, *, share: bool = False, digits: int = 1) -> str:
    """`95 % CI 27.4–60.8` (ends of a 0..1 share in %; `digits` after the point, 3 for a mean
    reward or score), or an empty string without an interval."""
    if not bounds or len(bounds) != 2 or missing(bounds[0]) or missing(bounds[1]):
        return ""
    scale = 100.0 if share else 1.0
    low, high = (_fixed(scale * end, digits) for end in bounds)
    joint = SIGNED_RANGE if low.startswith("-") or high.startswith("-") else RANGE
    return f"95 % CI {low}{joint}{high}"


def _fixed(value: float, digits: int) -> str:
    """`value` with `digits` decimals, and no sign on a value that rounds to zero (`0.0`, not `-0.0`)."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def pp_ci(value: float | None, bounds: Bounds) -> str:
    """`43.3 pp (95 % CI 27.4–60.8)`; the value alone without an interval."""
    return _with(pp(value), ci(bounds))


def pct_ci(share: float | None, bounds: Bounds) -> str:
    """`66.7 % (95 % CI 54.2–84.8)` for a 0..1 share and its 0..1 bounds."""
    return _with(pct(share), ci(bounds, share=True))


def num_ci(value: float | None, bounds: Bounds, digits: int = 1) -> str:
    """`0.812 (95 % CI 0.701–0.902)` for a measured quantity (a mean reward or score: `digits=3`)."""
    return _with(num(value, digits), ci(bounds, digits=digits))


def yes_no(value: object) -> str:
    """`yes` or `no` for a flag, `—` where it was not recorded."""
    return NONE if missing(value) else ("yes" if value else "no")


def _with(value: str, interval: str) -> str:
    return f"{value} ({interval})" if interval and value != NONE else value


def p_value(p: float | None, name: str = "p") -> str:
    """`p = 0.032`, `p < 0.001`; `q` for an adjusted p-value."""
    if missing(p):
        return NONE
    if float(p) < 0.001:  # type: ignore[arg-type]
        return f"{name} < 0.001"
    return f"{name} = {float(p):.3f}"  # type: ignore[arg-type]


def duration(seconds: float | None) -> str:
    """`45 s`, `3 min 05 s`, `1 h 02 min`."""
    if missing(seconds) or math.isinf(float(seconds)):  # type: ignore[arg-type]
        return NONE
    total = max(0, round(float(seconds)))  # type: ignore[arg-type]
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sorts ids as people count: `9`, `10`, `100` ... `109`, `110` (digits by value, the rest as
    text), never `10`, `100`, `109`, `110`, `9`."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in _DIGITS.split(text) if part)


def call_step(index: int) -> str:
    """The analyzer's 0-based tool-call index as people count: `tool call 1` is the first call."""
    return f"tool call {int(index) + 1}"
