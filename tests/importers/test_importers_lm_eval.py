"""lm-evaluation-harness outputs, checked against the figures lm-eval itself wrote and recomputes.

Fixtures (tests/fixtures/foreign/lm_eval/SOURCE.md): a third-party run committed to
EleutherAI/lm-evaluation-harness, and lm-eval 0.4.13's own output folder from a run against the
built-in simulator. lm-eval's formulas, as in lm-eval 0.4.13: a task's metric is
`mean(arr) = sum(arr) / len(arr)` over the per-document values (lm_eval/api/metrics.py lines 35-36)
and its stderr `sample_stddev(arr) / sqrt(len(arr))` (lines 337-343); each document is graded on
`filtered_resps`, which lm-eval's default filter `none` takes from the first repeat
(`TakeFirstFilter.apply`, lm_eval/filters/selection.py lines 19-23; the default set in
lm_eval/api/task.py line 120); one samples line per document and filter (lm_eval/evaluator.py
lines 628-667).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.errors import LogError
from analyzer.importers import detect_format, list_any_logs, load_any, load_any_bytes

LM_EVAL = Path(__file__).parents[1] / "fixtures" / "foreign" / "lm_eval"
RUN = LM_EVAL / "simulated" / "gpt-4o-mini"
RESULTS = next(RUN.glob("results_*.json"))
THIRD_PARTY = LM_EVAL / "eleutherai"


def _lines(task: str) -> list[dict]:
    path = next(RUN.glob(f"samples_{task}_*.jsonl"))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _lm_eval_mean_and_stderr(values: list[float]) -> tuple[float, float]:
    """lm-eval's `mean` and `mean_stderr` (lm_eval/api/metrics.py)."""
    mu = sum(values) / len(values)
    return mu, math.sqrt(sum((x - mu) ** 2 for x in values) / (len(values) - 1)) / math.sqrt(len(values))


def test_each_figure_of_the_results_file_is_the_mean_of_the_samples_and_is_shown() -> None:
    results = json.loads(RESULTS.read_text(encoding="utf-8"))["results"]
    loaded = load_any(RUN)
    figures = {(f["task"], f["filter"]): f for f in loaded.log.imported_from["source_figures"]}
    assert set(figures) == {
        ("arith_once", "none"),
        ("arith_repeats", "none"),
        ("arith_vote", "maj@3"),
        ("arith_vote", "first"),
    }
    for (task, filter_key), figure in figures.items():
        values = [line["exact_match"] for line in _lines(task) if line["filter"] == filter_key]
        mean, stderr = _lm_eval_mean_and_stderr(values)
        assert results[task][f"exact_match,{filter_key}"] == pytest.approx(mean, abs=1e-12)
        assert results[task][f"exact_match_stderr,{filter_key}"] == pytest.approx(stderr, abs=1e-12)
        assert figure["value"] == results[task][f"exact_match,{filter_key}"]
        assert figure["stderr"] == results[task][f"exact_match_stderr,{filter_key}"]
        assert figure["mean_of_docs"] == pytest.approx(mean, abs=1e-12)
    shown = next(w for w in loaded.warnings if w.startswith("lm-evaluation-harness's own figures"))
    assert "arith_vote exact_match (maj@3) 0.8 ± 0.2" in shown
    assert not any("may be from another run" in w for w in loaded.warnings)


def test_repeats_are_rounds_and_round_one_carries_lm_evals_grade() -> None:
    log = load_any(next(RUN.glob("samples_arith_vote_*.jsonl"))).log
    lines = [line for line in _lines("arith_vote") if line["filter"] == "first"]
    assert [len(r) for r in log.runs] == [5, 5, 5]
    for line in lines:
        said = [next(r for r in log.runs[i] if r.task_id == line["doc_id"]) for i in range(3)]
        assert [r.answer for r in said] == line["resps"][0]
        assert said[0].success is (line["exact_match"] == 1.0)
        assert said[1].success is None and said[2].success is None  # lm-eval grades one repeat
    # the mean of round 1's grades is lm-eval's figure for its take_first filter
    outcome = analyze(log).headline.outcome
    assert outcome is not None
    results = json.loads(RESULTS.read_text(encoding="utf-8"))["results"]
    assert outcome.mean_at_n == pytest.approx(results["arith_vote"]["exact_match,first"], abs=1e-12)
    # doc 1 answered 56, 63, 63: the repeats disagree, which is what RerunLens is for
    assert [r.answer for r in log.runs[0] + log.runs[1] + log.runs[2] if r.task_id == 1] == ["56", "63", "63"]


