"""Runner throughput: 500 requests at 50 ms simulated latency, concurrency 8, against the ideal.

    python scripts/bench_runner.py

Ideal wall time = requests x latency / concurrency (3.125 s here). The runner's overhead is the
SDK's request path (about 2-3 ms of CPU per call), the recording transport, the journal and the
progress callback; under the GIL that CPU is serial, so on a busy machine the ratio is set by CPU,
not by waiting. The load average is printed for that reason.

Prints the ratio (target at most 1.2) for the simulator in this process (sharing the GIL with the
runner, as `rerunlens run` does with no base URL) and in a separate process (as with a real
endpoint). Figures only, no assertions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analyzer.log.model import TaskSpec  # noqa: E402
from analyzer.routes.profile import RouteProfile  # noqa: E402
from analyzer.runner import Progress  # noqa: E402
from analyzer.runner.plan import RunControls, Simulation, new_plan  # noqa: E402
from analyzer.runner.run import run_plan  # noqa: E402
from analyzer.safety.keys import read_keys  # noqa: E402
from analyzer.simulator import Scenario  # noqa: E402

REQUESTS = 500
LATENCY_S = 0.050
CONCURRENCY = 8
ROUNDS = 5


def tasks() -> list[TaskSpec]:
    n = REQUESTS // ROUNDS
    return [
        TaskSpec(task_id=f"bench-{i:03d}", prompt=f"Bench task {i}: report the total of order {5000 + i}.")
        for i in range(n)
    ]


def timed_run(
    profile: RouteProfile, scenario: Scenario | None, folder: Path, name: str
) -> tuple[float, float, float]:
    """Seconds until the last result was journaled, until the final log was written, and CPU seconds."""
    out = folder / f"{name}.altk_runs.json"
    last = [0.0]
    cpu0 = time.process_time()
    t0 = time.perf_counter()

    def on_progress(p: Progress) -> None:
        if p.done == p.total:
            last[0] = time.perf_counter() - t0

    outcome = run_plan(
        new_plan(
            tasks(),
            profile,
            out,
            keys=read_keys(profile.key_envs(), session_key="bench-key"),
            rounds=ROUNDS,
            simulation=Simulation(scenario),
        ),
        RunControls(progress=on_progress),
    )
    wall = time.perf_counter() - t0
    assert outcome.progress.done == REQUESTS
    return last[0], wall, time.process_time() - cpu0


def external_simulator(scenario_file: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "analyzer.cli", "simulate", "--port", "0", "--scenario", str(scenario_file)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    base_url = line.split(" on ", 1)[1].split(" ", 1)[0]
    return proc, base_url


def report(name: str, ideal: float, requests_s: float, total_s: float, cpu_s: float) -> None:
    print(
        f"  {name:<22} requests {requests_s:6.3f} s  ratio {requests_s / ideal:.2f}"
        f"   | with summary + atomic write {total_s:6.3f} s  ratio {total_s / ideal:.2f}"
        f"   | this process used {cpu_s:.2f} s CPU ({cpu_s / REQUESTS * 1000:.1f} ms per request)"
    )


def main() -> None:
    ideal = REQUESTS * LATENCY_S / CONCURRENCY
    scenario = Scenario(latency_ms=(LATENCY_S * 1000, LATENCY_S * 1000))
    profile = RouteProfile(concurrency=CONCURRENCY, max_retries=0)
    print(
        f"{REQUESTS} requests, {LATENCY_S * 1000:.0f} ms latency, concurrency {CONCURRENCY}: "
        f"ideal {ideal:.3f} s  (cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f})"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        report("simulator in-process", ideal, *timed_run(profile, scenario, folder, "embedded"))
        scenario_file = folder / "scenario.json"
        scenario_file.write_text(json.dumps(scenario.model_dump(mode="json")))
        proc, base_url = external_simulator(scenario_file)
        try:
            external = profile.model_copy(update={"base_url": base_url})
            report("simulator own process", ideal, *timed_run(external, None, folder, "external"))
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
