"""Two more facts an answer states in few characters: the codes it names and its yes-or-no verdict.

- **codes**: tokens mixing digits and letters (`14C`, `HAT088`, `M20IZO`): a seat, a flight, a
  reservation. A sentence embedding reads `14C` and `14D` as one; two answers that both name codes
  must name the same ones (or one answer's a subset of the other's, as for numbers). Ordinals
  (`21st`), times (`7am`) and a number glued to a unit of two letters or more (`5km`) are not codes.
- **verdict**: an answer that opens with yes (`yes`, `yeah`, `correct`, `是的`, `可以`) or with no
  (`no`, `nope`, `不是`, `没有`, `不可以`) has given its verdict before its reasons; two answers with opposite
  verdicts differ, whatever follows ("Yes, X is not prohibited" / "No, X is not allowed").
- **opposite statuses**: an outcome said without a negation (`cancelled` / `as scheduled`,
  `allowed` / `prohibited`, `open` / `closed`, `on time` / `delayed`, `approved` / `rejected`,
  `available` / `sold out`, `succeeded` / `failed`, `paid` / `unpaid`, `postponed` / `went ahead`,
  `rose` / `fell`, `增长` / `下降`, a flight's `cancelled` against `on time` or `delayed`,
  `delivered` / `in transit` / `still in`, `survived` / `died`, `valid` / `expired`, `confirmed` /
  `pending`, `upgraded` / `downgraded`, `shipped` / `still being packed`, a decision (`approved`,
  `declined`) / `under review`, `included` / `charged separately`), in English and Chinese:
  two answers that each name one side of a pair, and not the other, differ.
- **prefix antonyms**: `eligible` / `ineligible`, `legal` / `illegal`, `available` /
  `unavailable`: one answer has a word, the other that word with a negating prefix.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["codes", "opposite_status", "verdict"]

_CODE = re.compile(r"(?<![\w.])(?=[a-z]*\d)(?=\d*[a-z])[a-z\d]{2,}(?![\w])")
_NOT_CODE = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|hr|hrs|min|mins|km|kg|mm|cm|ml|lb|lbs|mph|kmh|gb|mb|kb|tb|bn)"
)
_YES = re.compile(r"(?:yes|yeah|yep|correct|that's right|是的|对的|对[,.!]|可以)(?![a-z])")
_NO = re.compile(r"(?:no|nope|不是|不对|不可以|不行|没有|不[,.!])(?![a-z])")


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


# fmt: off
_STATUS_PAIRS = (
    (("cancelled", "canceled", "called off", "取消"),
     ("as scheduled", "as planned", "on schedule", "went ahead", "照常", "按计划", "按时起飞", "如期")),
    (("cancelled", "canceled", "called off", "取消"),
     ("on time", "punctual", "准时", "准点", "delayed", "late", "延误", "晚点")),
    (("postponed", "pushed back", "rescheduled", "推迟", "延期", "改期"),
     ("as scheduled", "as planned", "on schedule", "went ahead", "照常", "按计划", "如期")),
    (("rose", "risen", "grew", "grown", "increased", "went up", "gone up", "增长", "上升", "上涨", "增加"),
     ("fell", "fallen", "dropped", "declined", "decreased", "went down", "gone down", "下降", "下跌",
      "减少")),
    (("delivered", "arrived", "送达", "已送到", "已到达"),
     ("in transit", "on its way", "on the way", "still in", "still at", "lost", "运输中", "途中", "仍在",
      "丢失")),
    (("survive", "survives", "survived", "alive", "unharmed", "be fine", "活着", "幸存", "没事"),
     ("die", "dies", "died", "dead", "killed", "fatal", "死亡", "会死", "死了", "丧命")),
    (("valid", "有效"), ("expired", "过期", "失效")),
    (("confirmed", "已确认"), ("pending", "待确认", "待处理")),
    (("upgraded", "升舱", "升级"), ("downgraded", "降舱", "降级")),
    (("allowed", "permitted", "welcome", "允许", "欢迎"),
     ("forbidden", "prohibited", "banned", "禁止", "不准", "不允许")),
    (("open", "opens", "开门", "营业"), ("closed", "closes", "关门", "停业", "不营业", "休息")),
    (("on time", "punctual", "准时", "准点"), ("delayed", "late", "延误", "晚点", "推迟")),
    (("approved", "accepted", "批准", "通过"), ("rejected", "denied", "declined", "拒绝", "驳回")),
    (("available", "in stock", "有货"), ("unavailable", "sold out", "out of stock", "缺货", "售罄")),
    (("succeeded", "successful", "successfully", "成功"), ("failed", "failure", "unsuccessful", "失败")),
    (("paid", "已付款", "已支付"), ("unpaid", "未付款", "未支付")),
    (("shipped", "dispatched", "on its way", "on the way", "已发货", "已寄出", "已发出"),
     ("being packed", "being prepared", "still at the warehouse", "not shipped", "not yet shipped",
      "待发货", "备货中", "未发货", "尚未发货", "还没发货")),
    (("approved", "declined", "rejected", "turned down", "denied", "批准", "拒绝", "驳回"),
     ("under review", "being reviewed", "in review", "being processed", "pending", "审核中", "待审核",
      "审批中", "处理中")),
    (("included", "includes", "包含", "含"),
     ("charged separately", "extra charge", "additional charge", "additional fee", "costs extra",
      "另收费", "另外收费", "额外收费", "单独收费", "不含", "不包含")),
)
# fmt: on


def _side_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    parts = [
        re.escape(w) if not w.isascii() else rf"(?<![a-z]){re.escape(w)}(?![a-z])"
        for w in sorted(words, key=len, reverse=True)
    ]
    return re.compile("|".join(parts))


_STATUS_PATTERNS = tuple((_side_pattern(first), _side_pattern(second)) for first, second in _STATUS_PAIRS)


@lru_cache(maxsize=65536)
def _sides(text: str) -> tuple[int, ...]:
    """For each status pair: 1 or 2 when the answer names only that side, else 0."""
    out = []
    for first, second in _STATUS_PATTERNS:
        rest = second.sub(" ", text)  # the second side first: 不营业 holds 营业
        has_second, has_first = rest != text, first.search(rest) is not None
        out.append(0 if has_first == has_second else (1 if has_first else 2))
    return tuple(out)


def opposite_status(a: str, b: str) -> bool:
    """Each answer names one side of a status pair, and they name opposite sides."""
    return any(x and y and x != y for x, y in zip(_sides(a), _sides(b), strict=True))
