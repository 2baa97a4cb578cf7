"""A log read with files beside it (lm-evaluation-harness: a results file and its samples files) is
read again when one of those files changes, in the same dashboard session: no stale figures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from app_kit import MAIN, ROOT, assert_clean
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.importers import load_any
from app import fmt, log_folders

RUN = ROOT / "tests" / "fixtures" / "foreign" / "lm_eval" / "simulated" / "gpt-4o-mini"


def tasks_caption(at: AppTest) -> str:
    [caption] = [c.value for c in at.caption if " tasks x " in c.value]
    return caption


def test_a_changed_samples_file_changes_the_open_results_files_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = shutil.copytree(RUN, tmp_path / "gpt-4o-mini")
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(tmp_path))
    [results] = run.glob("results_*.json")
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params["log"] = results.relative_to(tmp_path).as_posix()
    at.run()
    assert_clean(at)
    before = analyze(load_any(results).log).headline.tasks
    assert tasks_caption(at).startswith(f"{fmt.counted(before, 'task')} x ")

    samples = next(run.glob("samples_arith_repeats_*.jsonl"))  # the run's results file is untouched
    lines = samples.read_text(encoding="utf-8").splitlines(keepends=True)
    samples.write_text("".join(lines[:-2]), encoding="utf-8")
    after = analyze(load_any(results).log).headline.tasks
    assert after == before - 2
    at.run()
    assert_clean(at)
    assert tasks_caption(at).startswith(f"{fmt.counted(after, 'task')} x ")
