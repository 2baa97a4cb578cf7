"""The trajectory sections of the dashboard on the shipped agent sample (sample_runs/E_agent_tools),
and the divergence tree's layout: what a person reads is the analyzer's figure."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.log.model import RunLog
from analyzer.metrics.divergence import divergence_tree, rounds_at_step
from analyzer.metrics.trajectories import END_LABEL, call_frame
from app import data, log_folders, trajectory_charts
from app.widgets import trajectory_rounds

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "E_agent_tools.altk_runs.json"
LAMP = "agent-refund-lamp"


def sample_selection() -> data.Selection:
    loaded = load_path(SAMPLE)
    source = f"sample_runs/{SAMPLE.name}"
    g = data.Group(label="E", source=source, loaded=loaded, analysis=analyze(loaded.log))
    return data.Selection(groups=[g], key="exact", focus=g)


def _script(view: str, sel: object) -> None:
    import importlib

    importlib.import_module(f"app.views.{view}").render(sel)  # type: ignore[arg-type]


def run_view(view: str, query: dict[str, Any] | None = None) -> AppTest:
    at = AppTest.from_function(_script, kwargs={"view": view, "sel": sample_selection()}, default_timeout=60)
    at.query_params.update({"tasks.detail": "Trajectory"} | (query or {}))  # the open task's trajectory tab
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def chart(at: AppTest, title_start: str) -> dict[str, Any]:
    for el in at.get("plotly_chart"):
        spec = json.loads(el.proto.spec)
        if spec["layout"]["title"]["text"].startswith(title_start):
            return spec
    raise AssertionError(f"no chart titled {title_start!r}")


def test_tasks_page_shows_the_tree_and_the_rounds_where_they_part() -> None:
    at = run_view("tasks", {"task": LAMP})
    analysis = analyze(load_path(SAMPLE).log)
    fd = analysis.report()["trajectories"]["first_divergence"][LAMP]
    assert fd == 1
    captions = " ".join(c.value for c in at.caption)
    # one numbering: the analyzer's 0-based step 1 is the second tool call, on every part of the page
    assert f"first divergence at tool call {fd + 1}" in captions
    assert [m.value for m in at.markdown if "The rounds at tool call" in m.value] == [
        f"**The rounds at tool call {fd + 1}**"
    ]
    sides = next(df.value for df in at.dataframe if "previous_result" in df.value.columns)
    assert sides["round"].tolist() == list(range(1, 9))
    # at step 1 a round opened either the latest or the older order, right after finding the customer
    assert set(sides["call"]) == {'get_order {"order_id":"O-5002"}', 'get_order {"order_id":"O-5001"}'}
    assert sides["previous_call"].str.startswith("find_customer").all()
    assert sides["previous_result"].str.contains('"customer_id": "C-101"').all()
    # the tree is one click away (a lazy expander): no Plotly on the page until it is opened
    assert [e.label for e in at.expander][
        0
    ] == "Divergence tree: the rounds merged while they made the same calls"
    assert not at.get("plotly_chart")
    at.session_state["tasks.tree"] = True
    at.run()
    tree = chart(at, "Divergence tree")
    shapes = tree["layout"].get("shapes", [])
    assert [s["x0"] for s in shapes] == [fd - 0.5]
    assert tree["layout"]["xaxis"]["ticktext"][:3] == ["1", "2", "3"]  # the first call is 1 here too
    assert tree["layout"]["xaxis"]["tickvals"][:3] == [0, 1, 2]


def test_two_rounds_side_by_side_from_their_first_difference() -> None:
    at = run_view("tasks", {"task": LAMP})
    assert not at.get("toggle")  # one click away: nothing of it built before it is opened
    at.session_state[trajectory_rounds.SECTION] = True
    at.run()
    log = load_path(SAMPLE).log
    r1, r2 = (next(r for n, r in log.results() if r.task_id == LAMP and n == k) for k in (1, 2))
    calls = [[s.name for s in r.trajectory if s.type == "tool_call"] for r in (r1, r2)]
    assert calls[0][:2] == ["find_customer", "get_order"] and len(calls[0]) != len(calls[1])
    assert at.selectbox(key=f"tasks.traj_a.{LAMP}").value == 1
    assert at.selectbox(key=f"tasks.traj_b.{LAMP}").value == 2  # the first round that differs
    assert "Rounds 1 and 2 made the same calls up to tool call 1, then part at tool call 2" in " ".join(
        c.value for c in at.caption
    )
    texts = [t.value for t in at.text]
    # each call inside its assistant message, numbered from 1 as on the tree; no empty messages
    assert '2. get_order("order_id": "O-5001")' in texts
    assert '2. get_order("order_id": "O-5002")' in texts
    assert '1. find_customer("email": "ana.ruiz@example.com")' not in texts  # before the part
    heads = [c.value for c in at.caption if c.value.startswith(("assistant", "tool result"))]
    # the only assistant boxes without a call are the two final answers: no empty message is drawn
    assert heads.count("assistant") == 2 and "$24.50" in texts
    # from the start: every turn, with the empty assistant messages of the log hidden
    at.toggle(key="tasks.traj_from_part").set_value(False).run()
    texts = [t.value for t in at.text]
    assert texts.count('1. find_customer("email": "ana.ruiz@example.com")') == 2
    boxes = [
        c.value for c in at.caption if c.value.startswith(("assistant", "tool result", "user", "system"))
    ]
    steps = len(r1.trajectory) + len(r2.trajectory)
    assert len(boxes) < steps  # 18 steps for 5 calls in round 1 become 13 boxes


def test_tasks_page_says_so_when_every_round_made_the_same_calls() -> None:
    at = run_view("tasks", {"task": "agent-cancel"})
    captions = " ".join(c.value for c in at.caption)
    assert "every round made the same calls" in captions
    assert not [m for m in at.markdown if "The rounds at step" in m.value]


def test_overview_histogram_counts_tasks_by_first_divergence() -> None:
    at = run_view("overview")
    report = analyze(load_path(SAMPLE).log).report()["trajectories"]
    spec = chart(at, "Where the rounds part ways")
    bars = spec["data"][0]
    hist = report["divergence_histogram"]
    assert list(bars["x"]) == [str(int(k) + 1) for k in hist if k != "none"] + ["same calls"]
    shown = dict(zip(bars["x"], trajectory_charts_values(bars["y"]), strict=True))
    assert shown["same calls"] == hist["none"] == report["identical"]
    share = report["identical_share"]
    low, high = 100 * share["low"], 100 * share["high"]
    assert any(f"(95 % CI {low:.1f}–{high:.1f}) of them" in c.value for c in at.caption)
    # the first screen: answers agree, the tool calls are the finding, said once; the key that shows them
    heading = at.markdown[0].value.replace("\\", "")
    assert heading.startswith("#### All 6 tasks give one answer across 8 rounds. Tool calls differ in 3 of 6")
    lead = analyze(load_path(SAMPLE).log).headline.lead
    assert lead is not None and lead.varies == "tool_calls"
    assert not at.info and not [c for c in at.caption if "tool-call gap 50.0 pp" in c.value]
    assert any("the answer key **actions** (in the sidebar)" in c.value for c in at.caption)


def trajectory_charts_values(values: Any) -> list[int]:
    """Plotly's JSON numbers: a plain list or a typed array (`{"dtype", "bdata"}`)."""
    if isinstance(values, dict):
        return [int(v) for v in np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])]
    return [int(v) for v in values]


