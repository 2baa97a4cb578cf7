"""promptfoo imports: a real `promptfoo eval --repeat 3 -o results.json` (promptfoo 0.121.20, a
scripted local provider and the echo provider; tests/fixtures/foreign/promptfoo/SOURCE.md), checked
against the counts promptfoo itself wrote in the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.cli.main import main
from analyzer.errors import LogError
from analyzer.importers import load_any, load_any_bytes
from analyzer.importers.experiments import experiment_groups
from analyzer.log.structural import structural_warnings

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


def test_a_comparison_of_two_providers_opens_as_experiment_groups() -> None:
    own = _own()["results"]
    loaded = load_any(RESULTS)
    groups = experiment_groups(loaded)
    # promptfoo's own column order and labels (results.prompts: scripted, then echo)
    assert [label for label, _ in groups] == [p["provider"] for p in own["prompts"]] == ["scripted", "echo"]
    for (_, group), column in zip(groups, own["prompts"], strict=True):
        tasks = sorted({r.task_id for rnd in group.log.runs for r in rnd})
        assert tasks == ["France", "Japan", "Peru"]  # the test alone: the groups line up in Compare
        a = analyze(group.log)
        assert a.headline.route.verdict.startswith("Experiment groups") is False  # one route each
        passed = int((a.results["passed"] == True).sum())  # noqa: E712
        assert passed == column["metrics"]["testPassCount"]
        assert a.headline.errors == column["metrics"]["testErrorCount"]
        # which group it is, and the warnings of its own rows only (the file's count every group's
        # rows); what the importer said of the file still shows, through the group's analysis
        [note] = group.warnings
        assert note.startswith("one of 2 experiment groups in ")
        assert set(structural_warnings(group.log)) <= set(a.headline.warnings)
        assert set(loaded.log.imported_from["warnings"]) <= set(a.headline.warnings)
    # the whole file: the providers differ by design, which is no route drift
    verdict = analyze(loaded.log).headline.route.verdict
    assert verdict.startswith("Experiment groups, not route drift: this file compares 2 groups")
    assert "(scripted, echo)" in verdict


def test_compare_of_one_promptfoo_file_sets_its_groups_side_by_side(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["compare", str(RESULTS), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [g["label"] for g in report["groups"]] == ["scripted", "echo"]
    # scripted: France Paris/paris/Paris. and Peru Lima/Cusco/Lima differ, Japan Tokyo/Tokyo: 2 of 3
    # echo repeats the prompt: 0 of 3
    assert [g["answer_gap_pp"] for g in report["groups"]] == [pytest.approx(200 / 3), 0.0]


def _error_row(i: int, message: str) -> dict:
    return {
        "promptId": "p1",
        "prompt": {"raw": "Say hi", "label": "greet"},
        "provider": {"id": "openai:gpt-4o-mini", "label": "mini"},
        "testCase": {"description": f"t{i}"},
        "testIdx": i,
        "failureReason": 2,
        "error": message,
        "success": False,
        "score": 0,
        "response": {"error": message},
    }


def test_an_all_errored_eval_says_so_and_its_attempts_become_retries() -> None:
    rows = [
        _error_row(0, "API error: 429 Too Many Requests after 4 attempts"),
        _error_row(1, "Request failed after 2 retries: 500 Internal Server Error"),
    ]
    data = {"evalId": "e", "results": {"version": 3, "results": rows, "prompts": []}}
    loaded = load_any_bytes(json.dumps(data).encode(), "results.json")
    first, second = (r for rnd in loaded.log.runs for r in rnd)
    # "after 4 attempts": four attempts, three of them retries; "after 2 retries": the try and two more
    assert [a.outcome for a in first.attempts or []] == ["rate_limited"] * 4
    assert [a.outcome for a in second.attempts or []] == ["server_error"] * 3
    assert any(
        w.startswith("the first error promptfoo recorded (failureReason 2 on every row: 2 of 2)")
        for w in loaded.warnings
    )
    h = analyze(loaded.log).headline
    assert h.retries.extra_attempts == 3 + 2 and h.retries.results_with_retry == 2
    assert any(w.startswith("every result errored (2 of 2)") for w in h.warnings)


FOREIGN = RESULTS.parent


def test_two_prompts_are_named_and_ordered_as_promptfoo_does() -> None:
    path = FOREIGN / "two_prompts" / "results.json"
    own = json.loads(path.read_text(encoding="utf-8"))["results"]
    loaded = load_any(path)
    tasks = list(dict.fromkeys(r.task_id for rnd in loaded.log.runs for r in rnd))
    assert set(tasks) == {"France | terse", "France | polite", "Peru | terse", "Peru | polite"}
    groups = experiment_groups(loaded)
    assert [label for label, _ in groups] == [p["label"] for p in own["prompts"]] == ["terse", "polite"]
    for (_, group), column in zip(groups, own["prompts"], strict=True):
        a = analyze(group.log, "normalized")
        assert int((a.results["passed"] == True).sum()) == column["metrics"]["testPassCount"] == 5  # noqa: E712
        # France: Paris / Paris. / paris agree once normalized; Peru has a Cusco among its Limas
        assert a.tasks.set_index("task_id")["consistent"].to_dict() == {"France": True, "Peru": False}


def test_a_real_all_errored_eval_counts_its_retries() -> None:
    path = FOREIGN / "all_errored" / "results.json"
    own = json.loads(path.read_text(encoding="utf-8"))["results"]
    loaded = load_any(path)
    assert any(
        w.startswith("the first error promptfoo recorded (failureReason 2 on every row: 4 of 4)")
        for w in loaded.warnings
    )
    h = analyze(loaded.log).headline
    assert h.errors == own["stats"]["errors"] == 4
    # "Request failed after 4 retries": the first try and 4 retries, all refused connections
    assert h.retries.attempts_total == 4 * 5 and h.retries.extra_attempts == 4 * 4
    assert h.retries.by_outcome == {"connection_error": 20}
