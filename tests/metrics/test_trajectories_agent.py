"""The simulator's tool-using agent scenario, run by the example executor through the real runner:
without model noise each route repeats itself step for step, two routes take different turns, and
model noise makes one route's rounds part ways."""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from analyzer.log.loader import load_path
from analyzer.log.model import RunLog
from analyzer.metrics.trajectories import measure_trajectories
from analyzer.routes.profile import RouteProfile
from analyzer.runner.plan import Simulation, new_plan
from analyzer.runner.run import run_plan
from analyzer.safety.keys import read_keys
from analyzer.simulator import Simulator
from analyzer.simulator.agent import (
    AGENT_KEYS,
    AGENT_TASKS,
    agent_answer_rules,
    agent_scenario,
    agent_task_specs,
)
from analyzer.simulator.agent_world import run_tool, tool_schemas

EXECUTOR = f"{Path(__file__).resolve().parents[2] / 'examples' / 'tool_agent_executor.py'}:run_task"


def run_agent(
    tmp_path: Path, keys: list[str], *, noise: float, rounds: int = 2, only: str | None = None
) -> RunLog:
    profile = RouteProfile(model="gpt-4o-mini", temperature=0.0, seed=42, rounds=rounds, max_retries=0)
    tasks = [t for t in agent_task_specs() if only is None or t.task_id == only]
    out = tmp_path / f"agent-{'-'.join(keys)}-{noise}.json"
    plan = new_plan(
        tasks,
        profile,
        out,
        keys=read_keys(profile.key_envs(), rotation=keys),
        executor=EXECUTOR,
        simulation=Simulation(agent_scenario(noise=noise)),
    )
    run_plan(plan)
    return load_path(out).log


def test_every_tool_call_the_model_may_make_has_a_next_decision() -> None:
    rules = agent_answer_rules()
    seen = {r.match for r in rules}
    for task in AGENT_TASKS:
        for decision in task.policy:
            for option, _ in decision.options:
                if not isinstance(option, str):
                    assert run_tool(*option) in seen, (task.task_id, option)


def test_the_simulator_answers_a_scripted_step_as_a_real_tool_call() -> None:
    task = AGENT_TASKS[1]  # agent-cancel: its first step is get_order O-6101
    with Simulator(agent_scenario(noise=0.0)) as sim:
        client = openai.OpenAI(api_key="sim-test", base_url=sim.base_url, max_retries=0)
        messages = [{"role": "user", "content": task.prompt}]
        reply = client.chat.completions.create(
            model="m", messages=messages, tools=tool_schemas(), temperature=0
        )
        plain = client.chat.completions.create(model="m", messages=messages, temperature=0)
    call = reply.choices[0].message.tool_calls[0]
    assert reply.choices[0].finish_reason == "tool_calls" and reply.choices[0].message.content is None
    assert (call.function.name, call.function.arguments) == ("get_order", '{"order_id":"O-6101"}')
    assert plain.choices[0].message.tool_calls is None  # no tools offered: the text as it is


@pytest.mark.parametrize("key", AGENT_KEYS)
def test_without_model_noise_one_route_repeats_every_step(tmp_path: Path, key: str) -> None:
    log = run_agent(tmp_path, [key], noise=0.0)
    report = measure_trajectories(log).report()
    assert report["tasks"] == len(AGENT_TASKS)
    assert report["first_divergence"] == {t.task_id: None for t in AGENT_TASKS}
    first = log.runs[0][0].trajectory or []
    assert [s.role for s in first if s.type == "message"][:4] == ["system", "user", "assistant", "tool"]


def test_two_routes_take_different_turns(tmp_path: Path) -> None:
    one, two = (measure_trajectories(run_agent(tmp_path, [k], noise=0.0, rounds=1)) for k in AGENT_KEYS)

    def calls(traj: object, task: str) -> list[str]:
        frame = traj.calls  # type: ignore[attr-defined]
        return frame.loc[frame["task_id"] == task, "call"].tolist()

    assert calls(one, "agent-cancel") == calls(two, "agent-cancel")
    assert calls(one, "agent-address") != calls(two, "agent-address")
    lamp_one, lamp_two = calls(one, "agent-refund-lamp"), calls(two, "agent-refund-lamp")
    assert lamp_one[0] == lamp_two[0] and lamp_one[1] != lamp_two[1]


def test_model_noise_makes_one_route_part_ways(tmp_path: Path) -> None:
    log = run_agent(tmp_path, AGENT_KEYS[:1], noise=2.5, rounds=6, only="agent-cheapest-monitor")
    report = measure_trajectories(log).report()
    assert report["first_divergence"]["agent-cheapest-monitor"] is not None
