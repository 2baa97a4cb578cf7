"""The two-log ledger counts the tool definitions a task carries (the live audit's tool probes), so a
tool-using route read against the cookbook's rule alone is not taken for overbilling; tools the rule
does not cover leave their results out of the prompt ratio, counted and named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analyzer.cli.main import main
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion


def _live_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, candidate: Distortion) -> tuple[Path, Path]:
    """The built-in probes (text and tool-call) on two simulated routes billing by o200k_base."""
    monkeypatch.setenv("AUDIT_KEY", "sim-key")
    scenarios = [
        Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=d) for d in (Distortion(), candidate)
    ]
    with Simulator(scenarios[0]) as ref, Simulator(scenarios[1]) as cand:
        args = ["audit", "--samples", "3", "--reference", ref.base_url, "--candidate", cand.base_url]
        assert (
            main([*args, "--key-env", "AUDIT_KEY", "--model", "gpt-4o", "--out", str(tmp_path), "--json"])
            == 0
        )
    return tmp_path / "audit-reference.altk_runs.json", tmp_path / "audit-candidate.altk_runs.json"


def _without_usage(path: Path) -> None:
    """The log as a harness that records no usage would have written it."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: None if k in ("prompt_tokens", "completion_tokens") else strip(v) for k, v in value.items()
            }
        return [strip(v) for v in value] if isinstance(value, list) else value

    path.write_text(json.dumps(strip(json.loads(path.read_text()))))


def _tokens(ref: Path, cand: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    capsys.readouterr()
    assert main(["audit", str(ref), str(cand), "--json"]) == 0
    tokens = json.loads(capsys.readouterr().out)["tokens"]
    assert main(["audit", str(ref), str(cand)]) == 0
    return tokens, capsys.readouterr().out


def test_tool_probes_are_counted_with_their_tools_by_the_cookbooks_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cand = _live_audit(tmp_path, monkeypatch, Distortion())
    _without_usage(ref)  # no reference figures: the overhead is the cookbook's, not learnt
    tokens, text = _tokens(ref, cand, capsys)
    assert tokens["overhead_learnt"] is False
    prompt = tokens["candidate"]["prompt"]
    assert prompt["verdict"] == "as counted" and prompt["ratio"] == pytest.approx(1.0, abs=0.01)
    # the booking tool's `people` carries minimum and maximum: outside the rule, its two probes left out
    assert tokens["not_counted_why"] == {
        "parameter `people` of `book_table` carries `maximum` the rule does not read": 2
    }
    assert tokens["candidate"]["not_counted"] == 2 * 3 and prompt["results"] == 16 * 3
    assert "Left out of the prompt ratio: 6 candidate results and 6 reference results" in text


def test_a_tool_using_route_adding_a_fifth_is_overbilled_against_the_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, cand = _live_audit(tmp_path, monkeypatch, Distortion(usage_factor=1.2))
    _without_usage(ref)
    tokens, _ = _tokens(ref, cand, capsys)
    prompt = tokens["candidate"]["prompt"]
    assert prompt["verdict"] == "overbilled" and prompt["ratio"] == pytest.approx(1.2, abs=0.01)


def test_the_live_audits_cost_counts_each_probes_tool_definitions() -> None:
    """The prompt tokens shown before a live audit are those of the requests it sends, tools included
    (read by the proxy's rule from the request body); tools outside the rule are estimated, not left out."""
    from analyzer.audit.live import cost
    from analyzer.audit.live_folder import LiveAudit, LiveRoute
    from analyzer.audit.probes import probe_tasks
    from analyzer.metrics.prompt_rule import Uncovered, chat_tokens

    tasks = probe_tasks()
    route = LiveRoute("reference", "", "OPENAI_API_KEY")
    audit = LiveAudit(
        tasks, 1, route, LiveRoute("candidate", "", "OPENAI_API_KEY"), "gpt-4o-mini", 1.0, Path("x")
    )
    bodies = [
        {
            "messages": [{"role": "user", "content": t.prompt}],
            "tools": (t.model_extra or {}).get("tools") or [],
        }
        for t in tasks
    ]
    counted = [chat_tokens(b, "o200k_base") for b in bodies]
    covered = [c for c in counted if not isinstance(c, Uncovered)]
    assert len(covered) < len(counted)  # a probe whose tools are outside the rule is in the set
    _requests, prompt, _completion = cost(audit)
    assert prompt // 2 > sum(covered)  # both routes; the uncovered probe adds its estimate
    bare = LiveAudit(
        [t.model_copy(update={"tools": None}) for t in tasks], 1, route, route, "gpt-4o-mini", 1.0, Path("x")
    )
    assert cost(bare)[1] < prompt