def calls_log(*rounds: list[str]) -> RunLog:
    return RunLog.model_validate(
        {
            "runs": [
                [{"task_id": "t", "answer": "a", "trajectory": [{"type": "tool_call", "name": n} for n in r]}]
                for r in rounds
            ]
        }
    )


def test_tree_merges_shared_prefixes_and_keeps_the_main_branch_on_top() -> None:
    # rounds 1, 2, 4: a b c; round 3: a x; round 5: a b
    log = calls_log(["a", "b", "c"], ["a", "b", "c"], ["a", "x"], ["a", "b", "c"], ["a", "b"])
    calls, seqs = call_frame(log)
    tree = divergence_tree(calls, seqs, "t")
    rows = {(r.step, r.name): r for r in tree.itertuples()}
    assert rows[(0, "a")].rounds == [1, 2, 3, 4, 5] and rows[(0, "a")].lane == 0
    assert rows[(1, "b")].rounds == [1, 2, 4, 5] and rows[(1, "b")].lane == 0
    assert rows[(2, "c")].lane == 0 and rows[(3, END_LABEL)].rounds == [1, 2, 4]
    assert rows[(2, END_LABEL)].rounds == [5] and rows[(2, END_LABEL)].lane == 1  # b's second branch
    assert rows[(1, "x")].rounds == [3] and rows[(1, "x")].lane == 2 and rows[(1, "x")].branch
    assert len(tree) == 7 and tree["lane"].max() == 2


