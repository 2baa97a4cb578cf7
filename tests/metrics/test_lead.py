"""An agent log leads with both gaps and says which varies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from analyzer.analysis import analyze
from analyzer.importers import load_any
from analyzer.log.model import RunLog
from analyzer.report.text import render_report

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "sample_runs" / "E_agent_tools.altk_runs.json"


def test_the_agent_sample_says_its_answers_agree_but_its_tool_calls_do_not() -> None:
    a = analyze(load_any(AGENT).log)
    lead = a.headline.lead
    assert lead is not None and lead.varies == "tool_calls"
    # 6 tasks with 2+ rounds of trajectories, 3 of them with identical calls: 50 pp; the Wilson
    # interval of 3 of 6 is 0.5 -+ 0.3124 -> [18.76, 81.24] pp
    assert lead.answer_gap_pp == 0.0 and lead.tool_call_gap_pp == 50.0 and lead.tool_call_tasks == 6
    assert lead.tool_call_gap_ci == pytest.approx([18.76, 81.24], abs=0.01)
    assert lead.sentence.startswith("answers agree but tool calls do not: answer gap 0.0 pp (key exact)")
    assert render_report(a, "E").splitlines()[1] == f"  {lead.sentence}"
    assert a.report()["lead"]["varies"] == "tool_calls"


def _step(name: str) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "arguments": {}}


def _r(task: str, answer: str, *calls: str) -> dict[str, Any]:
    return {"task_id": task, "answer": answer, "trajectory": [_step(c) for c in calls]}


def test_same_calls_different_words_and_both() -> None:
    log = RunLog.model_validate(
        {"runs": [[_r("a", "Done.", "search", "buy")], [_r("a", "All set!", "search", "buy")]]}
    )
    lead = analyze(log).headline.lead
    assert lead is not None and lead.varies == "answers" and lead.tool_call_gap_pp == 0.0
    assert lead.sentence.startswith("tool calls agree but answers do not")
    both = RunLog.model_validate({"runs": [[_r("a", "x", "search")], [_r("a", "y", "refund")]]})
    assert analyze(both).headline.lead.varies == "both"  # type: ignore[union-attr]


def test_a_log_without_tool_calls_has_no_lead() -> None:
    plain = {"task_id": "a", "answer": "x"}
    log = RunLog.model_validate({"runs": [[plain], [plain]]})
    assert analyze(log).headline.lead is None
