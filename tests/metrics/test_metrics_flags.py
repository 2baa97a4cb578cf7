"""Flagged tasks for a re-run, with their reasons."""

from __future__ import annotations

from typing import Any

from analyzer.analysis import analyze
from analyzer.log.model import RunLog


def _r(task_id: str, answer: str | None, base_url: str = "https://a/v1", **extra: Any) -> dict[str, Any]:
    return {"task_id": task_id, "answer": answer, "route": {"base_url": base_url}, **extra}


def test_each_reason_and_their_combination() -> None:
    log = RunLog.model_validate(
        {
            "runs": [
                [_r("steady", "x"), _r("wobbly", "x"), _r("moved", "x"), _r("broken", "x"), _r("all", "x")],
                [
                    _r("steady", "x"),
                    _r("wobbly", "y"),
                    _r("moved", "x", base_url="https://b/v1"),
                    _r("broken", None, status="error", error={"type": "Timeout"}),
                    _r("all", "z", base_url="https://b/v1"),
                ],
                [
                    _r("steady", "x"),
                    _r("wobbly", "x"),
                    _r("moved", "x"),
                    _r("broken", "x"),
                    _r("all", None, status="error"),
                ],
            ]
        }
    )
    a = analyze(log)
    reasons = {f.task_id: f.reasons for f in a.headline.flagged}
    assert reasons == {
        "wobbly": ["inconsistent"],
        "moved": ["route-drifted"],
        "broken": ["errored"],
        "all": ["inconsistent", "route-drifted", "errored"],
    }
    tasks = a.tasks.set_index("task_id")
    assert not tasks.loc["steady", "flagged"]
    assert tasks.loc["all", "flag_reasons"] == "inconsistent, route-drifted, errored"
    assert a.report()["flagged"][0] == {"task_id": "wobbly", "reasons": ["inconsistent"]}


def test_a_task_with_one_answer_is_not_flagged_inconsistent() -> None:
    log = RunLog.model_validate({"runs": [[_r("once", "x")]]})
    assert analyze(log).headline.flagged == []
