"""How often the verdicts are right, against the simulator's own ground truth.

    python scripts/bench_verdicts.py [--seeds 2026 7 11 ...] [--parent-rounds 5 8] [--cap 30]

For each simulator seed and parent round count: a parent run of the 30 sample tasks like sample A
(two keys alternating, no seed, SDK retries, the sample's mild 429s and 5xx), then one pinned re-run
of its inconsistent tasks (one key, the parent's other settings) of `--cap` rounds. Each verdict
reads the first K rounds of that re-run: K = 5, K = 10 and the default, each task's `rounds_needed`
(capped), which is what the dashboard offers.

Ground truth comes from the simulator itself (analyzer/simulator/app_tasks.py, engine.py): a task
whose three backends all favour the same answer can only split by its inherent noise (`flake`):
model-caused. A task whose backends favour different answers and whose inherent noise is small
(0.05 or less) is route-caused. Backends that differ and large noise (0.2 or more) is "both": counted
apart, not in precision and recall. Two scenarios: `sample` (the shipped samples' simulator) and
`model-noise` (the same with every backend's bias at 0, so backends agree and every split is the
model's, as with the issue's 70/30 tasks) and `route-only` (no inherent noise: every split is the
route's). The re-run pins the parent's route to its first key (same URL, model and parameters).
Printed per method: precision and recall of `route` and
`model`, the share of model-noise tasks wrongly called `route`, the share of route-caused tasks
called `route`. "old" is the earliest rule: consistent after the re-run = route. The K = 5, 10 and
default rows judge each task alone; "planner, BH" is what `rerunlens rerun` runs and judges: the
planner's rounds (`verdicts.planner.plan_rerun`) and Benjamini-Hochberg over the re-run's tested
tasks; "planner + proposal, BH" adds, for each task the planner says no pinned rounds decide, the
rounds it proposes on the parent's own route (its two keys) beside the pinned rounds, judged as
`rerun --with-parent-route` judges them (those rounds in the test, the pinned ones alone as pinned).
Targets with the planner: `route` recall at least 90 % at 5-round parents, model noise called
`route` at most 2 %.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analyzer.analysis import analyze  # noqa: E402
from analyzer.log.loader import load_path  # noqa: E402
from analyzer.log.model import RunLog, TaskSpec  # noqa: E402
from analyzer.metrics.attribution import Round, answered_rounds, portable_routes, task_attribution  # noqa: E402
from analyzer.metrics.intervals import answer_intervals, outcome_intervals  # noqa: E402
from analyzer.metrics.stats import ROUNDS_CAP, benjamini_hochberg, rounds_needed  # noqa: E402
from analyzer.routes.profile import RouteProfile  # noqa: E402
from analyzer.runner.parent_route import proposed_rounds  # noqa: E402
from analyzer.runner.plan import Provenance, Simulation, new_plan  # noqa: E402
from analyzer.runner.run import run_plan  # noqa: E402
from analyzer.safety.keys import read_keys  # noqa: E402
from analyzer.simulator.app_tasks import APP_TASKS, SAMPLE_KEYS, app_scenario, app_task_specs  # noqa: E402
from analyzer.simulator.engine import backend_logits, task_distribution  # noqa: E402
from analyzer.simulator.scenario import Scenario  # noqa: E402
from analyzer.verdicts.planner import plan_rerun  # noqa: E402
from analyzer.verdicts.rerun_verdict import rerun_evidence, rerun_verdict, settle  # noqa: E402
from scripts.bench_analyzer import make_log  # noqa: E402

SIMULATOR_PORT = 8793
"""A fixed port: the parent and its re-run then share a base URL, as two runs against one provider do."""
METHODS = (
    "log attribution",
    "re-run K=5",
    "re-run K=10",
    "re-run default K",
    "old, default K",
    "planner, BH",
    "planner + proposal, BH",
)


@dataclass
class Tally:
    """Calls per (method, truth): Counter of verdicts."""

    calls: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    rounds_used: list[int] = field(default_factory=list)
    requests: Counter[str] = field(default_factory=Counter)
    """Pinned requests: per task as planned (`planned`) and every task at the most (`uniform`)."""

    def add(self, method: str, truth: str, call: str) -> None:
        self.calls.setdefault((method, truth), Counter())[call] += 1


def truth_of(scenario: Scenario) -> dict[str, str]:
    """Task id -> `route`, `model` or `both`, from the simulator's own answer model.

    `model`: every backend favours the same answer, so only the task's inherent noise (`flake`) can
    split its answers. `route`: backends favour different answers and the inherent noise is small
    (0.05 or less). `both`: backends differ and the inherent noise is large (0.2 or more).
    """
    out = {}
    for task_id, _kind, prompt, _expected, _other in APP_TASKS:
        dist = task_distribution(prompt, scenario)
        favourite = set()
        for backend in scenario.backends:
            logits = backend_logits(dist, backend, scenario, prompt)
            favourite.add(max(range(len(logits)), key=logits.__getitem__))
        if len(favourite) == 1:
            out[task_id] = "model"
        else:
            out[task_id] = "route" if dist.flake <= 0.05 else "both"
    return out


def run(
    tasks: list[TaskSpec], profile: RouteProfile, keys: list[str], out: Path, scenario: Scenario, rounds: int
) -> RunLog:
    plan = new_plan(
        tasks,
        profile,
        out,
        keys=read_keys(profile.key_envs(), rotation=keys),
        rounds=rounds,
        provenance=Provenance(label=out.stem),
        simulation=Simulation(scenario, SIMULATOR_PORT),  # one base URL for parent and re-run, as in real use
    )
    run_plan(plan)
    return load_path(out).log


def scenario_of(name: str, seed: int) -> Scenario:
    """`sample`; `model-noise`: backends without bias, so only the tasks' own noise splits answers;
    `route-only`: no inherent noise, so only the backends (keys, spills, retries) split answers."""
    scenario = app_scenario(with_faults=True, seed=seed)
    if name == "model-noise":
        flat = [b.model_copy(update={"bias": 0.0}) for b in scenario.backends]
        scenario = scenario.model_copy(update={"backends": flat})
    if name == "route-only":
        clean = [rule.model_copy(update={"flake": 0.0}) for rule in scenario.answers]
        scenario = scenario.model_copy(update={"answers": clean})
    return scenario


def one_setting(name: str, seed: int, parent_rounds: int, cap: int, work: Path, tally: Tally) -> None:
    scenario = scenario_of(name, seed)
    truth = truth_of(scenario)
    specs = app_task_specs()
    base = dict(model="gpt-4o-mini", temperature=0.0, seed=None, concurrency=4)
    parent_log = run(
        specs,
        RouteProfile(max_retries=2, **base),
        SAMPLE_KEYS[:2],
        work / f"parent-{name}-{seed}-{parent_rounds}.json",
        scenario,
        parent_rounds,
    )
    parent = analyze(parent_log)
    ids = [a.task_id for a in parent.headline.attribution]
    for a in parent.headline.attribution:
        tally.add("log attribution", truth[a.task_id], a.cause)
    if not ids:
        return
    chosen = [s for s in specs if str(s.task_id) in ids]
    rerun_log = run(  # the parent's own route, pinned to its first key
        chosen,
        RouteProfile(max_retries=2, **base),
        SAMPLE_KEYS[:1],
        work / f"rerun-{name}-{seed}-{parent_rounds}.json",
        scenario,
        cap,
    )
    after = analyze(rerun_log)
    before_rounds = portable_routes(*answered_rounds(parent.results, parent.attempts, set(ids)))
    after_rounds = portable_routes(*answered_rounds(after.results, after.attempts, set(ids)))
    for task in ids:
        before = before_rounds.get(task, [])
        later = sorted(after_rounds.get(task, []), key=lambda r: r.round)
        default_k = rounds_needed([r.route for r in before], [r.answer for r in before], cap=cap) or cap
        for method, k in (("re-run K=5", 5), ("re-run K=10", 10), ("re-run default K", default_k)):
            tally.add(method, truth[task], rerun_verdict(before, _first(later, k)).verdict)
        tally.add("old, default K", truth[task], _old_verdict(_first(later, default_k)))
    rotation = run(  # the parent's own route again (its two keys), for the planner's proposals
        chosen,
        RouteProfile(max_retries=2, **base),
        SAMPLE_KEYS[:2],
        work / f"again-{name}-{seed}-{parent_rounds}.json",
        scenario,
        cap,
    )
    again = analyze(rotation)
    again_rounds = portable_routes(*answered_rounds(again.results, again.attempts, set(ids)))
    planned(tally, truth, ids, before_rounds, after_rounds, again_rounds)


def planned(
    tally: Tally,
    truth: dict[str, str],
    ids: list[str],
    before: dict[str, list[Round]],
    after: dict[str, list[Round]],
    again: dict[str, list[Round]],
) -> None:
    """The planner's re-run, judged as `before_after.task_verdicts` judges it (Benjamini-Hochberg over
    the re-run's tested tasks): its rounds for every task; and with its proposals, a task no pinned
    rounds decide also gets the proposed rounds on the parent's own route beside its pinned ones."""
    plan = plan_rerun(before, ids)
    tally.rounds_used.append(plan.rounds)
    # what `rerun` runs: each task its own planned pinned rounds (`RerunPlan.pinned_rounds`); with
    # `--with-parent-route`, the pinned rounds that go with each proposal and, beside them, the
    # proposal's rounds on the parent's own route, judged as `task_verdicts` judges them
    for method, proposals in (("planner, BH", False), ("planner + proposal, BH", True)):
        named = {**{t: plan.rounds for t in ids}, **plan.pinned_rounds(proposals)}
        if not proposals:
            tally.requests.update(planned=sum(named.values()), uniform=len(ids) * plan.rounds)
        pinned = {t: _first(sorted(after.get(t, []), key=lambda r: r.round), named[t]) for t in ids}
        more = proposed_rounds(plan) if proposals else {}
        beside = {t: _first(sorted(again.get(t, []), key=lambda r: r.round), n) for t, n in more.items()}
        _judged(tally, method, truth, ids, before, pinned, beside)


