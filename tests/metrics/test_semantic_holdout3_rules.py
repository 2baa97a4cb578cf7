"""The semantic key's rules from holdout3's error classes: double negations, hedges, confirmation
questions and done acts, order and decision statuses, two things called separate, durations in
months, containment that adds a reason, and the higher bar for two long answers; each in English
and Chinese, with a pair that must still join."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from analyzer.metrics.semantic.distinct import distinct_conflict
from analyzer.metrics.semantic.double import cancel_double_negation
from analyzer.metrics.semantic.embed import EmbeddingCache
from analyzer.metrics.semantic.guards import conflict, facts
from analyzer.metrics.semantic.hedge import hedge_conflict
from analyzer.metrics.semantic.key import LONG_ANSWER, LONG_MARGIN, PairJudge, _contained, _facts_conflict
from analyzer.metrics.semantic.marks import opposite_status
from analyzer.metrics.semantic.mood import mood_conflict
from analyzer.metrics.semantic.polarity import polarity
from analyzer.metrics.semantic.text import embedding_text


@pytest.mark.parametrize(
    ("text", "asserted"),
    [
        ("the device is not incompatible with ios.", "the device is compatible with ios."),
        ("your membership hasn't expired.", "your membership is valid."),
        ("tickets are not sold out yet.", "tickets is available yet."),
        ("这款设备并非不兼容ios。", "这款设备兼容ios。"),
        ("您的会员资格没有过期。", "您的会员资格有效。"),
        ("在新加坡嚼口香糖并不违法", "在新加坡嚼口香糖合法"),
        ("这张券并非无效", "这张券有效"),
    ],
)
def test_a_double_negation_reads_as_its_assertion(text: str, asserted: str) -> None:
    assert cancel_double_negation(text) == asserted
    assert polarity(embedding_text(text)) == frozenset()


@pytest.mark.parametrize(
    "text", ["breakfast is not included.", "it is not important.", "该设备不支持ios。", "不含早餐。"]
)
def test_a_plain_denial_stays_a_denial(text: str) -> None:
    assert cancel_double_negation(text) == text
    assert "deny" in polarity(embedding_text(text))


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("the device is not incompatible with ios.", "no, it doesn't work with ios.", False),
        ("这款设备并非不兼容ios。", "该设备不支持ios。", False),
        ("your membership is no longer valid.", "your membership hasn't expired.", False),
        ("the device is not incompatible with ios.", "这款设备并非不兼容ios。", True),
        ("your membership hasn't expired.", "您的会员资格没有过期。", True),
    ],
)
def test_double_negations_against_denials(a: str, b: str, same: bool) -> None:
    assert (_facts_conflict(embedding_text(a), embedding_text(b)) is None) is same


@pytest.mark.parametrize(
    ("a", "b", "differ"),
    [
        ("it will probably rain tomorrow.", "it will rain tomorrow.", True),
        ("明天很可能会下雨。", "明天会下雨。", True),
        ("popes don't need to be italian", "the pope is not italian", True),
        ("教皇不必是意大利人。", "教皇不是意大利人。", True),
        ("it will probably rain tomorrow.", "明天很可能会下雨。", False),
        ("you don't need to wear a helmet.", "不需要戴头盔。", False),
        ("it will rain tomorrow. it might be windy too.", "明天会下雨。", False),  # a later hedge
    ],
)
def test_hedged_claims(a: str, b: str, differ: bool) -> None:
    assert hedge_conflict(a, b) is differ


@pytest.mark.parametrize(
    ("a", "b", "differ"),
    [
        (
            "i've rebooked you on the 9:00 flight.",
            "would you like me to rebook you on the 9:00 flight?",
            True,
        ),
        ("已为您改签到9点的航班。", "would you like me to rebook you on the 9:00 flight?", True),
        ("your subscription has been cancelled.", "are you sure you want to cancel your subscription?", True),
        ("已为您取消订阅。", "确定要取消订阅吗？", True),
        ("would you like me to rebook you on the 9:00 flight?", "您想改签到9点的航班吗？", False),
        ("your subscription has been cancelled.", "已为您取消订阅。", False),
    ],
)
def test_a_confirmation_question_is_not_the_act(a: str, b: str, differ: bool) -> None:
    assert mood_conflict(a, b) is differ


@pytest.mark.parametrize(
    ("a", "b", "differ"),
    [
        ("your order has shipped.", "your order is still being packed at the warehouse.", True),
        ("您的订单已发货。", "您的订单还在备货中。", True),
        ("your loan application was declined.", "your loan application is still under review.", True),
        ("很遗憾，您的贷款申请被拒绝了。", "您的贷款申请正在审核中。", True),
        ("yes, breakfast is included.", "breakfast is charged separately.", True),
        ("含早餐。", "早餐另收费。", True),
        ("your order has shipped.", "您的订单已发货。", False),
        ("breakfast is charged separately.", "早餐需额外收费。", False),
    ],
)
def test_order_decision_and_inclusion_statuses(a: str, b: str, differ: bool) -> None:
    assert opposite_status(a, b) is differ


def test_durations_in_months() -> None:
    assert conflict(facts("the warranty lasts 24 months."), facts("保修期为24天。")) == "units"
    assert conflict(facts("the warranty lasts 24 months."), facts("保修期为24个月。")) is None
    assert facts("3月3日").units == frozenset()  # a date, not a duration


def test_containment_that_adds_a_reason_is_left_to_the_embedding() -> None:
    assert not _contained("turkey is in the eu", "turkey is in the eu because it's in europe")
    assert not _contained("土耳其在欧盟", "土耳其在欧盟因为它在欧洲")
    assert _contained("paris", "the capital is paris")
    assert _contained("巴黎", "首都是巴黎")


class _Unit:
    name = "unit-long"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), 1), dtype=np.float32)


def test_two_long_answers_need_a_higher_similarity(tmp_path: Path) -> None:
    judge = PairJudge(EmbeddingCache(_Unit(), tmp_path, persist=False), 0.6, 0.5, 0.45)
    long_en, long_zh = "x" * LONG_ANSWER, "长" * LONG_ANSWER
    assert judge.needed(long_en, long_en + " y") == pytest.approx(0.6 + LONG_MARGIN)
    assert judge.needed(long_zh, long_en) == pytest.approx(0.45 + LONG_MARGIN)
    assert judge.needed("short answer", long_en) == pytest.approx(0.6)


@pytest.mark.parametrize(
    ("a", "b", "differ"),
    [
        ("scotland and england are two countries inside the uk", "scotland is part of england", True),
        ("苏格兰和英格兰是两个国家。", "苏格兰是英格兰的一部分。", True),
        ("scotland and england are two countries inside the uk", "苏格兰和英格兰是两个国家。", False),
        ("scotland and england are two countries inside the uk", "scotland is not part of england", False),
    ],
)
def test_two_things_called_separate_against_one_inside_the_other(a: str, b: str, differ: bool) -> None:
    assert distinct_conflict(a, b) is differ
