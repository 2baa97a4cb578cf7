"""Compare pairs tasks only when they are the same tasks (ids and prompts, `log.task_set.pairing`):
two real Inspect logs that share the id `sum` for different questions are set side by side but nothing
of them is paired, and the sentence says why; two versions of one eval still pair."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis import Analysis, analyze
from analyzer.importers import load_any
from analyzer.report.compare_view import sharing
from analyzer.verdicts.compare import compare

INSPECT = Path(__file__).resolve().parents[1] / "fixtures" / "foreign" / "inspect_ai"


def _analysed(*names: str) -> list[tuple[str, Analysis]]:
    return [(name, analyze(load_any(INSPECT / name).log)) for name in names]


def test_a_shared_id_with_another_question_pairs_nothing() -> None:
    groups = _analysed("mock_epochs.json", "versions_0.3.285.json")  # both hold a task "sum"
    result = compare(groups)
    (diff,) = result.differences
    assert diff.common_tasks == 0 and diff.answer_gap_diff_pp is None and diff.p_value is None
    assert "are not the same tasks" in diff.sentence and "(sum) carry different prompts" in diff.sentence
    assert "shared task" not in diff.sentence
    sum_row = result.consistency[result.consistency["task_id"] == "sum"]
    assert sum_row["versions_0.3.285.json"].isna().all()  # not set beside the other log's "sum"
    assert result.flips.empty
    assert sharing([a for _, a in groups], 0) == [0]  # not offered as comparable by default


def test_the_same_eval_still_pairs() -> None:
    (diff,) = compare(_analysed("versions_0.3.100.json", "versions_0.3.285.json")).differences
    assert diff.common_tasks > 0 and diff.refused is None
    assert "shared task" in diff.sentence


def test_one_files_prompts_side_by_side_pair_by_test() -> None:
    """promptfoo's two prompts over the same tests: each group renders its own prompt, yet the groups
    of one file ask the same tests, so they pair (comparing the prompts is the point of the file)."""
    from analyzer.importers.experiments import experiment_groups

    path = INSPECT.parent / "promptfoo" / "two_prompts" / "results.json"
    groups = [(label, analyze(loaded.log)) for label, loaded in experiment_groups(load_any(path))]
    assert len(groups) == 2
    prompts = [{t.prompt for t in a.log.tasks or []} for _, a in groups]
    assert prompts[0] != prompts[1]  # the wording differs by design
    (diff,) = compare(groups).differences
    assert diff.common_tasks > 0 and diff.refused is None and "shared task" in diff.sentence