def test_the_route_is_the_model_its_api_root_and_each_tasks_generation_settings() -> None:
    log = load_any(RESULTS).log
    by_task = {str(r.task_id).split("/")[0]: r.route for r in log.runs[0]}
    assert by_task["arith_once"].model == "gpt-4o-mini"
    assert by_task["arith_once"].base_url == "http://127.0.0.1:18765/v1"
    assert by_task["arith_once"].temperature == 0.0
    assert by_task["arith_repeats"].temperature == 1.0
    assert by_task["arith_repeats"].max_tokens == 32 and by_task["arith_repeats"].max_retries == 2
    assert log.imported_from["format"] == "lm-eval"
    assert log.imported_from["version"] == "lm_eval 0.4.13"
    spec = next(t for t in log.tasks if t.task_id == "arith_once/0")
    assert spec.prompt == "What is 17 plus 25? Answer with the number only." and spec.expected == "42"


def test_a_corpus_level_metric_grades_no_document_and_is_shown_as_lm_eval_wrote_it() -> None:
    results_file = next(THIRD_PARTY.glob("masakhaner_*.json"))
    reported = json.loads(results_file.read_text(encoding="utf-8"))["results"]["masakhaner_luo_prompt_5"]
    loaded = load_any(results_file)
    log = loaded.log
    assert [len(r) for r in log.runs] == [3]
    assert all(r.success is None and r.score is None for r in log.runs[0])
    assert log.runs[0][0].route.model == "google/gemma-2b"
    (figure,) = log.imported_from["source_figures"]
    assert figure["value"] == reported["f1,flexible-extract"] and figure["stderr"] is None
    assert figure["mean_of_docs"] is None
    assert any(
        "f1 (flexible-extract): lm-eval aggregates it over the whole corpus" in w for w in loaded.warnings
    )
    assert analyze(log).headline.outcome is None


def test_a_samples_file_is_recognised_from_its_content_alone() -> None:
    data = next(RUN.glob("samples_arith_repeats_*.jsonl")).read_bytes()
    assert detect_format(data, "x") == "lm-eval"
    loaded = load_any_bytes(data, "upload.jsonl")
    assert [len(r) for r in loaded.log.runs] == [5, 5, 5]
    assert any("results_<time>.json beside it" in w for w in loaded.warnings)
    assert loaded.log.imported_from["source_figures"][0]["value"] is None


def test_a_results_file_uploaded_alone_is_one_line_naming_the_samples() -> None:
    with pytest.raises(LogError, match=r"^r\.json: samples: .*samples_<task>_<time>\.jsonl") as info:
        load_any_bytes(RESULTS.read_bytes(), "r.json")
    assert "\n" not in str(info.value)


def test_other_json_lines_are_named_for_what_they_are() -> None:
    data = b'{"a": 1}\n{"a": 2}\n'
    with pytest.raises(LogError, match=r"JSON Lines \(2 records\) whose records are no log") as info:
        load_any_bytes(data, "x.jsonl")
    assert "Extra data" not in str(info.value)


def test_the_runs_folder_lists_the_run_once(tmp_path: Path) -> None:
    target = tmp_path / "out" / "gpt-4o-mini"
    target.mkdir(parents=True)
    for f in RUN.iterdir():
        (target / f.name).write_bytes(f.read_bytes())
    listed = list_any_logs(tmp_path)
    assert listed == [target / RESULTS.name]


def test_older_runs_in_the_folder_are_named_in_every_report(tmp_path: Path) -> None:
    for f in RUN.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    (tmp_path / "results_2026-01-01T00-00-00.000001.json").write_bytes(RESULTS.read_bytes())
    log = load_any(tmp_path).log
    said = [w for w in analyze(log).headline.warnings if "older lm-eval run" in w]
    assert said == ["1 older lm-eval run(s) in the folder left out: results_2026-01-01T00-00-00.000001.json"]
