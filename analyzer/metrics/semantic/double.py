"""Double negations read as the assertion they make, in English and Chinese.

"The device is not incompatible with iOS", "Your membership hasn't expired" and "这款设备并非不兼容iOS"
each hold a negation word, so the polarity rule (`semantic/polarity`) would read them as denials and
put them beside "it doesn't work with iOS" / "该设备不支持iOS". A negation of a word that is itself a
denial (`incompatible`, `invalid`, `expired`, `closed`, `sold out`) asserts the opposite word, and a
Chinese negation directly before another (`并非不`, `不是不`, `没有不`) cancels it, one before 无
says 有 (`并非无效`, `不无道理`), and one before a word that denies (`没有过期`, `并不违法`) says its
opposite (`有效`, `合法`). The
embedded text (`semantic/text`) carries the assertion instead: "is compatible", "is valid", "兼容".
Only the listed words are turned round: "not included" or "not interested" start with `in` but are
plain denials.
"""

from __future__ import annotations

import re

__all__ = ["cancel_double_negation"]

# fmt: off
_OPPOSITE = {
    "incompatible": "compatible", "inaccessible": "accessible", "unavailable": "available",
    "invalid": "valid", "ineligible": "eligible", "illegal": "legal", "unlawful": "lawful",
    "impossible": "possible", "unsuccessful": "successful", "unpaid": "paid", "unsafe": "safe",
    "unknown": "known", "unlimited": "limited", "unauthorized": "authorized", "unauthorised": "authorised",
    "incorrect": "correct", "untrue": "true", "false": "true", "wrong": "right", "expired": "valid",
    "closed": "open", "failed": "successful", "rejected": "approved", "sold out": "available",
    "out of stock": "in stock", "forbidden": "allowed", "prohibited": "allowed", "banned": "allowed",
    "nonrefundable": "refundable", "non-refundable": "refundable", "unable": "able",
}
_ZH_OPPOSITE = {
    "过期": "有效", "失效": "有效", "失败": "成功", "售罄": "有票", "缺货": "有货", "关门": "营业",
    "违法": "合法", "违规": "合规", "非法": "合法",
}
# fmt: on
_AUX = "is|are|was|were|has|have|had|do|does|did|will|would|can|could"
_EN = re.compile(
    rf"\b((?:{_AUX})\s+not|(?:is|are|was|were|has|have|had|do|does|did|would|could|should|wo|ca)n['’]t|not|never)\s+"
    r"(?:(?:yet|been|be|become|at\s+all|entirely|completely)\s+)*"
    rf"({'|'.join(sorted(map(re.escape, _OPPOSITE), key=len, reverse=True))})(?![\w-])"
)
_ZH_NEGATORS = r"(?:并非|并不是|并不|不是|绝非|没有|不会|不能|非|不)"
_ZH_DOUBLE = re.compile(rf"{_ZH_NEGATORS}(?:不|没有|没)(?=[\u4e00-\u9fff])")
_ZH_NOT_WITHOUT = re.compile(rf"{_ZH_NEGATORS}无(?=[\u4e00-\u9fff])")
_ZH_NEGATED = re.compile(rf"(?:尚未|并未|还没有|没有|还没|没|未|并不|不是|不)({'|'.join(_ZH_OPPOSITE)})")


def _asserted(m: re.Match[str]) -> str:
    """ "is not incompatible" / "hasn't expired" -> "is compatible" / "is valid"; "never closed" -> "open"."""
    return _OPPOSITE[m[2]] if m[1] in ("not", "never") else f"is {_OPPOSITE[m[2]]}"


def cancel_double_negation(text: str) -> str:
    """The normalized answer with each double negation replaced by what it asserts."""
    if "n" in text:
        text = _EN.sub(_asserted, text)
    if any("\u4e00" <= c <= "\u9fff" for c in text):
        text = _ZH_NOT_WITHOUT.sub("有", _ZH_DOUBLE.sub("", text))  # 并非无效: 有效
        text = _ZH_NEGATED.sub(lambda m: _ZH_OPPOSITE[m[1]], text)
    return text
