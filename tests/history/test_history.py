"""`rerunlens history` on nightly logs with known changes: a task that breaks when the base URL moves,
one that is fixed, one that alternates, and a slow slide that no pair of runs shows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from history_kit import Nightly

from analyzer.cli.main import main
from analyzer.history.change_points import change_p
from analyzer.history.labels import TaskSeries, label_tasks
from analyzer.metrics.stats import fisher_exact

STEADY = [f"steady-{i}" for i in range(7)]


def _history(folder: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict]:
    code = main(["history", str(folder), "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def _route_story(task: str, run: int, r: int) -> bool:
    if task == "breaks":
        return run < 4
    if task == "fixed":
        return run >= 4
    if task == "alternates":
        return run % 2 == 0
    return True


def test_a_break_at_a_base_url_move_a_fix_and_an_alternating_task_are_told_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    moved = Nightly(
        ["breaks", "fixed", "alternates", *STEADY],
        _route_story,
        base_url=lambda run: "https://api.openai.com/v1" if run < 4 else "https://gateway.example/v1",
    )
    moved.save(tmp_path)
    code, out = _history(tmp_path, capsys)
    assert code == 0
    labels = {t["task_id"]: (t["label"], t["changed_at"]) for t in out["tasks"]}
    assert labels["breaks"] == ("regressed", "nightly-05")
    assert labels["fixed"] == ("fixed", "nightly-05")
    assert labels["alternates"] == ("flaky", None)
    assert {labels[t] for t in STEADY} == {("stable", None)}
    [change] = out["changes"]
    assert change["run_id"] == "nightly-05" and sorted(change["tasks"]) == ["breaks", "fixed"]
    assert change["route_changed"] is True
    assert change["route_changes"] == [
        {"field": "base URL", "before": "https://api.openai.com/v1", "after": "https://gateway.example/v1"}
    ]
    assert out["finding"].startswith("1 task regressed and 1 fixed at nightly-05, when the base URL changed")
    assert [r["run_id"] for r in out["runs"]] == [f"nightly-{i:02d}" for i in range(1, 9)]
    assert out["runs"][0]["created_at"] < out["runs"][-1]["created_at"]


def _slide(task: str, run: int, r: int) -> bool:
    return not (task.startswith("slides") and run >= 5 and r in (1, 3))


def test_a_slow_slide_no_pair_of_runs_shows_is_a_regression_since_run_6(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = ["slides-a", "slides-b", "slides-c"]
    nightly = Nightly([*broken, *[f"steady-{i}" for i in range(17)]], _slide)
    nightly.save(tmp_path)
    for task in broken:  # runs 5 and 6 of one task, 5/5 against 3/5: no pairwise test sees it
        assert fisher_exact(5, 0, 3, 2) > 0.05
        assert nightly.good(task, 4, 1) and not nightly.good(task, 5, 1)
    code, out = _history(tmp_path, capsys, "--fail-on-regression")
    labels = {t["task_id"]: (t["label"], t["changed_at"]) for t in out["tasks"]}
    assert {labels[t] for t in broken} == {("regressed", "nightly-06")}
    assert sum(label == "stable" for label, _ in labels.values()) == 17
    assert out["changes"][0]["route_changed"] is False
    assert out["finding"].startswith("3 tasks regressed at nightly-06, with no change of route")
    assert code == 0  # the newest run, nightly-08, is where the slide has been for three nights


def test_fail_on_regression_trips_when_the_newest_run_breaks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nightly = Nightly(
        ["a", "b", "c", *STEADY],
        lambda t, run, r: not (t in "abc" and run == 7),
        served_model=lambda run: "gpt-4o-mini-2026-01-15" if run < 7 else "gpt-4o-mini-2026-03-02",
    )
    nightly.save(tmp_path)
    code, out = _history(tmp_path, capsys, "--fail-on-regression")
    assert code == 1
    assert out["gate"]["tripped"] and sorted(out["gate"]["regressed_tasks"]) == ["a", "b", "c"]
    assert "served model changed from gpt-4o-mini-2026-01-15 to gpt-4o-mini-2026-03-02" in out["finding"]
    assert main(["history", str(tmp_path)]) == 0  # without the flag the same history is a report
    text = capsys.readouterr().out
    assert text.startswith("3 tasks regressed at nightly-08, when the served model changed")


def test_the_change_test_keeps_its_level_when_nothing_changes() -> None:
    """200 histories of 10 tasks x 8 runs x 5 rounds, every round an independent draw of a chance that
    never changes: a history with any task called regressed or fixed must stay at or under alpha."""
    rng = np.random.default_rng(20261206)
    alpha, histories, wrong = 0.05, 200, 0
    for h in range(histories):
        chances = rng.uniform(0.3, 0.95, size=10)
        series = [
            TaskSeries(f"h{h}t{i}", list(range(8)), rng.binomial(5, p, size=8).tolist(), [5] * 8, "outcome")
            for i, p in enumerate(chances)
        ]
        wrong += any(t.label in ("regressed", "fixed") for t in label_tasks(series, alpha))
    assert wrong / histories <= alpha + 2.33 * np.sqrt(alpha * (1 - alpha) / histories)


def test_the_change_test_is_exact_on_a_case_counted_by_hand() -> None:
    """Runs of 2 rounds with 2, 0 and 1 successes: of the 20 orders of the six rounds, 12 give a best
    split at least as far apart as the one seen (enumerated), so p = 0.6."""
    assert change_p([2, 0, 1], [2, 2, 2]).p == pytest.approx(0.6)


def test_a_missing_folder_is_one_line_and_nothing_is_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", str(tmp_path / "nowhere")]) == 2
    assert (
        capsys.readouterr().err.strip() == f"rerunlens: error: {tmp_path / 'nowhere'}: no such file or folder"
    )
    assert list(tmp_path.iterdir()) == []
