"""Answer clusters and consistency figures, pinned by small hand-computed logs."""

from __future__ import annotations

import math
from typing import Any

import pytest

from analyzer.analysis import analyze
from analyzer.log.model import RunLog


def _log(*rounds: list[dict[str, Any]], **top: Any) -> RunLog:
    return RunLog.model_validate({"runs": list(rounds), **top})


def _r(task_id: str | int, answer: str | None, **extra: Any) -> dict[str, Any]:
    return {"task_id": task_id, "answer": answer, **extra}


def _err(task_id: str | int) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "answer": None,
        "status": "error",
        "error": {"type": "Timeout", "message": "t"},
    }


# Four rounds. Task a: A A A A. Task b: X X Y Z. Task c answers once (three errors).
# Round 2 lists the tasks in a different order: results are aligned by task_id, not position.
FOUR_ROUNDS = _log(
    [_r("a", "A"), _r("b", "X"), _r("c", "C")],
    [_err("c"), _r("b", "X"), _r("a", "A")],
    [_r("a", "A"), _r("b", "Y"), _err("c")],
    [_r("a", "A"), _r("b", "Z"), _err("c")],
)


def test_rate_and_gap_count_only_tasks_with_two_answers() -> None:
    h = analyze(FOUR_ROUNDS).headline
    # a consistent, b inconsistent, c has 1 answer -> apart. rate = 1/2, gap = (1 - 0.5) x 100 = 50
    assert h.tasks == 3
    assert h.tasks_measured == 2
    assert h.tasks_single == 1
    assert h.single_task_ids == ["c"]
    assert h.consistent_tasks == 1
    assert h.answer_consistency_rate == 0.5
    assert h.answer_gap_pp == 50.0
    assert any("fewer than 2 answers" in w and "(c)" in w for w in h.warnings)


def test_majority_share_and_entropy_with_p_log2_p() -> None:
    tasks = analyze(FOUR_ROUNDS).tasks.set_index("task_id")
    # b: clusters X=2, Y=1, Z=1 of n=4 -> majority 2/4 = 0.5
    # H = -(0.5 log2 0.5 + 0.25 log2 0.25 + 0.25 log2 0.25) = 0.5 + 0.5 + 0.5 = 1.5 bits; / log2 4 = 0.75
    assert tasks.loc["b", "n_clusters"] == 3
    assert tasks.loc["b", "majority_share"] == 0.5
    assert tasks.loc["b", "entropy"] == pytest.approx(0.75)
    assert bool(tasks.loc["b", "consistent"]) is False
    # a: one cluster -> share 1, entropy 0
    assert tasks.loc["a", "majority_share"] == 1.0
    assert tasks.loc["a", "entropy"] == 0.0
    # c: one answer -> entropy 0 by definition, consistency not measured
    assert tasks.loc["c", "entropy"] == 0.0
    assert tasks.loc["c", "n_ok"] == 1
    assert tasks.loc["c", "n_errors"] == 3
    assert tasks["consistent"].isna().loc["c"]


def test_entropy_of_two_to_one_split() -> None:
    log = _log([_r(1, "x")], [_r(1, "x")], [_r(1, "y")])
    # p = 2/3, 1/3: H = -(2/3 log2 2/3 + 1/3 log2 1/3) = 0.918296; / log2 3 = 0.579380
    expected = -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3)) / math.log2(3)
    assert analyze(log).tasks.loc[0, "entropy"] == pytest.approx(expected)
    assert expected == pytest.approx(0.579380, abs=1e-6)


def test_cluster_zero_is_the_largest_and_rounds_are_readable() -> None:
    a = analyze(FOUR_ROUNDS)
    b = a.clusters[a.clusters["task_id"] == "b"]
    assert b["representative"].tolist() == ["X", "Y", "Z"]
    assert b["size"].tolist() == [2, 1, 1]
    assert b["share"].tolist() == [0.5, 0.25, 0.25]
    assert b["rounds"].tolist() == ["1, 2", "3", "4"]
    results = a.results
    assert results.loc[results["task_id"] == "b", "cluster"].tolist() == [0, 0, 1, 2]
    assert results.loc[results["status"] == "error", "cluster"].isna().all()


def test_equal_clusters_are_numbered_by_first_appearance() -> None:
    log = _log([_r("t", "late?")], [_r("t", "early")], [_r("t", "early")], [_r("t", "late?")])
    clusters = analyze(log).clusters
    assert clusters["representative"].tolist() == ["late?", "early"]


