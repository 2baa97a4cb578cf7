"""tau-bench and tau2-bench imports, checked against the figures the tools compute themselves.

Fixtures are excerpts of real public results (tests/fixtures/foreign/*/SOURCE.md). tau's pass^k is
recomputed here with the tools' own formula, `comb(c, k) / comb(n, k)` averaged over tasks
(tau_bench/run.py `display_metrics`; tau2 `metrics/agent_metrics.py`), straight from the raw file.
"""

from __future__ import annotations

import json
from collections import defaultdict
from math import comb
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.errors import LogError
from analyzer.importers import load_any, load_any_bytes
from analyzer.importers.messages import final_answer

FOREIGN = Path(__file__).parents[1] / "fixtures" / "foreign"
TAU = FOREIGN / "tau_bench" / "gpt-4o-airline.excerpt.json"
TAU2 = FOREIGN / "tau2_bench" / "airline_run1.excerpt.json"


def _tau_bench_pass_hat_ks(entries: list[dict]) -> dict[int, float]:
    """tau-bench's display_metrics, as written in tau_bench/run.py."""
    num_trials = len({r["trial"] for r in entries})
    c_per_task: dict[int, int] = defaultdict(int)
    for r in entries:
        c_per_task[r["task_id"]] += 1 if (1 - 1e-6) <= r["reward"] <= (1 + 1e-6) else 0
    return {
        k: sum(comb(c, k) / comb(num_trials, k) for c in c_per_task.values()) / len(c_per_task)
        for k in range(1, num_trials + 1)
    }


def _tau2_pass_hat_ks(results: dict) -> dict[int, float]:
    """tau2's get_metrics_df + get_tasks_pass_hat_k: infrastructure errors dropped, then per task."""
    sims = [s for s in results["simulations"] if s["termination_reason"] != "infrastructure_error"]
    by_task: dict[str, list[bool]] = defaultdict(list)
    for s in sims:
        by_task[s["task_id"]].append((1 - 1e-6) <= s["reward_info"]["reward"] <= (1 + 1e-6))
    max_k = min(len(v) for v in by_task.values())
    return {
        k: sum(comb(sum(v), k) / comb(len(v), k) for v in by_task.values()) / len(by_task)
        for k in range(1, max_k + 1)
    }


def test_tau_bench_pass_hat_k_equals_tau_bench_own() -> None:
    entries = json.loads(TAU.read_text(encoding="utf-8"))
    outcome = analyze(load_any(TAU).log).headline.outcome
    assert outcome is not None
    own = _tau_bench_pass_hat_ks(entries)
    # hand-computed: successes per task 4, 3, 2, 1, 0 out of 4 trials
    assert own == pytest.approx({1: 0.5, 2: 1 / 3, 3: 0.25, 4: 0.2})
    assert outcome.pass_hat_k == pytest.approx(own, abs=1e-12)
    assert outcome.n == 4 and not outcome.uneven_n


def test_tau_bench_trials_become_rounds_and_tool_calls_the_trajectory() -> None:
    entries = json.loads(TAU.read_text(encoding="utf-8"))
    last_words = [m["content"] for m in entries[0]["traj"] if m["role"] == "assistant" and m.get("content")][
        -1
    ]
    loaded = load_any(TAU)
    log = loaded.log
    assert [len(r) for r in log.runs] == [5, 5, 5, 5]
    first = log.runs[0][0]
    assert first.task_id == 21 and first.round == 1 and first.source_ref == "[0]"
    calls = [s for s in first.trajectory if s.type == "tool_call"]
    assert calls[0].name == "get_user_details"
    assert calls[0].arguments == '{"user_id":"daiki_lee_6144"}'  # OpenAI's JSON string, as recorded
    assert first.answer == last_words  # the agent's closing message, not the user's ###STOP###
    assert "###STOP###" in entries[0]["traj"][-1]["content"]
    assert log.imported_from["format"] == "tau-bench"
    assert log.imported_from["importer"] == "analyzer.importers.tau_bench"
    assert any("no tokens" in w for w in loaded.warnings)
    assert first.total_tokens is None  # tau-bench records none: unknown, not zero


def test_tau_bench_final_messages_never_repeat_but_actions_sometimes_do() -> None:
    log = load_any(TAU).log
    by_text = analyze(log, "normalized").headline
    by_actions = analyze(log, "actions")
    assert by_text.consistent_tasks == 0 and by_text.tasks_measured == 5
    tasks = by_actions.tasks.set_index("task_id")
    # task 44 made the same two lookups in rounds 1 and 3: one cluster of 2 among 4 answers
    assert tasks.loc["44", "n_clusters"] == 3
    assert tasks.loc["44", "majority_share"] == pytest.approx(0.5)


