"""τ-bench's public GPT-4o airline trajectories (an excerpt, see fixtures/trajectories/SOURCE.md)
through the trajectory metrics; first divergence is checked against a computation made straight
from the raw file, without RerunLens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from analyzer.analysis import analyze
from analyzer.log.chat_steps import messages_from_steps, steps_from_messages
from analyzer.log.loader import LoadedLog
from analyzer.log.model import RunLog
from analyzer.metrics.trajectories import measure_trajectories

EXCERPT = Path(__file__).parents[1] / "fixtures" / "trajectories" / "tau_bench_airline_gpt4o_excerpt.json"


def records() -> list[dict[str, Any]]:
    return json.loads(EXCERPT.read_text(encoding="utf-8"))


def as_log(recs: list[dict[str, Any]]) -> RunLog:
    """Trial t is round t + 1; the answer is the last assistant text; success is reward 1."""
    rounds: dict[int, list[dict[str, Any]]] = {}
    for r in recs:
        texts = [m["content"] for m in r["traj"] if m["role"] == "assistant" and m.get("content")]
        rounds.setdefault(r["trial"], []).append(
            {
                "task_id": r["task_id"],
                "answer": texts[-1] if texts else "",
                "success": r["reward"] == 1.0,
                "trajectory": steps_from_messages(r["traj"]),
            }
        )
    return RunLog.model_validate({"format": "altk-runs/2", "runs": [rounds[t] for t in sorted(rounds)]})


def raw_first_divergence(recs: list[dict[str, Any]]) -> dict[str, int | None]:
    """Independent: read tool calls straight from the raw chats, walk the steps until they differ."""
    by_task: dict[str, list[list[tuple[str, Any]]]] = {}
    for r in recs:
        seq = []
        for m in r["traj"]:
            for c in m.get("tool_calls") or []:
                seq.append((c["function"]["name"], json.loads(c["function"]["arguments"])))
        by_task.setdefault(str(r["task_id"]), []).append(seq)
    out: dict[str, int | None] = {}
    for task, seqs in by_task.items():
        out[task] = None
        for step in range(max(len(s) for s in seqs)):
            seen = {json.dumps(s[step], sort_keys=True) if step < len(s) else "<ended>" for s in seqs}
            if len(seen) > 1:
                out[task] = step
                break
    return out


def test_first_divergence_on_tau_bench_matches_the_raw_computation() -> None:
    recs = records()
    report = measure_trajectories(as_log(recs)).report()
    assert report["first_divergence"] == raw_first_divergence(recs)
    assert report["first_divergence"] == {"12": 0, "20": 2, "30": 8, "40": 6, "42": 1, "48": 1}
    assert report["tasks"] == 6 and report["identical"] == 0


def test_tau_bench_task_40_trials_make_seven_calls_and_part_at_the_seventh() -> None:
    traj = measure_trajectories(as_log(records()))
    row = traj.tasks.set_index("task_id").loc["40"]
    assert (row["calls_min"], row["calls_max"]) == (7, 7)
    steps = traj.steps[traj.steps["task_id"] == "40"].set_index("step")
    assert steps.loc[:5, "actions"].eq(1).all() and steps.loc[6, "actions"] > 1
    assert 0 < row["edit_mean"] < 1


def test_tau_bench_chats_replay_as_they_were_recorded() -> None:
    recs = records()
    log = as_log(recs)
    replayed = messages_from_steps(log.runs[0][0].trajectory or [])
    raw = recs[0]["traj"]
    assert [m["role"] for m in replayed] == [m["role"] for m in raw]
    raw_calls = [c["function"]["name"] for m in raw for c in m.get("tool_calls") or []]
    assert [c["function"]["name"] for m in replayed for c in m.get("tool_calls") or []] == raw_calls


def test_tau_bench_log_analyses_with_its_outcomes() -> None:
    report = analyze(as_log(records())).report()
    assert report["outcome"]["n"] == 4
    assert report["trajectories"]["divergence_histogram"] == {
        "0": 1,
        "1": 2,
        "2": 1,
        "6": 1,
        "8": 1,
        "none": 0,
    }


def test_tau_bench_task_on_the_tasks_page(tmp_path: Path) -> None:
    from streamlit.testing.v1 import AppTest

    from app import data

    log = as_log(records())
    loaded = LoadedLog(log=log, source="tau.json")
    group = data.Group(label="tau", source="tau.json", loaded=loaded, analysis=analyze(log))
    sel = data.Selection(groups=[group], key="exact", focus=group)

    def page(sel: object) -> None:
        from app.views import tasks

        tasks.render(sel)  # type: ignore[arg-type]

    at = AppTest.from_function(page, kwargs={"sel": sel}, default_timeout=60)
    at.query_params.update({"task": "30", "tasks.detail": "Trajectory"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("first divergence at tool call 9" in c.value for c in at.caption)  # 1-based, as on the page
    sides = next(df.value for df in at.dataframe if "previous_result" in df.value.columns)
    assert sides["round"].tolist() == [1, 2, 3, 4] and sides["call"].nunique() > 1
