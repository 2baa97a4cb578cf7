"""Comparing groups side by side and finding the tasks that flip."""

from __future__ import annotations

from typing import Any

import pytest

from analyzer.analysis import analyze
from analyzer.log.model import RunLog
from analyzer.verdicts.compare import TABLE_COLUMNS, compare


def _log(answers: dict[str | int, list[str]], **extra: Any) -> RunLog:
    rounds = max(len(a) for a in answers.values())
    runs = [
        [{"task_id": t, "answer": a[r], "total_tokens": 10, **extra} for t, a in answers.items()]
        for r in range(rounds)
    ]
    return RunLog.model_validate({"runs": runs})


def test_table_and_flips() -> None:
    # A: 1 inconsistent, t2 and t3 consistent -> 1 of 3 inconsistent -> gap 33.33
    # C: 1, t2, t4 consistent, t3 inconsistent -> 1 of 4 -> gap 25 (task 1 is int in A, str in C)
    a = analyze(_log({1: ["x", "y"], "t2": ["x", "x"], "t3": ["x", "x"]}))
    c = analyze(_log({"1": ["x", "x"], "t2": ["x", "x"], "t3": ["x", "z"], "t4": ["q", "q"]}))
    result = compare([("A: default", a), ("C: pinned route", c)])
    assert list(result.table.columns) == list(TABLE_COLUMNS)
    assert result.table["label"].tolist() == ["A: default", "C: pinned route"]
    assert result.table["answer_gap_pp"].round(2).tolist() == [33.33, 25.0]
    assert result.table["tokens_total"].tolist() == [60, 80]
    assert result.table["route_pinned"].isna().all()  # format-1 logs record no route
    # t1 flips (inconsistent -> consistent), t3 flips the other way; t2 steady; t4 only in C
    assert result.flips["task_id"].tolist() == ["1", "t3"]
    assert result.flips["A: default"].tolist() == [False, True]
    assert result.flips["C: pinned route"].tolist() == [True, False]
    all_tasks = result.consistency.set_index("task_id")
    assert not all_tasks.loc["t4", "flipped"]
    assert all_tasks["A: default"].isna()["t4"]


def test_outcome_columns_and_repeated_labels() -> None:
    graded = analyze(_log({1: ["x", "x"], 2: ["y", "y"]}, success=True))
    plain = analyze(_log({1: ["x", "x"]}))
    table = compare([("run", graded), ("run", plain)]).table
    assert table["label"].tolist() == ["run", "run (2)"]
    assert table["mean_at_n"].tolist()[0] == 1.0
    assert table["pass_hat_n"].tolist()[0] == 1.0
    assert table["outcome_gap_pp"].tolist()[0] == 0.0
    assert table["mean_at_n"].isna().tolist() == [False, True]


def test_compare_nothing() -> None:
    result = compare([])
    assert result.table.empty and result.flips.empty


def test_labels_never_collide_with_each_other_or_the_columns() -> None:
    a = analyze(_log({1: ["x", "y"], "t2": ["x", "x"]}))
    c = analyze(_log({1: ["x", "x"], "t2": ["x", "x"]}))
    result = compare([("flipped", a), ("task_id", c)])
    assert result.labels == ["flipped (2)", "task_id (2)"]
    assert result.flips["task_id"].tolist() == ["1"]  # only task 1 flips; t2 is steady
    repeated = compare([("A", a), ("A", c), ("A (2)", a)])
    assert repeated.labels == ["A", "A (2)", "A (2) (2)"]


def _answers(inconsistent: int, consistent: int, start: int = 0) -> dict[str | int, list[str]]:
    out: dict[str | int, list[str]] = {f"t{i}": ["x", "y", "x"] for i in range(start, start + inconsistent)}
    out |= {f"t{i}": ["x", "x", "x"] for i in range(start + inconsistent, start + inconsistent + consistent)}
    return out


def test_paired_difference_with_exact_mcnemar() -> None:
    # A: t0..t5 inconsistent, t6..t9 consistent (gap 60). C: t0 still inconsistent, t1..t9 consistent
    # (gap 10). Discordant: 5 turned consistent, 0 the other way -> McNemar p = 2 x (1/2)^5 = 0.0625
    a = analyze(_log(_answers(6, 4)))
    c = analyze(_log(_answers(1, 9)))
    result = compare([("A", a), ("C", c)])
    [diff] = result.differences
    assert (diff.label, diff.against, diff.common_tasks) == ("C", "A", 10)
    assert diff.answer_gap_diff_pp == -50.0
    assert (diff.turned_consistent, diff.turned_inconsistent) == (5, 0)
    assert diff.p_value == 0.0625
    low, high = diff.answer_gap_diff_ci
    assert low < -50.0 < high <= 0.0
    assert "not distinguishable from noise with 10 tasks" in diff.sentence
    assert diff.tasks_to_resolve == 15  # exact McNemar power for this flip rate (see test_stats)
    assert diff.sentence.endswith("about 15 paired tasks would resolve a difference of this size.")
    # 8 tasks turn consistent and none back: p = 2 / 2^8 = 0.0078 -> a plain statement with its interval
    a8 = analyze(_log(_answers(8, 12)))
    c8 = analyze(_log(_answers(0, 20)))
    [d8] = compare([("A", a8), ("C", c8)]).differences
    assert d8.p_value == 2 / 256
    assert d8.sentence.startswith("C's answer gap is 40.0 pp lower than A's over 20 shared tasks (95 % CI -")
    assert d8.sentence.endswith("p = 0.008).")