def test_tau_bench_exception_is_an_error_and_said_so() -> None:
    entries = json.loads(TAU.read_text(encoding="utf-8"))
    entries[0] = {**entries[0], "reward": 0.0, "traj": [], "info": {"error": "RateLimitError: 429"}}
    loaded = load_any_bytes(json.dumps(entries).encode(), "tau.json")
    headline = analyze(loaded.log).headline
    assert headline.errors == 1
    assert any("tau-bench counted them as failures" in w for w in loaded.warnings)
    err = loaded.log.runs[0][0].error
    assert err is not None and err.message == "RateLimitError: 429"


def test_tau2_pass_hat_k_equals_tau2_own_and_agent_fields_only() -> None:
    raw = json.loads(TAU2.read_text(encoding="utf-8"))
    loaded = load_any(TAU2)
    outcome = analyze(loaded.log).headline.outcome
    assert outcome is not None
    assert outcome.pass_hat_k == pytest.approx(_tau2_pass_hat_ks(raw), abs=1e-12)
    assert outcome.pass_hat_k == pytest.approx({1: 0.5})  # 4 of the 8 simulations rewarded 1
    results = [r for rnd in loaded.log.runs for r in rnd]
    # the user simulator's raw responses carry gpt-4o and a fingerprint; the agent recorded none
    assert all(r.system_fingerprint is None and r.served_model is None for r in results)
    assert all(r.total_tokens is None for r in results)
    assert loaded.log.route is not None and loaded.log.route.model == "whissle"
    assert loaded.log.route.temperature == 0.0
    assert loaded.log.label == "tau2-bench: airline whissle"
    assert loaded.log.imported_from["version"] == raw["info"]["git_commit"]
    first = results[0]
    assert [s.name for s in first.trajectory if s.type == "tool_call"][0] == "get_reservation_details"
    assert first.finish_reason == "user_stop"
    assert first.latency_ms == pytest.approx(raw["simulations"][0]["duration"] * 1000)


def test_tau2_infrastructure_errors_are_left_out_as_tau2_does() -> None:
    raw = json.loads(TAU2.read_text(encoding="utf-8"))
    raw["simulations"][1]["termination_reason"] = "infrastructure_error"  # a won simulation
    raw["simulations"][2]["termination_reason"] = "max_steps"
    raw["simulations"][2]["reward_info"]["reward"] = 0.0
    loaded = load_any_bytes(json.dumps(raw).encode(), "results.json")
    headline = analyze(loaded.log).headline
    assert headline.errors == 1
    assert headline.outcome is not None
    own = _tau2_pass_hat_ks(raw)
    assert own == pytest.approx({1: 2 / 7})  # 7 simulations left, 2 of them won
    assert headline.outcome.pass_hat_k == pytest.approx(own, abs=1e-12)
    assert any(
        "infrastructure error" in w and "tau2-bench's own metrics exclude" in w for w in loaded.warnings
    )
    assert any("max_steps" in w and "graded as failures" in w for w in loaded.warnings)


def test_tau2_agent_usage_and_served_model_from_the_agents_raw_response() -> None:
    raw = json.loads(TAU2.read_text(encoding="utf-8"))
    sim = raw["simulations"][0]
    agent = [m for m in sim["messages"] if m["role"] == "assistant"]
    agent[0]["usage"] = {"prompt_tokens": 1000, "completion_tokens": 20}
    agent[1]["usage"] = {"prompt_tokens": 1100, "completion_tokens": 30}
    agent[1]["raw_data"] = {"model": "gpt-4.1-2025-04-14", "system_fingerprint": "fp_agent"}
    result = load_any_bytes(json.dumps(raw).encode(), "results.json").log.runs[0][0]
    assert (result.prompt_tokens, result.completion_tokens, result.total_tokens) == (2100, 50, 2150)
    assert (result.served_model, result.system_fingerprint) == ("gpt-4.1-2025-04-14", "fp_agent")


def test_tau2_directory_layout_reads_the_simulations_folder(tmp_path: Path) -> None:
    raw = json.loads(TAU2.read_text(encoding="utf-8"))
    (tmp_path / "simulations").mkdir()
    for sim in raw["simulations"]:
        (tmp_path / "simulations" / f"{sim['id']}.json").write_text(json.dumps(sim), encoding="utf-8")
    index = [{"id": s["id"], "task_id": s["task_id"], "trial": s["trial"]} for s in raw["simulations"]]
    meta = {k: v for k, v in raw.items() if k != "simulations"} | {"simulation_index": index}
    (tmp_path / "results.json").write_text(json.dumps(meta), encoding="utf-8")
    from_folder = load_any(tmp_path / "results.json").log
    one_file = load_any(TAU2).log
    assert [r.task_id for r in from_folder.runs[0]] == [r.task_id for r in one_file.runs[0]]
    assert [r.success for r in from_folder.runs[0]] == [r.success for r in one_file.runs[0]]
    assert from_folder.runs[0][0].source_ref.startswith("simulations/")
    with pytest.raises(LogError, match="simulations/ folder beside this file"):
        load_any_bytes(json.dumps(meta).encode(), "results.json")


