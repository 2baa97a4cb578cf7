"""The live audit over real HTTP: two simulated routes, the built-in probes, both logs written and tested."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.audit.audit import pair_to_audit
from analyzer.cli.main import main
from analyzer.log.loader import load_path
from analyzer.log.task_set import task_ids
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion


def _sim(distortion: Distortion) -> Simulator:
    return Simulator(Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=distortion)).start()


def test_live_audit_finds_broken_tool_calls_and_dropped_reasoning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AUDIT_REF_KEY", "sim-ref-key")
    monkeypatch.setenv("AUDIT_CAND_KEY", "sim-cand-key")
    ref = _sim(Distortion(reasoning_tokens=12))
    cand = _sim(Distortion(reasoning_tokens=12, drop_reasoning=True, broken_tool_calls=0.6))
    try:
        code = main(
            [
                "audit",
                "--samples", "6",
                "--reference", ref.base_url,
                "--candidate", cand.base_url,
                "--reference-key-env", "AUDIT_REF_KEY",
                "--candidate-key-env", "AUDIT_CAND_KEY",
                "--model", "gpt-4o",
                "--out", str(tmp_path),
                "--json",
            ]
        )  # fmt: skip
    finally:
        ref.stop()
        cand.stop()
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.err.splitlines()[0].startswith(
        "Live audit: 216 requests (18 prompts x 6 samples x 2 routes)"
    )
    out = json.loads(captured.out)
    assert out["tool_calls"]["verdict"] == "worse"
    assert out["tool_calls"]["reference"]["share"] == 1.0
    assert out["tool_calls"]["candidate"]["share"] < 0.7
    assert out["tokens"]["candidate"]["completion"]["verdict"] == "underbilled"
    assert out["identity"]["verdict"] in ("differ", "no difference found")
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["audit-candidate.altk_runs.json", "audit-reference.altk_runs.json", "audit.json"]
    for name in written:
        assert (
            "sim-ref-key" not in (tmp_path / name).read_text()
            and "sim-cand-key" not in (tmp_path / name).read_text()
        )


def test_a_large_live_audit_asks_first_and_refuses_without_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "audit",
            "--samples",
            "20",
            "--reference",
            "http://127.0.0.1:9/v1",
            "--candidate",
            "http://127.0.0.1:9/v1",
            "--out",
            str(tmp_path),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "pass --yes" in err
    assert list(tmp_path.iterdir()) == []


def test_the_pair_offered_first_shares_prompts_and_puts_a_live_audits_reference_first() -> None:
    samples = Path(__file__).resolve().parents[2] / "sample_runs"
    agent, a, c = (
        load_path(samples / f"{n}.altk_runs.json").log for n in ("E_agent_tools", "A_baseline", "C_pinned")
    )
    assert not set(task_ids(agent)) & set(task_ids(a))  # the agent log's tasks are others
    assert pair_to_audit([agent, a, c]) == (1, 2)
    candidate, reference = (
        a.model_copy(update={"label": "audit candidate"}),
        c.model_copy(update={"label": "audit reference"}),
    )
    assert pair_to_audit([agent, candidate, reference]) == (2, 1)


def test_unfinished_audits_list_what_can_be_continued_and_say_why_not(tmp_path: Path) -> None:
    from analyzer.audit.live_folder import LiveAudit, LiveRoute, save_manifest, unfinished_audits
    from analyzer.audit.probes import probe_tasks
    from analyzer.log.model import TaskSpec

    runs = tmp_path / "runs"
    routes = (LiveRoute("reference", "", "OPENAI_API_KEY"), LiveRoute("candidate", "", "OPENAI_API_KEY"))
    probes = LiveAudit(probe_tasks(), 3, *routes, "gpt-4o-mini", 1.0, runs / "audit-b")
    own_file = LiveAudit(
        [TaskSpec(task_id="t", prompt="Hi")], 3, *routes, "gpt-4o-mini", 1.0, runs / "audit-a"
    )
    for audit in (probes, own_file):
        audit.out.mkdir(parents=True)
        save_manifest(audit)
    (runs / "other").mkdir()
    (runs / "other" / "audit.json").write_text('{"name": "some other tool"}')

    found = {u.out.name: u for u in unfinished_audits(runs, probe_tasks())}

    assert sorted(found) == ["audit-a", "audit-b"]  # another tool's audit.json is not a live audit
    assert found["audit-b"].audit == probes and (found["audit-b"].kept, found["audit-b"].total) == (0, 108)
    assert found["audit-a"].audit is None and found["audit-a"].total == 6
    assert "not the built-in probes nor in a journal" in str(found["audit-a"].why_not)