def _judged(
    tally: Tally,
    method: str,
    truth: dict[str, str],
    ids: list[str],
    before: dict[str, list[Round]],
    after: dict[str, list[Round]],
    beside: dict[str, list[Round]] | None = None,
) -> None:
    more = beside or {}
    evidence = [rerun_evidence(before.get(t, []), after.get(t, []), more.get(t, [])) for t in ids]
    tested = [i for i, e in enumerate(evidence) if e.test is not None]
    q = dict(zip(tested, benjamini_hochberg([evidence[i].test.p_value for i in tested]), strict=True))  # type: ignore[union-attr]
    for i, (task, e) in enumerate(zip(ids, evidence, strict=True)):
        tally.add(method, truth[task], settle(e, q.get(i)).verdict)


def _first(rounds: list[Round], k: int) -> list[Round]:
    return [r for r in rounds if r.round <= k]


def _old_verdict(rounds: list[Round]) -> str:
    if len(rounds) < 2:
        return "unmeasured"
    return "route" if len({r.answer for r in rounds}) == 1 else "model"


def report(tally: Tally) -> list[str]:
    lines = [
        "| method | route-caused tasks | model-noise tasks | both | `route` precision | `route` recall "
        "| `model` precision | `model` recall | model-noise called `route` |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for method in METHODS:
        route = tally.calls.get((method, "route"), Counter())
        model = tally.calls.get((method, "model"), Counter())
        mixed = tally.calls.get((method, "both"), Counter())
        n_route, n_model = sum(route.values()), sum(model.values())
        called_route = route["route"] + model["route"]
        called_model = route["model"] + model["model"]
        lines.append(
            f"| {method} | {n_route} | {n_model} | {sum(mixed.values())} "
            f"| {_share(route['route'], called_route)} | {_share(route['route'], n_route)} "
            f"| {_share(model['model'], called_model)} | {_share(model['model'], n_model)} "
            f"| {_share(model['route'], n_model)} |"
        )
    lines.append("")
    for method in METHODS:
        for truth in ("route", "model", "both"):
            calls = tally.calls.get((method, truth), Counter())
            shown = ", ".join(f"{k} {v}" for k, v in calls.most_common())
            lines.append(f"- {method}, {truth}-caused tasks: {shown or 'none'}")
    return lines


def _share(part: int, whole: int) -> str:
    return "—" if whole == 0 else f"{100.0 * part / whole:.0f} % ({part}/{whole})"


def overhead(tasks: int = 1000, rounds: int = 10, repeat: int = 9) -> None:
    """The intervals and the attribution against the whole analysis: each timed best of `repeat`,
    interleaved in one process (so a busy machine slows them alike)."""
    log = RunLog.model_validate(make_log(tasks, rounds))
    print(f"\n#### Analysis overhead, {tasks * rounds:,} results ({tasks} tasks x {rounds} rounds)\n")
    print("| answer key | inconsistent tasks | whole analysis | bootstrap intervals | attribution |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for key in ("exact", "fuzzy"):
        done = analyze(log, key)
        steps: dict[str, Callable[[], object]] = {
            "whole": partial(analyze, log, key),
            "boot": partial(_intervals, done),
            "attribution": partial(task_attribution, done.results, done.attempts, done.tasks),
        }
        times: dict[str, list[float]] = {name: [] for name in steps}
        for _ in range(repeat):
            for name, step in steps.items():
                began = time.perf_counter()
                step()
                times[name].append(time.perf_counter() - began)
        whole, boot, attr = (min(times[k]) for k in ("whole", "boot", "attribution"))
        rest = whole - boot - attr
        print(
            f"| {key} | {len(done.headline.attribution)} | {whole:.3f} s "
            f"| {boot * 1000:.0f} ms (+{100 * boot / rest:.1f} %) "
            f"| {attr * 1000:.0f} ms (+{100 * attr / rest:.1f} %) |"
        )


def _intervals(done: Any) -> None:
    answer_intervals(done.tasks)
    outcome_intervals(done.results, done.headline.outcome)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[2026, 7, 11, 23, 42, 101, 202, 303])
    parser.add_argument("--parent-rounds", type=int, nargs="+", default=[5, 8])
    parser.add_argument("--cap", type=int, default=ROUNDS_CAP)
    parser.add_argument("--scenarios", nargs="+", default=["sample", "model-noise", "route-only"])
    parser.add_argument("--overhead-only", action="store_true", help="only time the analysis overhead")
    args = parser.parse_args()
    started = time.perf_counter()
    overhead()
    if args.overhead_only:
        return
    for name in args.scenarios:
        for parent_rounds in args.parent_rounds:
            tally = Tally()
            with tempfile.TemporaryDirectory() as tmp:
                for seed in args.seeds:
                    one_setting(name, seed, parent_rounds, args.cap, Path(tmp), tally)
            print_tally(tally, f"Scenario `{name}`, parent of {parent_rounds} rounds", args)
    print(f"\n({time.perf_counter() - started:.0f} s)")


def print_tally(tally: Tally, title: str, args: argparse.Namespace) -> None:
    used = Counter(tally.rounds_used)
    print(f"\n#### {title}, seeds {', '.join(map(str, args.seeds))}\n")
    print("\n".join(report(tally)))
    print(f"\nThe planner's rounds per re-run (capped at {args.cap}): {dict(sorted(used.items()))}")
    done = tally.requests
    planned, uniform = done["planned"], done["uniform"]
    print(f"Pinned requests, each task its planned rounds: {planned:,} (all at the most: {uniform:,})")


if __name__ == "__main__":
    main()