@pytest.mark.parametrize(
    ("change", "place"),
    [
        (lambda d: d[3].update(reward="high"), r"\[3\]\.reward: expected a number"),
        (lambda d: d[2].update(task_id=None), r"\[2\]\.task_id: expected a task id"),
        (lambda d: d[1].update(trial=-1), r"\[1\]\.trial"),
        (lambda d: d[0].update(traj={"role": "user"}), r"\[0\]\.traj: expected a list"),
    ],
)
def test_damaged_tau_bench_is_one_line_naming_the_place(change, place: str) -> None:  # noqa: ANN001
    entries = json.loads(TAU.read_text(encoding="utf-8"))
    change(entries)
    with pytest.raises(LogError, match=r"^bad\.json: " + place) as info:
        load_any_bytes(json.dumps(entries).encode(), "bad.json")
    assert "\n" not in str(info.value)


def test_damaged_tau2_is_one_line_naming_the_place() -> None:
    raw = json.loads(TAU2.read_text(encoding="utf-8"))
    raw["simulations"][5]["reward_info"]["reward"] = "1"
    with pytest.raises(LogError, match=r"^r\.json: simulations\[5\]\.reward_info\.reward: expected a number"):
        load_any_bytes(json.dumps(raw).encode(), "r.json")
    raw["simulations"][5] = ["not", "a", "simulation"]
    with pytest.raises(LogError, match=r"^r\.json: simulations\[5\]: expected an object, got a list$"):
        load_any_bytes(json.dumps(raw).encode(), "r.json")


SOLO = FOREIGN / "tau2_bench" / "solo_stop.json"


def test_tau2_solo_stop_token_is_never_the_answer() -> None:
    loaded = load_any(SOLO)
    answers = {(r.task_id, r.round): r.answer for rnd in loaded.log.runs for r in rnd}
    assert "###STOP###" not in " ".join(a or "" for a in answers.values())
    # the agent only acted: its answer is its tool calls in order, one a line
    assert answers[("cancel", 1)] == (
        'get_reservation_details {"reservation_id":"EHGLP3"}\ncancel_reservation {"reservation_id":"EHGLP3"}'
    )
    assert any("4 simulations ended on the stop token" in w for w in loaded.warnings)
    h = analyze(loaded.log).headline
    # cancel: same calls in both trials; upgrade: economy then business -> 1 of 2 inconsistent
    # (with the stop token as the answer every task was consistent: 0 pp)
    assert h.tasks_measured == 2 and h.answer_gap_pp == 50.0
    assert h.score is not None and h.score.name == "reward" and h.score.mean == pytest.approx(0.75)


def test_stop_tokens_are_dropped_from_closing_words() -> None:
    said = [
        {"role": "assistant", "content": "Your refund is on its way."},
        {"role": "user", "content": "###STOP###"},
        {"role": "assistant", "content": " ###STOP### "},
    ]
    assert final_answer(said) == "Your refund is on its way."
    assert final_answer([{"role": "assistant", "content": "Done. ###TRANSFER###"}]) == "Done."
    assert final_answer([{"role": "assistant", "content": "###STOP###"}]) is None


def test_a_trial_that_numbers_the_tasks_is_not_taken_as_rounds() -> None:
    # a runner that wrote each task's index as `trial`: tasks 5, 6, 7 with trials 0, 1, 2
    rows = [
        {"task_id": 5 + i, "trial": i, "reward": r, "info": {}, "traj": []}
        for i, r in enumerate([1.0, 0.0, 0.5])
    ]
    loaded = load_any_bytes(json.dumps(rows).encode(), "results.json")
    assert [len(r) for r in loaded.log.runs] == [3]  # one round, not three ragged ones
    assert any("numbers the tasks, not repeats" in w for w in loaded.warnings)
    assert not any("misses" in w or "miss tasks" in w for w in loaded.warnings)
    # a real repeat (the same tasks in trials 0 and 1) is still taken literally
    entry = {"reward": 1.0, "info": {}, "traj": []}
    again = [{"task_id": t, "trial": k, **entry} for k in (0, 1) for t in (1, 2)]
    assert [len(r) for r in load_any_bytes(json.dumps(again).encode(), "r.json").log.runs] == [2, 2]
