"""The semantic key's polarity rule: an assertion and a denial are never joined, save one exception."""

from __future__ import annotations

import pytest

from analyzer.metrics.semantic.key import PairJudge, _facts_conflict
from analyzer.metrics.semantic.polarity import pair_polarity, polarity, restated_clause


@pytest.mark.parametrize(
    "text",
    [
        "the fare is not refundable",
        "no refund is possible",
        "you can never change it",
        "neither cats nor dogs are allowed",
        "i cannot change your seat",
        "i can't change your seat",
        "i won't be able to help",
        "the seat isn't free",
        "you may travel without a visa",
        "the fare is non-refundable",
        "the airline refused to refund it",
        "the airline failed to refund it",
        "i am unable to book it",
        "the lounge is no longer open",
        "every flight except the short ones",
        "he hardly ever flies",
        "不可以退款",
        "没有座位了",
        "无法改签",
        "非会员价",
        "尚未取消",
        "别带液体",
        "请勿吸烟",
        "是否退款取决于票价",
        "航空公司拒绝退款",
        "除了周一都有航班",
    ],
)
def test_each_denial_cue_denies(text: str) -> None:
    assert "deny" in polarity(text), text


@pytest.mark.parametrize(
    "text",
    [
        "the fare is refundable",
        "yes, you can change it",
        "可以退款",
        "no problem, your seat is 14c",
        "not only the seat but the meal",
        "不客气",
        "这个价格不错",
        "非常感谢",
        "未来三天都有航班",
    ],
)
def test_words_that_hold_a_negation_but_deny_nothing_assert(text: str) -> None:
    assert polarity(text) == frozenset(), text


def test_a_negated_quantifier_and_a_question_are_kinds_of_their_own() -> None:
    assert polarity("the train is not always punctual") == {"partial"}
    assert polarity("这趟火车不一定准时") == {"partial"}
    assert polarity("the train is never late") == {"deny"}
    assert polarity("能不能退款要看票价") == {"ask"}
    assert polarity("可以退款不？") == {"ask"}
    assert polarity("这不是免费的吗？") == {"ask", "deny"}


def test_a_prefix_negated_word_denies_beside_its_stem() -> None:
    assert pair_polarity("refundable", "nonrefundable") == (frozenset(), {"deny"})
    assert pair_polarity("you are eligible", "you are ineligible") == (frozenset(), {"deny"})
    assert pair_polarity("not eligible", "ineligible") == ({"deny"}, {"deny"})


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("the train is not always punctual", "the train is never late"),  # partial / deny
        ("the train is not always punctual", "the train is always punctual"),  # partial / assert
        ("the fare is refundable", "the fare is not refundable"),
        ("the fare is refundable", "the fare is nonrefundable"),
        ("you are eligible for the upgrade", "you are ineligible for the upgrade"),
        ("the airline refunded the ticket", "the airline refused to refund the ticket"),
        ("the airline refunded the ticket", "the airline failed to refund the ticket"),
        ("the lounge is available", "the lounge is no longer available"),
        ("meals are included on every flight", "meals are included on every flight except the short ones"),
        ("cats and dogs are allowed", "neither cats nor dogs are allowed"),
        ("i can change your seat", "i can't change your seat"),
        ("可以携带液体", "请勿携带液体"),
        ("所有航班都含餐", "除了短途航班，所有航班都含餐"),
        ("航空公司已退款", "航空公司拒绝退款"),
        ("能退款", "能不能退款要看票价"),
        ("it was signed on august 2", "it was not signed on august 2"),
    ],
)
def test_differing_polarity_is_never_joined(a: str, b: str) -> None:
    assert _facts_conflict(a, b) == "negation"
    assert _facts_conflict(b, a) == "negation"


def test_the_one_exception_a_clause_that_restates_the_other_whole() -> None:
    negated = "it was not signed on july 4; it was signed on august 2"
    assert restated_clause(negated, "it was signed on august 2") == "it was signed on august 2"
    assert _facts_conflict(negated, "it was signed on august 2") is None
    assert _facts_conflict(negated, "it was signed on july 4") is not None
    # The clause must hold every content word of the other answer on its own.
    assert restated_clause(negated, "the declaration was signed on august 2") is None
    # No clause of its own: the denial and the restatement share one clause.
    assert restated_clause("the declaration was signed, not on july 4", "the declaration was signed") is None
    # A question restates nothing, and a bare denial with no scope of its own is no exception.
    assert restated_clause("is the ticket refundable? no.", "the ticket is refundable") is None
    retracted = "the ticket is refundable. actually, it isn't."
    assert restated_clause(retracted, "the ticket is refundable") is None
    # The plain answer affirms what the other denies.
    assert restated_clause("it is not refundable; it is credit", "it is refundable credit") is None


def test_same_polarity_is_left_to_the_other_guards() -> None:
    assert _facts_conflict("not eligible for the upgrade", "ineligible for the upgrade") is None
    assert _facts_conflict("the fare is not refundable", "the fare cannot be refunded") is None
    assert _facts_conflict("no refund, 3 bags", "no refund, 4 bags") == "numbers"


def test_the_judge_reads_polarity_after_the_courtesies_are_dropped() -> None:
    judge = PairJudge.__new__(PairJudge)
    judge.threshold = judge.cross_threshold = judge.slot_threshold = 0.65
    a = "Your fare is refundable. Don't hesitate to reach out!"
    assert judge.guard(a, "Your fare is refundable.", 0.1) is None
    assert judge.guard(a, "Your fare is not refundable.", 0.99) == "negation"
