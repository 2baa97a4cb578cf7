"""The semantic key's guards learnt from holdout2's errors: clock times, quantities written out,
negative statuses, direction, free against a price, offer against act; each with a case that must
still join, in English and Chinese."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

from analyzer.metrics.semantic.antonyms import price_conflict
from analyzer.metrics.semantic.embed import EmbeddingCache
from analyzer.metrics.semantic.guards import conflict, facts, quantity_word
from analyzer.metrics.semantic.key import PairJudge, _facts_conflict
from analyzer.metrics.semantic.mood import mood_conflict
from analyzer.metrics.semantic.polarity import polarity
from analyzer.metrics.semantic.quantities import spelled_numbers
from analyzer.metrics.semantic.times import clock_times, times_conflict


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("the train leaves at 7:30 pm", "the train leaves at 19:30", True),
        ("the train leaves at 7:30 pm", "火车晚上七点半出发", True),
        ("火车19点30分出发", "火车晚上七点半出发", True),
        ("the train leaves at 7:30", "the train leaves at 19:30", True),  # no am / pm: either
        ("the train leaves at 7:30 am", "火车早上7点半出发", True),
        ("the train leaves at 7:30 am", "the train leaves at 7:30 pm", False),
        ("火车早上7点半出发", "火车晚上七点半出发", False),
        ("the train leaves at 7 o'clock in the evening", "the train leaves at 7:00 am", False),
        ("departure 14:00, arrival 16:30", "departure 14:00", True),  # one holds the other's
    ],
)
def test_clock_times(a: str, b: str, same: bool) -> None:
    assert (conflict(facts(a), facts(b)) is None) is same
    assert (_facts_conflict(a, b) is None) is same


def test_clock_times_are_not_read_again_as_numbers() -> None:
    assert facts("the train leaves at 7:30 pm").numbers == frozenset()
    assert facts("火车晚上七点半出发").numbers == frozenset()
    times, rest = clock_times("便宜一点")  # 一点 alone is "a little"
    assert times == frozenset() and rest == "便宜一点"
    assert not times_conflict(frozenset(), frozenset({(450, False)}))


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("it will reach twenty-five degrees tomorrow", "tomorrow's high will be 25 degrees", True),
        ("it will reach twenty-five degrees tomorrow", "明天最高气温25度", True),
        ("it will reach twenty-five degrees tomorrow", "tomorrow's high will be 20 degrees", False),
        ("your total comes to forty-five dollars and fifty cents", "the total is $45.50", True),
        ("your total comes to forty-five dollars and fifty cents", "总计45.50美元", True),
        ("your total comes to forty-five dollars and fifty cents", "the total is $45", False),
        ("water boils at 212 degrees fahrenheit", "water boils at 100 °c", True),
        ("water boils at 212 degrees fahrenheit", "水的沸点是100摄氏度", True),
        ("water boils at 212 degrees fahrenheit", "water boils at 90 °c", False),
        ("one hundred and twenty minutes", "2 hours", True),
    ],
)
def test_quantities_written_out(a: str, b: str, same: bool) -> None:
    assert (conflict(facts(a), facts(b)) is None) is same


def test_only_one_number_is_spelled_as_one() -> None:
    assert spelled_numbers("one or two bags") == "1 or 2 bags"
    assert spelled_numbers("one two") == "one two"  # no one number
    assert spelled_numbers("86 billion neurons") == "86 billion neurons"  # read with its digits
    assert spelled_numbers("someone") == "someone"


@pytest.mark.parametrize(
    "text",
    ["the pharmacy is closed on public holidays", "密码重置失败", "your refund request was rejected",
     "the item is out of stock", "该商品缺货", "bringing the drone is illegal", "you are ineligible"],
)  # fmt: skip
def test_negative_statuses_deny_without_a_negation_word(text: str) -> None:
    assert "deny" in polarity(text)


def test_negative_statuses_read_like_negations() -> None:
    assert _facts_conflict("the pharmacy is closed on public holidays", "药店节假日不营业") is None
    assert _facts_conflict("your password could not be reset", "密码重置失败") is None
    assert _facts_conflict("bringing the drone is illegal", "携带无人机是非法的") is None
    assert _facts_conflict("your refund request was rejected", "退款申请被拒绝了") is None
    assert _facts_conflict("your password has been reset", "密码重置失败") == "negation"
    assert _facts_conflict("密码已重置", "密码重置失败") == "negation"
    assert _facts_conflict("the pharmacy is open on public holidays", "the pharmacy is closed") == "negation"
    # 无人机 (a drone) holds 无 but denies nothing.
    assert _facts_conflict("bringing the drone is legal", "携带无人机是合法的") is None


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("sales grew by 15%", "销售额下降了15%", False),
        ("销售额增长了百分之十五", "销售额下降了15%", False),
        ("sales rose fifteen percent", "sales fell fifteen percent", False),
        ("sales rose fifteen percent", "销售额增长了百分之十五", True),
        ("the meeting was postponed", "the meeting went ahead as planned", False),
        ("会议推迟了", "会议如期举行", False),
        ("your flight is on time", "your flight was cancelled this morning", False),
        ("您的航班准时起飞", "您的航班今天上午被取消了", False),
        ("the bag was delivered", "the bag is still in chicago", False),
        ("包裹已送达", "包裹仍在运输中", False),
        ("you would survive the fall", "you would die from the fall", False),
        ("your passport is valid", "your passport has expired", False),
        ("您的护照有效", "您的护照已过期", False),
        ("the bag was delivered yesterday", "包裹昨天送达", True),
    ],
)
def test_directions_and_statuses_that_exclude_each_other(a: str, b: str, same: bool) -> None:
    assert (_facts_conflict(a, b) is None) is same


def test_free_against_a_price() -> None:
    assert price_conflict("the museum is free to enter", "admission to the museum costs $20")
    assert price_conflict("博物馆免费参观", "博物馆门票20美元")
    assert price_conflict("2 bags added, free of charge", "2 bags added, payment of $600 processed")
    assert _facts_conflict("博物馆免费参观", "admission to the museum costs $20") == "price"
    assert not price_conflict("the museum is free to enter", "entry to the museum is free of charge")
    assert not price_conflict("博物馆免费参观", "the museum is free to enter")
    # "feel free" is no price, and a price beside "free" (free bags, $20 seat) is no conflict.
    assert not price_conflict("the seat costs $20. feel free to ask", "the seat costs $20")
    assert not price_conflict("bags are free, the seat is $20", "the seat is $20")


def test_offer_against_act() -> None:
    act = "i will transfer you to a human agent. please hold on for a moment."
    offer = "i can transfer you to a human agent. would you like me to proceed with the transfer?"
    assert mood_conflict(act, offer)
    assert mood_conflict("我将为您转接人工客服，请稍候。", "需要我为您转接人工客服吗？")
    assert not mood_conflict(offer, "would you like me to transfer you to a human agent?")
    assert not mood_conflict("需要我为您转接人工客服吗？", offer)
    # A courtesy offer ("would you like me to help with anything else") offers no action.
    assert not mood_conflict(act, "your seat is 14c. would you like me to help with anything else?")


def test_the_judge_reads_the_offer_on_the_whole_answer(tmp_path: Path) -> None:
    """The offer is worded like a courtesy ("... for further assistance?"), which the embedded text
    drops: the judge still sees it."""
    judge = PairJudge(EmbeddingCache(_Unit(), tmp_path, persist=False), 0.65, 0.5)
    offer = (
        "the booking is past the 24-hour window. would you like me to transfer you for further assistance?"
    )
    assert judge.guard("i will transfer you to a human agent.", offer, 0.9) == "offer / act"


def test_slots_of_quantities_are_left_to_the_facts_guard(tmp_path: Path) -> None:
    judge = PairJudge(EmbeddingCache(_Unit(), tmp_path, persist=False), 0.65, 0.5)
    assert quantity_word("pm") and quantity_word("19") and quantity_word("七")
    assert not quantity_word("gate")
    assert judge.guard("the train leaves at 7:30 pm", "the train leaves at 19:30", 0.9) is None
    assert judge.guard("the train leaves at 7:30 am", "the train leaves at 19:30", 0.9) == "times"
    # Words that are not quantities are still compared as a slot.
    assert judge.guard("the sun is white from space", "the sun is yellow from space", 0.9) is not None


class _Unit:
    """Every text one distinct direction (so any two slot words are far apart)."""

    name = "unit-antonyms"

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, zlib.crc32(t.encode()) % 64] = 1.0
        return out
