"""`rerun` and `resample` without `--out` never write into the shipped samples: a sample's new log goes
into the runs folder ($RERUNLENS_RUNS_DIR, else ./runs); any other log's beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.cli import main
from analyzer.runner import default_rerun_path
from analyzer.runner.out_folder import SAMPLES_DIR
from analyzer.runner.resample import default_resample_path


def _snapshot(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}


def test_a_sample_rerun_without_out_goes_into_the_runs_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    monkeypatch.setenv("RERUNLENS_RUNS_DIR", str(runs))
    before = _snapshot(SAMPLES_DIR)
    sample = SAMPLES_DIR / "C_pinned.altk_runs.json"
    code = main(["rerun", str(sample), "--only", "inconsistent", "--repeat", "2", "--quiet"])
    capsys.readouterr()
    assert code == 0
    assert _snapshot(SAMPLES_DIR) == before  # nothing written or touched among the samples
    written = sorted(p.name for p in runs.iterdir())  # the log, and the history it is indexed into
    assert written == ["C_pinned.rerun.altk_runs.json", "rerunlens-history.sqlite3"]


def test_other_logs_keep_their_new_logs_beside_them(tmp_path: Path) -> None:
    mine = tmp_path / "mine" / "A.altk_runs.json"
    assert default_rerun_path(mine) == mine.with_name("A.rerun.altk_runs.json")
    assert default_resample_path(mine, "t 1") == mine.with_name("A.resample-t-1.altk_runs.json")
    assert default_resample_path(SAMPLES_DIR / "E.altk_runs.json", "t").parent != SAMPLES_DIR
