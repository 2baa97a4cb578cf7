"""Regenerate the tool-using agent sample log, made by the runner against the simulator.

    python scripts/make_agent_sample.py

Writes sample_runs/E_agent_tools.altk_runs.json: the six tasks of `analyzer.simulator.agent`, eight
rounds, run by examples/tool_agent_executor.py (a tool loop that records every message and tool
call), two keys alternating (each key sticks to its own backend, and the backends take different
turns where the scripted model's options are close), temperature 0, no seed.

It then resamples every step of one task's round-1 conversation (`analyzer.runner.resample`): 8 samples
per step on one pinned key, temperature 0, no seed, and saves
sample_runs/E_agent_tools.resample-agent-cheapest-monitor.altk_runs.json, linked to the log.

Every step, answer and attempt is deterministic (the simulator's draws hang on its seed and each
request's position in the run); only timestamps and latencies differ between regenerations. The
keys are simulator keys, not secrets; the log carries only their fingerprints.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analyzer.log.loader import load_path  # noqa: E402
from analyzer.routes.profile import RouteProfile  # noqa: E402
from analyzer.runner.plan import Provenance, Simulation, new_plan  # noqa: E402
from analyzer.runner.resample import ResampleRequest, default_resample_path, resample  # noqa: E402
from analyzer.runner.run import run_plan  # noqa: E402
from analyzer.safety.keys import read_keys  # noqa: E402
from analyzer.simulator.agent import AGENT_KEYS, agent_scenario, agent_task_specs  # noqa: E402

OUT = ROOT / "sample_runs" / "E_agent_tools.altk_runs.json"
EXECUTOR = f"{ROOT / 'examples' / 'tool_agent_executor.py'}:run_task"
ROUNDS = 8
PORT = 8766
RESAMPLED_TASK = "agent-cheapest-monitor"
SAMPLES = 8


def main() -> None:
    OUT.unlink(missing_ok=True)
    profile = RouteProfile(
        model="gpt-4o-mini", temperature=0.0, seed=None, rounds=ROUNDS, max_retries=1, concurrency=2
    )
    plan = new_plan(
        agent_task_specs(),
        profile,
        OUT,
        keys=read_keys(profile.key_envs(), rotation=AGENT_KEYS),
        provenance=Provenance(
            run_id="sample-E_agent_tools", label="E: tool-using agent, two keys alternating"
        ),
        executor=EXECUTOR,
        simulation=Simulation(agent_scenario(), PORT),
    )
    outcome = run_plan(plan)
    p = outcome.progress
    print(
        f"{OUT.relative_to(ROOT)}: {p.done} results, {p.tokens:,} tokens, "
        f"{p.retries} retries, {p.errors} errors"
    )
    out = OUT.with_name(default_resample_path(OUT, RESAMPLED_TASK).name)  # shipped beside the sample
    out.unlink(missing_ok=True)
    pinned = RouteProfile(model="gpt-4o-mini", temperature=0.0, seed=None, rounds=1, max_retries=1)
    request = ResampleRequest(
        load_path(OUT).log, RESAMPLED_TASK, out, samples=SAMPLES, scenario=agent_scenario()
    )
    report = resample(request, pinned, read_keys(pinned.key_envs(), rotation=AGENT_KEYS[:1]))
    scores = ", ".join(f"{s.step}: {s.score.uncertainty:.2f}" for s in report.steps)
    print(f"{out.relative_to(ROOT)}: uncertainty by step {scores}; flagged {report.flagged}")


if __name__ == "__main__":
    main()
