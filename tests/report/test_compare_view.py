"""Compare's short names, its default choice of logs, and its side-by-side table."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.report.compare_view import flip_table, legend, name_legend, sharing, short_names, side_by_side
from analyzer.verdicts.compare import compare

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def test_short_names_take_the_prefix_or_cut_and_stay_unique() -> None:
    assert short_names(
        ["A: baseline (two keys alternating)", "B: one key", "run-20261201-162456-fb221b"]
    ) == [
        "A",
        "B",
        "run-20261201-16…",
    ]
    assert short_names(["same", "same", "x: a", "x: b"]) == ["same", "same 2", "x", "x 2"]


def test_the_legend_names_each_group_once() -> None:
    labels = ["A: baseline (two keys)", "run-20261201-162456-fb221b", "same", "x: a", "x: b"]
    assert name_legend(short_names(labels), labels) == [
        ("A", "baseline (two keys)"),
        ("run-20261201-16…", "run-20261201-162456-fb221b"),
        ("same", ""),
        ("x", "a"),
        ("x 2", "x: b"),
    ]


def test_sharing_leaves_out_logs_of_another_task_set() -> None:
    names = ("A_baseline", "E_agent_tools", "C_pinned", "E_agent_tools.resample-agent-cheapest-monitor")
    analyses = [analyze(load_path(SAMPLES / f"{n}.altk_runs.json").log) for n in names]
    assert sharing(analyses, 0) == [0, 2]
    assert sharing(analyses, 2) == [2, 0]
    assert sharing(analyses, 1) == [1]  # the resample holds 1 of E's 6 tasks


def test_side_by_side_rows_and_flips_read_as_shown() -> None:
    a = analyze(load_path(SAMPLES / "A_baseline.altk_runs.json").log)
    c = analyze(load_path(SAMPLES / "C_pinned.altk_runs.json").log)
    result = compare([("A", a), ("C", c)])
    table = side_by_side(result)
    assert table["group"].tolist() == ["A", "C"]
    assert table["tasks x rounds"].tolist() == ["30 x 10", "30 x 10"]
    gap, (low, high) = a.headline.answer_gap_pp, a.headline.answer_gap_ci  # type: ignore[misc]
    assert table["answer gap"].iloc[0] == f"{gap:.1f} pp (95 % CI {low:.1f}–{high:.1f})"
    assert table["tokens per task"].iloc[0] == f"{round(a.headline.tokens.per_task_mean):,}"  # type: ignore[arg-type]
    assert table["Pass^n"].iloc[1] == f"{100 * result.table['pass_hat_n'].iloc[1]:.1f} %"
    assert table["pinned"].tolist() == ["no", "yes"]
    assert "score" not in table  # neither log has rewards or scores: the column is left out
    assert "Pass^n: every round succeeds" in legend(table) and "score:" not in legend(table)
    flips = flip_table(result)
    assert flips["task"].tolist() == result.flips["task_id"].tolist()
    assert set(flips["A"]) <= {"yes", "no", "—"}
