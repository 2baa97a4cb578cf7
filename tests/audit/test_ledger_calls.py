"""The two-log ledger counts a completion that is tool calls (the live audit's tool probes, an agent's
turns) as each call's name and arguments text, as the recording proxy counts it: such results were
left out of the completion ratio, so a route overbilling its tool calls went unseen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analyzer.audit.ledger import token_ledger
from analyzer.audit.probes import TOOL_PROBES
from analyzer.cli.main import main
from analyzer.log.loader import load_path
from analyzer.metrics.token_count import count_text
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion


def _tool_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, candidate: Distortion) -> tuple[Path, Path]:
    """A live audit of the tool-call probes alone (a call required: every answer is calls, no text)
    on two simulated routes billing by o200k_base."""
    monkeypatch.setenv("AUDIT_KEY", "sim-key")
    tasks = tmp_path / "tasks.json"
    probes = [{"task_id": f"tool-{i}", "prompt": p, "tools": t} for i, (p, t) in enumerate(TOOL_PROBES)]
    tasks.write_text(json.dumps(probes, ensure_ascii=False))
    scenarios = [
        Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=d) for d in (Distortion(), candidate)
    ]
    out = tmp_path / "audit"
    with Simulator(scenarios[0]) as ref, Simulator(scenarios[1]) as cand:
        args = ["audit", "--tasks", str(tasks), "--samples", "4", "--key-env", "AUDIT_KEY"]
        routes = ["--reference", ref.base_url, "--candidate", cand.base_url, "--model", "gpt-4o"]
        assert main([*args, *routes, "--out", str(out), "--json"]) == 0
    return out / "audit-reference.altk_runs.json", out / "audit-candidate.altk_runs.json"


def _rewrite(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    for result in (r for rnd in data["runs"] for r in rnd):
        change(result)
    path.write_text(json.dumps(data, ensure_ascii=False))


def _no_usage(result: dict[str, Any]) -> None:
    result["prompt_tokens"] = result["completion_tokens"] = None


def _completion(ref: Path, cand: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["audit", str(ref), str(cand), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["tokens"]["candidate"]["completion"]


def test_an_honest_route_answering_with_calls_reads_as_counted_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cand = _tool_audit(tmp_path, monkeypatch, Distortion())
    log = json.loads(cand.read_text())
    results = [r for rnd in log["runs"] for r in rnd]
    assert all(r["answer"] is None and r["trajectory"] for r in results)  # calls, no text
    learnt = _completion(ref, cand, capsys)
    assert learnt["verdict"] == "as counted" and learnt["results"] == len(results) == 16
    _rewrite(ref, _no_usage)  # nothing learnt: the calls' own count must equal what the route billed
    completion = _completion(ref, cand, capsys)
    assert completion["verdict"] == "as counted" and completion["ratio"] == pytest.approx(1.0, abs=1e-9)
    assert completion["reported"] == sum(r["completion_tokens"] for r in results)


def test_a_route_billing_calls_at_1_3_times_reads_overbilled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cand = _tool_audit(tmp_path, monkeypatch, Distortion(usage_factor=1.3))
    completion = _completion(ref, cand, capsys)
    assert completion["verdict"] == "overbilled" and completion["ratio"] == pytest.approx(1.3, abs=0.02)
    assert main(["audit", str(ref), str(cand)]) == 0
    assert "overbilled" in capsys.readouterr().out


def test_arguments_recorded_as_an_object_are_counted_as_compact_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A harness that parsed the arguments (Inspect, tau2) is counted as the compact text OpenAI's
    models write, in the recorded key order: the same count as that text recorded as a string."""
    ref, cand = _tool_audit(tmp_path, monkeypatch, Distortion())

    def arguments(as_object: bool) -> Any:
        def change(result: dict[str, Any]) -> None:
            for step in result["trajectory"]:
                parsed = step["arguments"]
                parsed = json.loads(parsed) if isinstance(parsed, str) else parsed
                step["arguments"] = (
                    parsed if as_object else json.dumps(parsed, separators=(",", ":"), ensure_ascii=False)
                )

        return change

    counts = []
    for as_object in (True, False):
        _rewrite(cand, arguments(as_object))
        ledger = token_ledger(load_path(ref).log, load_path(cand).log)
        counts.append(ledger.candidate.completion.counted)
    assert counts[0] == counts[1]
    # the simulator wrote `{"city": "Lisbon"}`; compact text is fewer tokens, so the count moved
    assert ledger.candidate.completion.ratio is not None and ledger.candidate.completion.ratio > 1.0


def test_a_text_answer_and_its_calls_are_counted_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A result with both text and calls is billed for both: each counted, then added."""
    ref, cand = _tool_audit(tmp_path, monkeypatch, Distortion())
    _rewrite(ref, _no_usage)
    before = _completion(ref, cand, capsys)["counted"]
    assert before > 0

    def with_text(result: dict[str, Any]) -> None:
        result["answer"] = "Checking the weather now."

    _rewrite(cand, with_text)
    after = _completion(ref, cand, capsys)["counted"]
    assert after == before + 16 * count_text("Checking the weather now.", "o200k_base")
