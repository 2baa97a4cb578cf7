"""Denials said without a negation word, in English and Chinese.

- **negative statuses**: "closed", "failed", "rejected", "refused", "out of stock", "forbidden",
  "失败", "驳回", "缺货", "禁止" say "not open", "not done", "not approved", "not in stock", "not
  allowed". The polarity rule (`semantic/polarity`) reads them as a denial, so "The pharmacy is
  closed" agrees with "药店不营业" and "Your password could not be reset" with "密码重置失败", while
  "Your password has been reset" and "密码重置失败" differ in polarity. So do the prefixed words
  that Chinese says with a negation character ("illegal" 非法, "ineligible" 没有资格, "invalid"
  无效, "impossible" 不可能, "unlimited" 无限): read against an answer in another language, the
  prefix rule of `semantic/polarity` has no stem to find. Words that also state a
  direction or a plain event ("declined" of sales, "cancelled") are left to `opposite_status`.
- **free against a price**: an answer that says something is free ("free of charge", "at no cost",
  "免费") and one that states an amount of money other than zero ("costs $20", "门票20美元") differ,
  unless the second says free too.
"""

from __future__ import annotations

import re
from functools import lru_cache

from analyzer.metrics.semantic.guards import facts

__all__ = ["NEGATIVE_STATUS", "price_conflict"]

NEGATIVE_STATUS = re.compile(
    r"(?<![a-z-])(?:closed|failed|failure|unsuccessful|rejected|refused|banned|forbidden|prohibited"
    r"|sold out|out of stock|unpaid|illegal|unlawful|ineligible|invalid|impossible|nonrefundable"
    r"|unauthori[sz]ed|inaccessible|unavailable|unknown|unlimited|unsafe)(?![a-z-])"
    r"|失败|驳回|缺货|售罄|禁止|停业|关门|违法|违规"
)
"""Words that state a negative outcome (see the module docstring)."""

_FREE = re.compile(
    r"(?<![a-z-])(?:free of charge|for free|at no (?:extra |additional )?(?:cost|charge)|no charge"
    r"|costs? nothing|complimentary|free)(?![a-z-])|免费|不收费|无需付费"
)
_NOT_PRICE_FREE = re.compile(r"feel free|free to (?:ask|contact|reach|call|let)|free (?:time|up)\b")
_MONEY = frozenset(["usd", "eur", "cny", "gbp"])


@lru_cache(maxsize=65536)
def _free(text: str) -> bool:
    return _FREE.search(_NOT_PRICE_FREE.sub(" ", text)) is not None


@lru_cache(maxsize=65536)
def _priced(text: str) -> bool:
    """States an amount of money other than zero."""
    f = facts(text)
    return bool(f.units & _MONEY) and any(n > 0 for n in f.numbers)


def price_conflict(a: str, b: str) -> bool:
    """One answer says free and states no price; the other states a price and does not say free."""
    fa, fb = _free(a), _free(b)
    if fa == fb:
        return False
    free, other = (a, b) if fa else (b, a)
    return _priced(other) and not _priced(free)
