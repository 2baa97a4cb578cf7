"""Cached and reasoning tokens, where a provider's usage details give them: recorded on each result
the runner writes (run, re-run, live audit) and kept apart by the token ledger, never folded in."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from hostile_endpoint import HostileEndpoint, Reply, completion
from plan_kit import run_tasks

from analyzer.audit import audit_figures, audit_logs, audit_text
from analyzer.log.loader import load_path
from analyzer.log.model import RunLog, TaskSpec
from analyzer.log.schema import log_json_schema
from analyzer.routes.profile import RouteProfile
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion

TASKS = [TaskSpec(task_id=f"q{i}", prompt=f"Spell the number {i} in French, one word.") for i in range(4)]


def _profile(base_url: str) -> RouteProfile:
    return RouteProfile(base_url=base_url, temperature=1.0, max_retries=0, concurrency=2, seed=None)


def _run(tmp_path: Path, name: str, distortion: Distortion) -> tuple[RunLog, Path]:
    scenario = Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=distortion)
    out = tmp_path / f"{name}.altk_runs.json"
    with Simulator(scenario) as sim:
        run_tasks(TASKS, _profile(sim.base_url), out, rounds=3, api_key="sim-key", run_id=name)
    return load_path(out).log, out


def test_reasoning_tokens_are_recorded_per_result_and_the_log_keeps_to_its_schema(tmp_path: Path) -> None:
    log, path = _run(tmp_path, "reasoning", Distortion(reasoning_tokens=12))
    results = [r for _round, r in log.results()]
    assert len(results) == 12 and all(r.status == "ok" for r in results)
    assert {r.reasoning_tokens for r in results} == {12} and {r.cached_tokens for r in results} == {None}
    assert all(r.completion_tokens is not None and r.completion_tokens >= 12 for r in results)
    jsonschema.validate(json.loads(path.read_text()), log_json_schema())


def test_cached_tokens_from_the_usage_details_are_recorded(tmp_path: Path) -> None:
    reply = completion("un")
    data = json.loads(reply.body)
    data["usage"] |= {"prompt_tokens_details": {"cached_tokens": 4}, "completion_tokens_details": {}}
    cached = Reply(200, reply.headers, json.dumps(data).encode())
    out = tmp_path / "cached.altk_runs.json"
    with HostileEndpoint(lambda r: cached) as up:
        run_tasks(TASKS[:2], _profile(up.base_url), out, rounds=1, api_key="sim-key", run_id="cached")
    results = [r for _round, r in load_path(out).log.results()]
    assert [(r.cached_tokens, r.reasoning_tokens, r.prompt_tokens) for r in results] == [(4, None, 5)] * 2


def test_the_ledger_keeps_reasoning_apart_and_says_where_a_route_did_not_report_it(tmp_path: Path) -> None:
    reference, _ = _run(tmp_path, "reference", Distortion(reasoning_tokens=12))
    candidate, _ = _run(tmp_path, "candidate", Distortion(reasoning_tokens=12, drop_reasoning=True))
    audit = audit_logs(reference, candidate)
    tokens = audit_figures(audit)["tokens"]
    assert tokens["reference"]["reasoning_reported"] == 12 * 12
    assert tokens["candidate"]["reasoning_reported"] is None  # not recorded, never 0
    assert tokens["reference"]["cached_reported"] is None
    text = audit_text(audit)
    assert "candidate cached prompt tokens not recorded, reasoning tokens not recorded" in text
    assert "reference cached prompt tokens not recorded, reasoning tokens reported 144" in text


def test_a_usage_detail_that_is_not_a_count_is_left_out_and_the_answer_stands() -> None:
    from analyzer.runner.completion_shape import read_completion

    data = json.loads(completion("Paris").body)
    data["usage"] |= {"prompt_tokens_details": {"cached_tokens": True}, "completion_tokens_details": "x"}
    read = read_completion(data)
    assert read["answer"] == "Paris" and "cached_tokens" not in read and "reasoning_tokens" not in read


def test_a_ratio_is_as_counted_only_when_its_interval_lies_between_both_thresholds() -> None:
    """A wide interval (few prompts) settles nothing: `unmeasured`, said with why, never `as counted`;
    and a ratio of token counts is never given a lower bound below 0."""
    from analyzer.audit.ledger import ratio_verdict

    assert ratio_verdict((0.97, 1.03)) == "as counted"
    assert ratio_verdict((1.06, 1.2)) == "overbilled" and ratio_verdict((0.8, 0.94)) == "underbilled"
    assert ratio_verdict((0.57, 1.43)) == "unmeasured" and ratio_verdict((1.01, 1.18)) == "unmeasured"
    assert ratio_verdict(None) == "unmeasured"


def test_two_real_inspect_logs_of_three_prompts_do_not_read_as_counted() -> None:
    from pathlib import Path

    from analyzer.audit import audit_figures, audit_logs, audit_text
    from analyzer.importers import load_any

    here = Path(__file__).parents[1] / "fixtures" / "foreign" / "inspect_ai"
    audit = audit_logs(
        load_any(here / "versions_0.3.100.json").log, load_any(here / "versions_0.3.285.json").log
    )
    tokens = audit_figures(audit)["tokens"]
    assert tokens["verdict"] == "unmeasured"
    low, _high = tokens["candidate"]["completion"]["interval"]
    assert low >= 0
    assert "too few prompts to tell" in audit_text(audit)
