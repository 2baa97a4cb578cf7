"""promptfoo imports: a real `promptfoo eval --repeat 3 -o results.json` (promptfoo 0.121.20, a
scripted local provider and the echo provider; tests/fixtures/foreign/promptfoo/SOURCE.md), checked
against the counts promptfoo itself wrote in the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.errors import LogError
from analyzer.importers import load_any, load_any_bytes

RESULTS = Path(__file__).parents[1] / "fixtures" / "foreign" / "promptfoo" / "results.json"


def _own() -> dict:
    return json.loads(RESULTS.read_text(encoding="utf-8"))


def test_repeats_regroup_into_tasks_and_rounds() -> None:
    log = load_any(RESULTS).log
    assert [len(r) for r in log.runs] == [6, 6, 6]  # 3 tests x 2 providers, 3 repeats
    tasks = [r.task_id for r in log.runs[0]]
    assert set(tasks) == {f"{c} | {p}" for c in ("France", "Peru", "Japan") for p in ("scripted", "echo")}
    france = [r.answer for rnd in log.runs for r in rnd if r.task_id == "France | scripted"]
    assert france == ["Paris", "paris", "Paris."]  # rounds in testIdx order, as the provider was called
    peru = [r.answer for rnd in log.runs for r in rnd if r.task_id == "Peru | scripted"]
    assert peru == ["Lima", "Cusco", "Lima"]


def test_counts_equal_promptfoo_own_stats_per_provider() -> None:
    own = _own()["results"]
    analysis = analyze(load_any(RESULTS).log)
    assert analysis.headline.errors == own["stats"]["errors"] == 1
    frame = analysis.results.assign(provider=analysis.results["task_id"].str.split(" | ").str[-1])
    for prompt in own["prompts"]:
        rows = frame[frame["provider"] == prompt["provider"]]
        metrics = prompt["metrics"]
        assert int((rows["passed"] == True).sum()) == metrics["testPassCount"]  # noqa: E712
        graded_failures = ((rows["passed"] == False) & (rows["status"] == "ok")).sum()  # noqa: E712
        assert int(graded_failures) == metrics["testFailCount"]
        assert int((rows["status"] == "error").sum()) == metrics["testErrorCount"]


def test_failure_reason_not_error_decides_errors() -> None:
    log = load_any(RESULTS).log
    results = [r for rnd in log.runs for r in rnd]
    # promptfoo sets `error` on every failed assertion too; only failureReason 2 is an error
    failed_assertions = [r for r in results if r.success is False]
    assert len(failed_assertions) == 10 and all(r.status == "ok" for r in failed_assertions)
    errored = [r for r in results if r.status == "error"]
    assert [r.task_id for r in errored] == ["Japan | scripted"]
    assert errored[0].error is not None and "503" in (errored[0].error.message or "")


def test_tokens_cost_and_latency_carried_over() -> None:
    own = _own()["results"]
    loaded = load_any(RESULTS)
    headline = analyze(loaded.log).headline
    assert headline.tokens.total == own["stats"]["tokenUsage"]["total"] == 431
    results = [r for rnd in loaded.log.runs for r in rnd]
    cost = sum(getattr(r, "cost_usd", 0) or 0 for r in results)
    assert cost == pytest.approx(sum(row["cost"] or 0 for row in own["results"]))
    assert all(r.latency_ms is not None for r in results)
    # echo reports zero tokens for every row: unknown here, not a measured zero
    assert all(r.total_tokens is None for r in results if r.task_id.endswith("echo"))


def test_consistency_under_normalized() -> None:
    tasks = analyze(load_any(RESULTS).log, "normalized").tasks.set_index("task_id")
    assert bool(tasks.loc["France | scripted", "consistent"])  # Paris / paris / Paris.
    assert not bool(tasks.loc["Peru | scripted", "consistent"])  # Lima / Cusco / Lima
    assert bool(tasks.loc["Japan | scripted", "consistent"])  # two Tokyo, one error


def test_wrong_shape_is_one_line_naming_the_place() -> None:
    own = _own()
    own["results"]["results"][4]["score"] = "high"
    with pytest.raises(LogError, match=r"^pf\.json: results\.results\[4\]\.score: expected a number"):
        load_any_bytes(json.dumps(own).encode(), "pf.json")
    own["results"]["results"] = [1]
    with pytest.raises(LogError, match=r"^pf\.json: results\.results\[0\]: expected an object"):
        load_any_bytes(json.dumps(own).encode(), "pf.json")