def test_differences_use_only_shared_tasks_and_the_json_report() -> None:
    from analyzer.verdicts.compare import comparison_report

    a = analyze(_log(_answers(2, 2)))  # t0, t1 inconsistent; t2, t3 consistent
    c = analyze(_log({"t0": ["x", "x"], "t9": ["x", "y"]}))  # shares only t0
    report = comparison_report(compare([("A", a), ("C", c)]))
    [diff] = report["differences"]
    assert diff["common_tasks"] == 1 and diff["answer_gap_diff_pp"] == -100.0
    assert set(diff) >= {
        "label",
        "common_tasks",
        "answer_gap_diff_pp",
        "answer_gap_diff_ci",
        "outcome_gap_diff_pp",
        "outcome_gap_diff_ci",
        "p_value",
    }
    assert diff["p_value"] == 1.0  # one discordant task: 2 x 1/2
    assert diff["outcome_gap_diff_pp"] is None and diff["outcome_common_tasks"] == 0  # nothing graded
    assert report["groups"][0]["answer_gap_low"] <= 50.0 <= report["groups"][0]["answer_gap_high"]


def test_outcome_gap_difference_by_hand() -> None:
    # per task outcome gap = (c/n - [c = n]) x 100. A: t1 2/3 -> 66.7, t2 3/3 -> 0 (mean 33.3);
    # C: t1 3/3 -> 0, t2 3/3 -> 0 (mean 0): difference -33.3 pp over 2 graded tasks
    def graded(successes: dict[str, list[bool]]) -> RunLog:
        runs = [
            [{"task_id": t, "answer": "x", "success": s[r]} for t, s in successes.items()] for r in range(3)
        ]
        return RunLog.model_validate({"runs": runs})

    a = analyze(graded({"t1": [True, False, True], "t2": [True] * 3}))
    c = analyze(graded({"t1": [True] * 3, "t2": [True] * 3}))
    [diff] = compare([("A", a), ("C", c)]).differences
    assert diff.outcome_common_tasks == 2
    assert diff.outcome_gap_diff_pp == pytest.approx(-100 / 3)
    assert diff.outcome_gap_diff_ci is not None


def test_outcome_gap_difference_of_one_round_logs_is_zero_not_uncertain() -> None:
    # with n = 1 the per-task gap is c/1 - [c = 1] = 0 always: the largest gap is 100 (n - 1) / n = 0
    def one_round(successes: list[bool]) -> RunLog:
        return RunLog.model_validate(
            {"runs": [[{"task_id": f"t{i}", "answer": "x", "success": s} for i, s in enumerate(successes)]]}
        )

    [diff] = compare(
        [("A", analyze(one_round([True, False, True]))), ("B", analyze(one_round([False, True, True])))]
    ).differences
    assert diff.outcome_gap_diff_pp == 0.0 and diff.outcome_gap_diff_ci == [0.0, 0.0]


def test_the_outcome_gap_interval_is_bounded_by_the_largest_gap_the_rounds_allow() -> None:
    # 2 rounds: a task's gap is 0 or 50 pp (1 of 2 passes); the interval lies within [-50, 50]
    def two_rounds(first: list[bool], second: list[bool]) -> RunLog:
        runs = [
            [{"task_id": f"t{i}", "answer": "x", "success": s} for i, s in enumerate(r)]
            for r in (first, second)
        ]
        return RunLog.model_validate({"runs": runs})

    a = analyze(two_rounds([True, True, True], [True, True, True]))
    b = analyze(two_rounds([True, True, True], [True, True, False]))
    [diff] = compare([("A", a), ("B", b)]).differences
    assert diff.outcome_gap_diff_pp == pytest.approx(50 / 3)
    low, high = diff.outcome_gap_diff_ci  # type: ignore[misc]
    assert -50.0 <= low < 50 / 3 < high <= 50.0


def test_groups_of_different_rounds_are_not_called_different() -> None:
    # A: 6 of 10 tasks inconsistent over 3 rounds; C: none over 2 rounds. McNemar alone would say p = 0.031
    a = analyze(_log({f"t{i}": ["x", "y", "x"] if i < 6 else ["x"] * 3 for i in range(10)}))
    c = analyze(_log({f"t{i}": ["x", "x"] for i in range(10)}))
    [diff] = compare([("A", a), ("C", c)]).differences
    assert diff.p_value == pytest.approx(2 / 2**6)
    assert diff.refused == "A ran 3 rounds and C 2; the consistency rate depends on the rounds"
    assert diff.sentence.endswith("; no difference is called: " + diff.refused + ".")


def test_errored_results_in_shares_that_differ_beyond_chance_refuse_the_call() -> None:
    # 10 tasks x 5 rounds; C errors on 2 rounds of every task (20 of 50 results), A never
    def log(bad: int, inconsistent: int) -> RunLog:
        runs = [[] for _ in range(5)]
        for i in range(10):
            answers = ["x", "y", "x", "x", "x"] if i < inconsistent else ["x"] * 5
            for r in range(5):
                row: dict[str, Any] = {"task_id": f"t{i}", "answer": answers[r]}
                if r < bad:
                    row = {"task_id": f"t{i}", "status": "error", "error": {"type": "RateLimitError"}}
                runs[r].append(row)
        return RunLog.model_validate({"runs": runs})

    a, c = analyze(log(0, 8)), analyze(log(2, 8))  # C's errors take the odd round 2 away
    [diff] = compare([("A", a), ("C", c)]).differences
    assert (diff.turned_consistent, diff.turned_inconsistent) == (8, 0)
    # Fisher: 0 of 50 against 20 of 50 errored; the table's two extremes alone are 2 x C(50,20)^... < 1e-6
    assert diff.refused is not None and diff.refused.startswith(
        "errored results differ beyond chance (A 0 of 50, C 20 of 50"
    )
    assert "no difference is called" in diff.sentence
    same = compare([("A", a), ("B", analyze(log(0, 0)))]).differences[0]
    assert same.refused is None