def test_tree_of_twenty_rounds_and_fifty_steps_stays_one_lane_per_branch() -> None:
    base = [f"s{i % 7}" for i in range(50)]
    rounds = [base[:k] + [f"alt{k}"] + base[k + 1 :] for k in range(10, 30)]
    calls, seqs = call_frame(calls_log(*rounds))
    tree = divergence_tree(calls, seqs, "t")
    assert tree["lane"].max() == 19  # 20 rounds, 20 branches
    assert tree["step"].max() == 50
    fig = trajectory_charts.divergence_tree(tree, 10, 20)
    assert fig.layout.height <= 900


def test_rounds_at_step_marks_rounds_that_ended() -> None:
    log = calls_log(["a", "b"], ["a"])
    sides = rounds_at_step(log, "t", 1)
    assert sides["call"].tolist() == ["b null", END_LABEL]
    assert sides["previous_call"].tolist() == ["a null", "a null"]
    assert isinstance(sides, pd.DataFrame)


@pytest.fixture(autouse=True)
def _no_runs_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(log_folders.RUNS_DIR_ENV, raising=False)


def test_tasks_page_shows_the_uncertainty_strip_of_the_shipped_resample() -> None:
    from analyzer.metrics.step_uncertainty import resample_frame
    from analyzer.runner.resample import default_resample_path

    resampled = load_path(SAMPLE.with_name(default_resample_path(SAMPLE, "agent-cheapest-monitor").name)).log
    scores = resample_frame(resampled)
    assert scores is not None and resampled.parent_run_id == load_path(SAMPLE).log.run_id
    at = run_view("tasks", {"task": "agent-cheapest-monitor"})
    strip = chart(at, "Step uncertainty")
    bars = strip["data"][0]
    ys = (
        np.frombuffer(base64.b64decode(bars["y"]["bdata"]), dtype=bars["y"]["dtype"])
        if isinstance(bars["y"], dict)
        else np.asarray(bars["y"])
    )
    assert np.allclose(ys, scores["uncertainty"].astype(float))
    flagged = scores.loc[scores["flagged"], "tool_step"].tolist()
    assert flagged and all(scores.loc[scores["flagged"], "uncertainty"] >= 0.2)
    caption = next(c.value for c in at.caption if "samples per step" in c.value)
    assert ", ".join(f"tool call {s + 1}" for s in flagged) in caption


def test_tasks_page_says_how_to_resample_a_task_without_one() -> None:
    at = run_view("tasks", {"task": LAMP})
    assert any("No step resample for this task yet" in c.value for c in at.caption)
    assert not [el for el in at.get("plotly_chart") if "Step uncertainty" in el.proto.spec]


def test_tasks_page_starts_a_resample_and_shows_its_strip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil
    import time

    from analyzer.jobs.resample_jobs import resample_job
    from analyzer.runner.resample import default_resample_path

    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(SAMPLE, runs / SAMPLE.name)
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(runs))
    at = run_view("tasks", {"task": "agent-cancel"})
    at.number_input(key="tasks.resample_samples").set_value(3)
    at.button(key="tasks.resample_start").click().run()
    out = default_resample_path(runs.resolve() / SAMPLE.name, "agent-cancel")
    job = resample_job(out)
    assert job is not None
    deadline = time.monotonic() + 60
    while job.state == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert job.state == "done" and job.done == job.planned == 9
    at.run()
    assert not at.exception
    strip = chart(at, "Step uncertainty")
    assert trajectory_charts_values(strip["data"][0]["x"]) == [0, 1, 2]  # tool-call steps of agent-cancel
    assert load_path(out).log.parent_run_id == load_path(SAMPLE).log.run_id
    assert any("3 samples per step" in c.value for c in at.caption)
