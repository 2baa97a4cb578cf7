"""The facts two answers must share before the semantic key may join them (hand-read values)."""

from __future__ import annotations

import pytest

from analyzer.metrics.semantic.guards import conflict, facts


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("The ticket is not refundable.", True),
        ("This ticket is non-refundable.", True),
        ("I couldn't send the link", True),
        ("不可退款。", True),
        ("您的订单尚未取消。", True),
        ("The ticket is refundable.", False),
        ("可以退款。", False),
        ("不客气，已经取消了", False),  # 不客气 is "you're welcome", not a denial
        ("您有两条未读消息。", False),  # 未读 is "unread"
    ],
)
def test_polarity(text: str, negated: bool) -> None:
    assert facts(text).negated is negated


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("3 items", {3.0}),
        ("三件", {3.0}),
        ("Three items were shipped.", {3.0}),
        ("It costs $1,000.", {1000.0}),
        ("价格是一千美元。", {1000.0}),
        ("两百五十个人", {250.0}),
        ("人通常只使用大脑的百分之十", {10.0}),
        ("请稍等一下", set()),  # 一下 is "a moment": no counter after 一
        ("May I help you?", set()),  # may is a month only next to a number
    ],
)
def test_numbers(text: str, numbers: set[float]) -> None:
    assert set(facts(text).numbers) == numbers


def test_dates_read_as_month_and_day_in_both_languages() -> None:
    march3, chinese = facts("The order ships on March 3."), facts("订单将于3月3日发货。")
    assert (set(march3.months), set(march3.numbers)) == ({3}, {3.0})
    assert (set(chinese.months), set(chinese.numbers)) == ({3}, {3.0})
    assert conflict(march3, chinese) is None
    assert conflict(march3, facts("The order ships on March 4.")) == "numbers"
    assert conflict(march3, facts("The order ships on April 3.")) == "dates"
    assert set(facts("二〇二四年五月十七日").numbers) == {2024.0, 17.0}


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("not refundable", "refundable", "negation"),
        ("Yes", "No", "negation"),
        ("3 items", "三件", None),
        ("3 items", "3", None),  # one states no unit: no disagreement
        ("3 items", "4 items", "numbers"),
        ("5 km", "5 miles", "units"),
        ("酒店离机场5公里。", "The hotel is 5 km from the airport.", None),
        ("It costs $1,000.", "It costs 1,000 euros.", "units"),
        ("会议在星期一。", "The meeting is on Monday.", None),
        ("The meeting is on Monday.", "会议在周二", "weekdays"),
        ("You can take 6 bags.", "3 bags each for two passengers, 6 in all", None),  # the working shown
        ("You can take 4 bags.", "6 bags for two passengers", "numbers"),
    ],
)
def test_conflict(a: str, b: str, reason: str | None) -> None:
    assert conflict(facts(a), facts(b)) == reason
    assert conflict(facts(b), facts(a)) == reason
