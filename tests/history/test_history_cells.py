"""The heat-map's four states and the labels of logs without grading (answers only), on built logs."""

from __future__ import annotations

from pathlib import Path

from history_kit import Nightly

from analyzer.history import HistoryRequest, load_history
from analyzer.history.series import CELL_STATES, heat_map
from analyzer.log.loader import save_log
from analyzer.log.model import Result, ResultError

TASKS = ["late", "down", "drifts", *[f"steady-{i}" for i in range(6)]]


def _nightly() -> Nightly:
    return Nightly(TASKS, lambda t, run, r: not (t == "drifts" and run >= 4 and r % 2 == 0))


def _save(folder: Path, nightly: Nightly, graded: bool) -> None:
    """Task `late` joins at run 3, task `down` errors every round of run 6; no `success` when ungraded."""
    folder.mkdir()
    for run in range(nightly.runs):
        log = nightly.log(run)
        rounds = []
        for results in log.runs:
            kept = [r for r in results if not (r.task_id == "late" and run < 2)]
            rounds.append([_as_run(r, run, graded) for r in kept])
        log = log.model_copy(update={"runs": rounds})
        save_log(log, folder / f"{nightly.run_id(run)}.altk_runs.json")


def _as_run(result: Result, run: int, graded: bool) -> Result:
    if result.task_id == "down" and run == 5:
        error = ResultError(type="APIConnectionError", message="connection refused")
        return Result(task_id="down", round=result.round, status="error", error=error)
    return result if graded else result.model_copy(update={"success": None})


def test_the_heat_map_shows_absent_errored_inconsistent_and_consistent_cells(tmp_path: Path) -> None:
    _save(tmp_path / "runs", _nightly(), graded=True)
    history = load_history(HistoryRequest([str(tmp_path / "runs")])).history
    matrix = heat_map(history)
    state = {task: [CELL_STATES[c] for c in matrix.loc[task]] for task in matrix.index}
    assert state["late"][:3] == ["absent", "absent", "consistent"]
    assert state["down"][5] == "errored" and state["down"][4] == "consistent"
    assert state["drifts"] == ["consistent"] * 4 + ["inconsistent"] * 4
    labels = {t.task_id: t.label for t in history.labels}
    assert labels["late"] == "stable"  # absent runs are left out, not counted as failures
    assert labels["drifts"] == "regressed"


def test_answers_alone_decide_when_no_log_grades(tmp_path: Path) -> None:
    _save(tmp_path / "runs", _nightly(), graded=False)
    history = load_history(HistoryRequest([str(tmp_path / "runs")])).history
    labels = {t.task_id: (t.label, t.measure) for t in history.labels}
    assert labels["drifts"] == ("regressed", "answer")
    assert labels["steady-0"] == ("stable", "answer")
    assert [r["outcome_gap_pp"] for r in history.runs] == [None] * 8  # not graded: not recorded, never 0