def test_int_and_str_task_ids_are_one_task() -> None:
    log = _log([_r(7, "A"), _r("x", "B")], [_r("7", "A"), _r("x", "B")])
    a = analyze(log)
    assert a.tasks["task_id"].tolist() == ["7", "x"]
    assert a.tasks["n_ok"].tolist() == [2, 2]
    assert a.headline.answer_consistency_rate == 1.0


def test_answer_key_changes_the_verdict() -> None:
    log = _log([_r(1, "Paris")], [_r(1, "paris.")], [_r(1, " Paris ")])
    assert analyze(log, "exact").headline.answer_gap_pp == 100.0
    assert analyze(log, "normalized").headline.answer_gap_pp == 0.0
    assert analyze(log, "fuzzy").headline.answer_gap_pp == 0.0
    # the representative shown is the most frequent answer as written
    assert analyze(log, "normalized").clusters["representative"].tolist() == ["Paris"]


def test_fuzzy_threshold_is_honoured() -> None:
    log = _log([_r(1, "the answer is 42")], [_r(1, "the answer is 42.0")])
    # normalized keys "the answer is 42" (16 chars) and "the answer is 42.0" (18 chars): two insertions,
    # ratio = 1 - 2 / (16 + 18) = 0.941 -> 94.1, joined at 90, apart at 95
    assert analyze(log, "fuzzy", fuzzy_threshold=90).headline.answer_gap_pp == 0.0
    assert analyze(log, "fuzzy", fuzzy_threshold=95).headline.answer_gap_pp == 100.0


def test_all_answers_errored_is_not_consistent_nor_a_crash() -> None:
    h = analyze(_log([_err(1)], [_err(1)])).headline
    assert h.answer_consistency_rate is None
    assert h.answer_gap_pp is None
    assert h.tasks_single == 1


def test_gap_reads_as_a_person_would_write_it() -> None:
    # 1 inconsistent task of 5: (1 - 0.8) x 100 in floats is 19.999999999999996; the report says 20.0
    answers = {t: ["a", "a"] for t in "pqrs"} | {"t": ["a", "b"]}
    log = _log(*[[_r(t, a[i]) for t, a in answers.items()] for i in range(2)])
    assert analyze(log).report()["answer_gap_pp"] == 20.0


# Task a: "No" and no answer; task b: two absent answers (null, white space); task c: "Yes" twice
# and "" once; task d: "4", "5".
ABSENT = _log(
    [_r("a", "No"), _r("b", None), _r("c", "Yes"), _r("d", "4")],
    [_r("a", None), _r("b", "  \n"), _r("c", ""), _r("d", "5")],
    [_r("a", ""), _r("b", None), _r("c", "Yes"), _r("d", "5")],
)


@pytest.mark.parametrize("key", ["exact", "normalized", "fuzzy"])
def test_absent_answers_never_agree_under_any_text_key(key: str) -> None:
    h = analyze(ABSENT, key).headline  # type: ignore[arg-type]
    # a has one answer and b none: both apart. c: Yes, Yes -> consistent; d: 4, 5 -> not.
    assert h.tasks_measured == 2 and h.single_task_ids == ["a", "b"]
    assert h.consistent_tasks == 1 and h.answer_gap_pp == 50.0
    # no answer: a 2 (null, ""), b 3, c 1 ("") -> 6 results in 3 tasks
    assert h.no_answer == 6 and h.no_answer_tasks == 3
    assert any(w.startswith("6 results gave no answer") and "(a, b, c)" in w for w in h.warnings)


def test_no_answer_per_task_and_apart_from_errors() -> None:
    tasks = analyze(ABSENT).tasks.set_index("task_id")
    assert tasks["n_no_answer"].to_dict() == {"a": 2, "b": 3, "c": 1, "d": 0}
    assert tasks["n_errors"].to_dict() == {"a": 0, "b": 0, "c": 0, "d": 0}
    assert tasks["consistent"].isna().tolist() == [True, True, False, False]


def test_two_epochs_no_and_missing_are_not_a_consistent_task() -> None:
    # the case that hid a 100 pp gap: an answer read as "" on one epoch agreed with "" on the other
    log = _log([_r("q", None), _r("r", "No")], [_r("q", None), _r("r", "Yes.")])
    h = analyze(log).headline
    assert h.tasks_measured == 1 and h.answer_gap_pp == 100.0 and h.single_task_ids == ["q"]
