"""Trajectory metrics: tool-call sequences, first divergence, similarity, step entropy.

Each figure has a hand-computed case; first divergence is also checked against a plain, independent
computation on random logs.
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from analyzer.analysis import analyze
from analyzer.log.model import RunLog
from analyzer.metrics.trajectories import call_token, canonical_json, measure_trajectories


def calls(*pairs: tuple[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "tool_call", "name": n, "arguments": a} for n, a in pairs]


def log_of(rounds: list[dict[str, list[dict[str, Any]] | None]]) -> RunLog:
    """A log from {task_id: trajectory} per round (None: the result recorded no trajectory)."""
    return RunLog.model_validate(
        {
            "runs": [
                [{"task_id": t, "answer": "x", "trajectory": traj} for t, traj in rnd.items()]
                for rnd in rounds
            ]
        }
    )


SEARCH = ("search", {"q": "desk", "limit": 5})
OPEN_1 = ("open", {"id": 1})
OPEN_2 = ("open", {"id": 2})
BUY = ("buy", {"id": 1})


def test_canonical_json_makes_equal_arguments_equal() -> None:
    assert canonical_json({"b": 1, "a": [1, 2]}) == '{"a":[1,2],"b":1}'
    assert call_token("search", '{"limit": 5, "q": "desk"}') == call_token(*SEARCH)
    assert call_token("search", "not json") == 'search "not json"'
    assert call_token("search", {"q": "Desk"}) != call_token("search", {"q": "desk"})


def test_hand_computed_task() -> None:
    # round 1: search, open 1, buy; round 2: search, open 2, buy; round 3: search, open 1 (stopped)
    log = log_of(
        [
            {"t": calls(SEARCH, OPEN_1, BUY)},
            {"t": calls(SEARCH, OPEN_2, BUY)},
            {"t": calls(SEARCH, OPEN_1)},
        ]
    )
    traj = measure_trajectories(log)
    row = traj.tasks.iloc[0]
    assert row["first_divergence"] == 1 and not row["identical"]
    # Jaccard: r1-r2 {s,o1,b} vs {s,o2,b}: 2/4; r1-r3: 2/3; r2-r3 {s,o2,b} vs {s,o1}: 1/4
    assert row["jaccard_mean"] == pytest.approx((1 / 2 + 2 / 3 + 1 / 4) / 3)
    assert row["jaccard_min"] == pytest.approx(1 / 4)
    # edit (DL over 3 calls): r1-r2 one substitution 1-1/3; r1-r3 one deletion 1-1/3; r2-r3 two edits 1-2/3
    assert row["edit_mean"] == pytest.approx((2 / 3 + 2 / 3 + 1 / 3) / 3)
    assert row["edit_min"] == pytest.approx(1 / 3)
    steps = traj.steps
    assert steps["step"].tolist() == [0, 1, 2]
    assert steps["actions"].tolist() == [1, 2, 2]  # step 2: buy twice, "end" once
    h = -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3))
    assert steps["entropy_bits"].tolist() == pytest.approx([0.0, h, h])
    assert steps["entropy"].tolist() == pytest.approx([0.0, h / math.log2(3), h / math.log2(3)])


def test_round_that_ends_early_disagrees_where_it_ends() -> None:
    log = log_of(
        [{"t": calls(SEARCH, OPEN_1)}, {"t": calls(SEARCH, OPEN_1, BUY)}, {"t": calls(SEARCH, OPEN_1)}]
    )
    assert measure_trajectories(log).report()["first_divergence"] == {"t": 2}


def test_a_round_with_no_call_disagrees_at_step_zero() -> None:
    log = log_of([{"t": []}, {"t": calls(SEARCH)}])
    report = measure_trajectories(log).report()
    assert report["first_divergence"] == {"t": 0}
    assert report["similarity"]["t"]["jaccard_mean"] == 0.0


def test_identical_rounds_have_no_divergence_and_full_similarity() -> None:
    msg = {"type": "message", "role": "assistant", "content": "thinking differently each time"}
    log = log_of(
        [
            {"t": [msg, *calls(SEARCH, BUY)], "u": []},
            {"t": calls(SEARCH, BUY), "u": []},
        ]
    )
    report = measure_trajectories(log).report()
    assert report["first_divergence"] == {"t": None}  # messages are not calls
    assert report["identical"] == 1 and report["tasks_measured"] == 1
    assert report["similarity"]["t"] == {
        "jaccard_mean": 1.0,
        "jaccard_min": 1.0,
        "edit_mean": 1.0,
        "edit_min": 1.0,
    }
    assert "u" not in report["similarity"]  # no round of u called a tool: not "the same calls"


def test_tasks_with_one_recorded_round_are_counted_but_not_measured() -> None:
    log = log_of([{"a": calls(SEARCH), "b": calls(SEARCH), "c": None}, {"a": calls(OPEN_1), "b": None}])
    report = measure_trajectories(log).report()
    assert report["tasks"] == 2  # a and b recorded trajectories; c did not
    assert report["tasks_measured"] == 1
    assert report["first_divergence"] == {"a": 0}
    assert report["divergence_histogram"] == {"0": 1, "none": 0}


def test_identical_share_carries_a_wilson_interval() -> None:
    log = log_of([{"a": calls(SEARCH), "b": calls(SEARCH)}, {"a": calls(SEARCH), "b": calls(BUY)}])
    share = measure_trajectories(log).report()["identical_share"]
    assert share["value"] == 0.5
    # Wilson 95% for 1 of 2, by hand: centre (0.5 + 1.92/2)/(1 + 1.92) = 0.5, half-width 0.405
    assert share["low"] == pytest.approx(0.0945, abs=1e-4) and share["high"] == pytest.approx(
        0.9055, abs=1e-4
    )


def test_analyze_json_has_the_trajectories_entry() -> None:
    log = log_of([{"t": calls(SEARCH, OPEN_1)}, {"t": calls(SEARCH, OPEN_2)}])
    report = json.loads(json.dumps(analyze(log).report()))
    assert report["trajectories"]["first_divergence"] == {"t": 1}
    assert report["trajectories"]["tasks"] == 1 and report["trajectories"]["identical"] == 0


def test_a_log_without_trajectories_reports_none() -> None:
    log = RunLog.model_validate(
        {"runs": [[{"task_id": "t", "answer": "a"}], [{"task_id": "t", "answer": "b"}]]}
    )
    report = analyze(log).report()["trajectories"]
    assert (
        report["tasks"] == 0
        and report["first_divergence"] == {}
        and report["identical_share"]["value"] is None
    )


def plain_first_divergence(sequences: list[list[str]]) -> int | None:
    """The independent computation: walk the steps, stop at the first where the rounds differ."""
    longest = max(len(s) for s in sequences)
    for step in range(longest):
        seen = set()
        for seq in sequences:
            seen.add(seq[step] if step < len(seq) else "<ended>")
        if len(seen) > 1:
            return step
    return None


def test_first_divergence_matches_an_independent_computation_on_random_logs() -> None:
    rng = random.Random(11)
    tools = ["search", "open", "buy", "refund"]
    rounds: list[dict[str, Any]] = [{} for _ in range(6)]
    expected: dict[str, int | None] = {}
    for task in range(300):
        n_rounds = rng.randint(2, 6)
        base = [(rng.choice(tools), {"id": rng.randint(0, 2)}) for _ in range(rng.randint(0, 40))]
        seqs = []
        for r in range(n_rounds):
            seq = list(base)
            if rng.random() < 0.6 and seq:
                cut = rng.randrange(len(seq))
                seq = seq[:cut] + [
                    (rng.choice(tools), {"id": rng.randint(0, 2)}) for _ in range(rng.randint(0, 5))
                ]
            rounds[r][f"t{task}"] = calls(*seq)
            seqs.append([call_token(n, a) for n, a in seq])
        if any(seqs):  # a task none of whose rounds called a tool is not measured
            expected[f"t{task}"] = plain_first_divergence(seqs)
    report = measure_trajectories(log_of(rounds)).report()
    assert report["first_divergence"] == expected
    assert 0 < report["identical"] < 300  # the random logs hold both kinds


def test_a_task_listed_twice_in_a_round_counts_once() -> None:
    log = RunLog.model_validate(
        {
            "runs": [
                [
                    {"task_id": "t", "answer": "x", "trajectory": calls(SEARCH)},
                    {"task_id": "t", "answer": "y", "trajectory": calls(BUY, BUY)},
                ],
                [{"task_id": "t", "answer": "x", "trajectory": calls(SEARCH)}],
            ]
        }
    )
    traj = measure_trajectories(log)
    assert traj.report()["first_divergence"] == {"t": None}
    assert len(traj.calls) == 2


def test_rounds_that_only_talked_are_not_measured() -> None:
    """Trajectories of messages only (an Inspect log without tools): no call was made, so no task
    "made the same calls" (a question-answering log would otherwise read as perfectly consistent)."""
    talk = [{"type": "message", "role": "assistant", "content": "Paris"}]
    log = log_of([{"t": talk, "u": talk}, {"t": talk, "u": talk}])
    report = measure_trajectories(log).report()
    assert report["first_divergence"] == {}
    assert report["identical"] == 0 and report["tasks_measured"] == 0 and report["tasks"] == 0
