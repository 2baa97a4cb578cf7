"""The semantic key's newer guards: every member checked, negation scope, codes, verdicts, statuses."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from analyzer.metrics.semantic.embed import EmbeddingCache
from analyzer.metrics.semantic.guards import conflict, facts
from analyzer.metrics.semantic.key import PairJudge, semantic_clusters, spelled_alike
from analyzer.metrics.semantic.marks import codes, opposite_status, verdict
from analyzer.metrics.semantic.scope import negated_phrases, scope_conflict
from analyzer.metrics.semantic.text import embedding_text


class TableEmbedder:
    """Vectors looked up in a table (unknown texts, such as differing words, point elsewhere)."""

    name = "table-rules"

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray([self.table.get(t, [0.0, 0.0, 1.0]) for t in texts], dtype=np.float32)


def test_a_member_must_agree_with_every_member_not_only_the_representative(tmp_path: Path) -> None:
    # The representative is close to both; the two others deny each other in a phrase ("won't
    # permanently damage" / "can permanently damage"), all three hold a negation. Checked against
    # the representative alone, both would join it and the cluster would hold a denial.
    rep = "you shouldn't sit close to the tv because it can cause eyestrain"
    first = "sitting close to the tv won't permanently damage your eyes, but it can cause eyestrain"
    second = "you shouldn't sit close to the tv because it can permanently damage your eyes"
    table = {rep: [1.0, 0.0, 0.0], first: [0.8, 0.6, 0.0], second: [0.8, -0.6, 0.0]}
    cache = EmbeddingCache(TableEmbedder(table), tmp_path, persist=False)
    answers = [rep, rep, rep, first, first, second]
    members = semantic_clusters(answers, cache.vectors([rep, first, second]), PairJudge(cache, 0.7, 0.5))
    by_answer = {m.answer: m for m in members}
    assert by_answer[first].representative == rep
    assert by_answer[second].representative == second  # kept from the cluster that holds `first`
    assert by_answer[second].blocked is not None and "negation" in by_answer[second].blocked


def test_the_shown_similarity_is_to_the_representative(tmp_path: Path) -> None:
    table = {"aaa": [1.0, 0.0, 0.0], "bbb": [0.9, np.sqrt(1 - 0.81), 0.0]}
    cache = EmbeddingCache(TableEmbedder(table), tmp_path, persist=False)
    members = semantic_clusters(
        ["aaa", "aaa", "bbb"], cache.vectors(["aaa", "bbb"]), PairJudge(cache, 0.7, 0.5)
    )
    assert [(m.representative, m.similarity) for m in members] == [("aaa", 1.0), ("aaa", 0.9)]


@pytest.mark.parametrize(
    "text",
    [
        "订单还没发货",
        "订单尚未发出",
        "订单未发货",
        "别担心,航班没有取消",
        "无法退款",
        "这不是您的订单",
        "非会员不能预订",
    ],
)
def test_chinese_negation_characters_negate(text: str) -> None:
    assert facts(text).negated
    assert conflict(facts(text), facts("订单已发货")) == "negation"


def test_negation_scope_tells_two_negated_answers_apart() -> None:
    assert negated_phrases("the ticket is not refundable") == {("refundable",)}
    assert scope_conflict(
        "sitting close won't permanently damage your eyes",
        "you shouldn't sit close: it can permanently damage your eyes",
    )
    # a shared word is not a denial: the phrase must be affirmed in order
    assert not scope_conflict(
        "no, there are no rigorous scientific studies showing harm", "no, in studies people could not tell"
    )
    assert scope_conflict("订单未发货", "订单已发货")


def test_codes_verdicts_and_statuses() -> None:
    assert codes("your seat is 14c") == {"14c"} and codes("flight hat088 on may 21st at 7am") == {"hat088"}
    assert codes("it weighs 5km") == frozenset()
    assert (verdict("yes, natural pesticides are not prohibited"), verdict("no, they are not allowed")) == (
        "yes",
        "no",
    )
    assert verdict("no refund is possible") is None  # a claim, left to the polarity guard
    assert (verdict("是的,可以带宠物"), verdict("不可以带宠物")) == ("yes", "no")
    assert opposite_status("your flight has been cancelled", "your flight will operate as scheduled")
    assert opposite_status("宠物禁止入内", "pets are welcome")
    assert not opposite_status("the flight is delayed", "the flight is late")


def test_names_spelled_alike_are_different_names() -> None:
    assert spelled_alike("smith", "smyth") and spelled_alike("maria", "mario")
    assert not spelled_alike("cancel", "cancelled") and not spelled_alike("earthworm", "earthworms")
    assert not spelled_alike("jane", "john")  # not alike: the slot's cosine decides


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("there are 86 billion neurons", "there are 86,000,000,000 neurons", None),
        ("人脑中大约有860亿个神经元", "about 86 billion neurons", None),
        ("86 billion", "100 billion", "numbers"),
        ("the flight takes 120 minutes", "the flight takes 2 hours", None),
        ("the flight takes 2 hours 30 minutes", "the flight takes 2 hours", "numbers"),
        ("the parcel weighs 2000 grams", "it weighs 2 kg", None),
        ("the deadline is 2024-06-01", "the deadline is june 1, 2024", None),
        ("the deadline is 2024-06-01", "the deadline is july 6, 2024", "numbers"),
        ("wait an hour", "wait two hours", "numbers"),
    ],
)
def test_numbers_with_scales_units_and_dates(a: str, b: str, reason: str | None) -> None:
    assert conflict(facts(a), facts(b)) == reason


def test_courtesy_sentences_are_not_embedded_nor_read_for_negation() -> None:
    assert (
        embedding_text("your seat is 14c. is there anything else i can help you with?") == "your seat is 14c."
    )
    assert embedding_text("you're welcome! don't hesitate to reach out.") == "you're welcome!"
    # a sentence that denies something is kept, courtesy or not
    kept = "i can't change it, but let me know if you need an agent."
    assert embedding_text(f"sorry. {kept}") == f"sorry. {kept}"
    assert embedding_text("you get 20 percent off") == "you get 20% off"
