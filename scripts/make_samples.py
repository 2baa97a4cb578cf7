"""Regenerate the sample task set and the four sample logs (A-D), made by the runner against the simulator.

    python scripts/make_samples.py

Writes, under sample_runs/:

- tasks.json                     30 app-automation tasks (shopping, calendar, email, files, payments)
- simulator_scenario.json        the scripted model the simulator plays for these tasks
- A_baseline.altk_runs.json      two keys alternating, SDK default retries (2), concurrency 4, no seed
- B_one_key.altk_runs.json       one key, max_retries 1, concurrency 4, no seed
- C_pinned.altk_runs.json        fully pinned: one key, one base URL, concurrency 1, max_retries 1, seed 42
- D_key_rotation.altk_runs.json  rotation over three keys, SDK default retries, concurrency 4, no seed

Each log has 10 rounds: enough for answers that follow one of two keys to pass the route test after
the false discovery rate (at 5 rounds split 3/2 the exact test's smallest p-value is 1/C(5,2) = 0.1,
so every such task read `inconclusive` and the samples could not show a route finding).

Every answer, attempt and outcome is deterministic (the simulator's draws hang on its seed and each
request's position in the run); only timestamps and latencies differ between regenerations. The keys
are simulator keys, not secrets; the logs carry only their fingerprints.

The scripted model lives in analyzer/simulator/app_tasks.py (the embedded simulator plays it by
default, so re-running these logs offline gives gradable answers). Three backends perturb each task's
answer distribution differently; each key sticks to one backend, the load balancer sometimes spills
and retries often land elsewhere; the sample logs add mild 429s and 5xx.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analyzer.routes.profile import RouteProfile  # noqa: E402
from analyzer.runner.plan import Provenance, Simulation, new_plan  # noqa: E402
from analyzer.runner.run import run_plan  # noqa: E402
from analyzer.safety.keys import read_keys  # noqa: E402
from analyzer.simulator.app_tasks import SAMPLE_KEYS, app_scenario, app_task_specs  # noqa: E402

OUT = ROOT / "sample_runs"
ROUNDS = 10
"""Rounds per sample log (see above)."""
PORT = 8765
KEYS = SAMPLE_KEYS

LOGS: list[tuple[str, str, dict[str, Any], list[str]]] = [
    (
        "A_baseline",
        "A: baseline (two keys alternating, SDK default retries, concurrency 4)",
        {"seed": None, "max_retries": 2, "concurrency": 4},
        KEYS[:2],
    ),
    ("B_one_key", "B: one key, max_retries 1", {"seed": None, "max_retries": 1, "concurrency": 4}, KEYS[:1]),
    (
        "C_pinned",
        "C: pinned route (one key, one base URL, concurrency 1, max_retries 1, seed 42)",
        {"seed": 42, "max_retries": 1, "concurrency": 1},
        KEYS[:1],
    ),
    (
        "D_key_rotation",
        "D: rotation over three keys",
        {"seed": None, "max_retries": 2, "concurrency": 4},
        KEYS,
    ),
]


def main() -> None:
    OUT.mkdir(exist_ok=True)
    task_list = app_task_specs()
    (OUT / "tasks.json").write_text(
        json.dumps([t.model_dump(mode="json", exclude_none=True) for t in task_list], indent=2) + "\n"
    )
    sc = app_scenario(with_faults=True)
    (OUT / "simulator_scenario.json").write_text(sc.model_dump_json(indent=2) + "\n")
    for name, label, settings, keys in LOGS:
        out = OUT / f"{name}.altk_runs.json"
        out.unlink(missing_ok=True)
        profile = RouteProfile(model="gpt-4o-mini", temperature=0.0, rounds=ROUNDS, **settings)
        plan = new_plan(
            task_list,
            profile,
            out,
            keys=read_keys(profile.key_envs(), rotation=keys),
            provenance=Provenance(run_id=f"sample-{name}", label=label),
            simulation=Simulation(sc, PORT),
        )
        outcome = run_plan(plan)
        p = outcome.progress
        print(
            f"{out.relative_to(ROOT)}: {p.done} results, {p.tokens:,} tokens, {p.retries} retries, "
            f"{p.errors} errors"
        )


if __name__ == "__main__":
    main()
