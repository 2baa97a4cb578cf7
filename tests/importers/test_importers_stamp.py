"""The dashboard's cache key for a log covers every file reading it opens, so no figure goes stale."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from analyzer.importers import load_any
from analyzer.importers.stamp import source_stamp

FOREIGN = Path(__file__).parents[1] / "fixtures" / "foreign"


def _touch_later(path: Path) -> None:
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 5_000_000_000))


def test_an_appworld_experiment_re_evaluated_inside_the_folder_changes_the_stamp(tmp_path: Path) -> None:
    outputs = shutil.copytree(FOREIGN / "appworld" / "repeated_runs", tmp_path / "outputs")
    before = source_stamp(outputs)
    folder_time = outputs.stat().st_mtime_ns
    [evaluation] = list(outputs.glob("*run2*/evaluations/*.json"))
    _touch_later(evaluation)
    assert outputs.stat().st_mtime_ns == folder_time  # the folder's own time did not move
    assert source_stamp(outputs) != before


def test_a_tau2_results_file_is_stale_when_a_simulation_beside_it_changes(tmp_path: Path) -> None:
    raw = json.loads((FOREIGN / "tau2_bench" / "airline_run1.excerpt.json").read_text(encoding="utf-8"))
    (tmp_path / "simulations").mkdir()
    for sim in raw["simulations"]:
        (tmp_path / "simulations" / f"{sim['id']}.json").write_text(json.dumps(sim), encoding="utf-8")
    results = tmp_path / "results.json"
    results.write_text(json.dumps({k: v for k, v in raw.items() if k != "simulations"}), encoding="utf-8")
    before = source_stamp(results)
    assert len(load_any(results).log.runs[0]) > 0  # the layout the loader reads
    _touch_later(next((tmp_path / "simulations").glob("*.json")))
    assert source_stamp(results) != before


def test_an_altk_evolve_card_is_stale_when_its_samples_file_changes(tmp_path: Path) -> None:
    folder = shutil.copytree(FOREIGN / "altk_evolve", tmp_path / "debug")
    card = folder / "consistency_score_card_7f3a9c21.json"
    before = source_stamp(card)
    _touch_later(folder / "trajectory_ir_7f3a9c21_cns.json")
    assert source_stamp(card) != before
    after = source_stamp(card)
    _touch_later(folder / "SOURCE.md")  # not read with the card
    assert source_stamp(card) == after


def test_a_plain_log_is_stamped_by_itself_only(tmp_path: Path) -> None:
    log = tmp_path / "altk_runs.json"
    log.write_text("{}")
    before = source_stamp(log)
    (tmp_path / "other.altk_runs.json").write_text("{}")  # a new run beside it re-reads nothing
    assert source_stamp(log) == before
    _touch_later(log)
    assert source_stamp(log) != before


LM_EVAL_RUN = FOREIGN / "lm_eval" / "simulated" / "gpt-4o-mini"


def test_an_lm_eval_results_file_is_stale_when_a_samples_file_of_its_run_changes(tmp_path: Path) -> None:
    run = shutil.copytree(LM_EVAL_RUN, tmp_path / "gpt-4o-mini")
    [results] = run.glob("results_*.json")
    assert len(load_any(results).log.runs[0]) > 0  # the layout the loader reads
    before = source_stamp(results)
    samples = sorted(run.glob("samples_*.jsonl"))
    _touch_later(samples[-1])
    assert source_stamp(results) != before
    after = source_stamp(results)
    (run / "notes.txt").write_text("not read with the run")
    (run / "samples_arith_once_2025-01-01T00-00-00.000001.jsonl").write_text("{}")  # another run's
    assert source_stamp(results) == after


def test_an_lm_eval_samples_file_is_stale_when_its_results_file_changes(tmp_path: Path) -> None:
    run = shutil.copytree(LM_EVAL_RUN, tmp_path / "gpt-4o-mini")
    samples = next(run.glob("samples_arith_vote_*.jsonl"))
    before = source_stamp(samples)
    _touch_later(next(run.glob("results_*.json")))
    assert source_stamp(samples) != before


def test_an_older_lm_eval_results_name_reads_its_samples_too(tmp_path: Path) -> None:
    run = shutil.copytree(FOREIGN / "lm_eval" / "eleutherai", tmp_path / "run")
    [results] = run.glob("masakhaner_*.json")  # `<task>_<time>.json`, not `results_<time>.json`
    before = source_stamp(results)
    _touch_later(next(run.glob("samples_*.jsonl")))
    assert source_stamp(results) != before


def test_a_renamed_lm_eval_results_file_without_a_time_still_reads_its_samples(tmp_path: Path) -> None:
    run = shutil.copytree(LM_EVAL_RUN, tmp_path / "gpt-4o-mini")
    results = next(run.glob("results_*.json")).rename(run / "my_run.json")
    assert len(load_any(results).log.runs[0]) > 0  # the reader finds the samples by task name
    before = source_stamp(results)
    _touch_later(next(run.glob("samples_*.jsonl")))
    assert source_stamp(results) != before


def test_an_inspect_eval_set_is_stale_when_a_listed_log_changes_and_only_then(tmp_path: Path) -> None:
    folder = shutil.copytree(FOREIGN / "inspect_ai" / "eval_set", tmp_path / "logs")
    listing = folder / "logs.json"
    before = {p: source_stamp(p) for p in (folder, listing)}
    (folder / "README.txt").write_text("not a log")
    (folder / "old").mkdir()
    (folder / "old" / "x.eval").write_text("a subfolder's file is not read with the set")
    assert {p: source_stamp(p) for p in before} == before
    _touch_later(next(folder.glob("*.eval")))
    assert all(source_stamp(p) != stamp for p, stamp in before.items())
