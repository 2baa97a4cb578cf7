"""The route monitor: the probe set run on the pinned route every interval, each probe a run appended to
the history, an alert when the history's gate trips for the newest probe.

Its state (probes done, when the next is due) is a file beside the probes, written atomically after
each probe, so a killed monitor resumes where it stopped: a probe killed half-way is finished from its
journal, a finished probe is never run twice. Alerts go to stderr, to the exit code and, when the user
names one on the command line, to a webhook (never a URL a log or a file names).
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import analyzer.numbers as numbers
from analyzer.atomic import write_text_atomic
from analyzer.errors import RerunLensError
from analyzer.history.query import HistoryRequest, load_history
from analyzer.history.render import finding
from analyzer.importers import load_any
from analyzer.log.model import RunLog, TaskSpec
from analyzer.log.task_set import task_set
from analyzer.routes.profile import RouteProfile
from analyzer.runner.journal import journal_path
from analyzer.runner.plan import (
    Provenance,
    ResumeRequest,
    RunControls,
    Simulation,
    new_plan,
    plan_from_journal,
)
from analyzer.runner.run import run_plan
from analyzer.safety.bounded_read import read_file
from analyzer.safety.url_secrets import redact_url
from analyzer.simulator import Scenario

STATE_FILE = "monitor.state"
STATE_BYTES = 64 * 1024
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_interval(text: str) -> float:
    """`90s`, `30m`, `6h`, `1d` (a bare number is seconds) as seconds; at least one second."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", text)
    if not found or float(found.group(1)) * _UNITS[found.group(2) or "s"] < 1:
        raise RerunLensError(
            f"--every {text}: expected an interval of at least 1s such as 90s, 30m, 6h or 1d"
        )
    return float(found.group(1)) * _UNITS[found.group(2) or "s"]


@dataclass(frozen=True)
class MonitorPlan:
    """What the monitor runs, where, and how often."""

    tasks: Sequence[TaskSpec]
    profile: RouteProfile
    every_s: float
    samples: int
    folder: Path
    db_url: str | None = None
    against: Path | None = None
    webhook: str | None = None
    max_probes: int | None = None
    scenario: Scenario | None = None
    usd_per_million_tokens: float | None = None


def cost_per_day(plan: MonitorPlan) -> str:
    """The calls and tokens a day at most (the route's max_tokens per answer), with a cost when priced."""
    probes = 86400 / plan.every_s
    calls = probes * len(plan.tasks) * plan.samples
    answer = plan.profile.max_tokens or 1024
    per_call = [len(t.prompt) / 4 + (t.max_tokens or answer) for t in plan.tasks]
    tokens = probes * plan.samples * sum(per_call)
    cost = (
        f"at most ${tokens * plan.usd_per_million_tokens / 1e6:,.2f} a day"
        if plan.usd_per_million_tokens is not None
        else "cost not known (give --usd-per-million-tokens)"
    )
    return (
        f"monitor: {numbers.num(probes, 1)} probes a day x {numbers.counted(len(plan.tasks), 'task')} x "
        f"{plan.samples} samples = {numbers.count(calls)} calls, "
        f"at most {numbers.count(tokens)} tokens a day; {cost}"
    )


@dataclass
class State:
    probes: int
    next_at: float
    task_set: str

    @classmethod
    def read(cls, folder: Path, key: str) -> State:
        path = folder / STATE_FILE
        if not path.is_file():
            return cls(0, 0.0, key)
        try:
            data = json.loads(read_file(path, STATE_BYTES, "monitor state"))
            state = cls(int(data["probes"]), float(data["next_at"]), str(data["task_set"]))
        except (ValueError, KeyError, TypeError):
            raise RerunLensError(
                f"{path}: the monitor's state cannot be read; move it away to start over"
            ) from None
        if state.task_set != key:
            raise RerunLensError(
                f"{path}: this folder monitors another task set ({state.task_set}); use another"
            )
        return state

    def write(self, folder: Path) -> None:
        text = json.dumps({"probes": self.probes, "next_at": self.next_at, "task_set": self.task_set})
        write_text_atomic(folder / STATE_FILE, text + "\n")


def probe_path(folder: Path, number: int) -> Path:
    return folder / f"probe-{number:04d}.altk_runs.json"


def run_probe(plan: MonitorPlan, number: int, controls: RunControls) -> Path:
    """Probe `number`: finished from its journal when a killed monitor left one, else run anew."""
    out = probe_path(plan.folder, number)
    if out.is_file():
        return out
    simulation = Simulation(plan.scenario)
    if journal_path(out).is_file():
        ask = ResumeRequest(
            profile=plan.profile, tasks=plan.tasks, rounds=plan.samples, scenario=plan.scenario
        )
        run = plan_from_journal(out, ask)
    else:
        provenance = Provenance(run_id=f"probe-{number:04d}", label=f"monitor probe {number}")
        run = new_plan(
            plan.tasks, plan.profile, out, rounds=plan.samples, provenance=provenance, simulation=simulation
        )
    outcome = run_plan(run, controls)
    if outcome.cancelled or outcome.path is None:
        raise KeyboardInterrupt
    return outcome.path


def check_probe(plan: MonitorPlan, key: str) -> dict[str, Any]:
    """The history after the newest probe: its gate, and the finding sentence."""
    sources = [str(plan.folder)] + ([str(plan.against)] if plan.against else [])
    result = load_history(HistoryRequest(sources, plan.db_url, key))
    return {**result.history.gate, "finding": finding(result.history)}


def check_webhook(url: str) -> None:
    """Only an http(s) URL, refused before the first probe rather than at the first alert."""
    if not url.lower().startswith(("http://", "https://")):
        raise RerunLensError(f"--webhook {redact_url(url)}: only http:// or https:// URLs")


def send_webhook(url: str, alert: dict[str, Any], say: Callable[[str], None]) -> None:
    """POST the alert as JSON; a failure is one line on stderr, never fatal, the URL shown redacted."""
    check_webhook(url)
    request = urllib.request.Request(
        url, data=json.dumps(alert).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 (scheme checked above)
            response.read(1024)
    except OSError as exc:
        say(f"rerunlens monitor: webhook {redact_url(url)} failed ({type(exc).__name__})")


def reference_key(plan: MonitorPlan) -> str:
    """The probe set's task-set key; a reference log must have run the same tasks."""
    key = task_set(RunLog(format="2", tasks=list(plan.tasks), runs=[])).key
    if plan.against is not None and task_set(load_any(plan.against).log).key != key:
        raise RerunLensError(
            f"{plan.against}: the reference log ran other tasks (or prompts) than the task file"
        )
    return key


def monitor(plan: MonitorPlan, controls: RunControls, sleep: Callable[[float], None] = time.sleep) -> int:
    """Probe until `max_probes` in all (forever without); 1 when any probe raised an alert, else 0."""
    if plan.webhook:
        check_webhook(plan.webhook)
    plan.folder.mkdir(parents=True, exist_ok=True)
    key = reference_key(plan)
    state = State.read(plan.folder, key)
    alerted = False
    while plan.max_probes is None or state.probes < plan.max_probes:
        wait = state.next_at - time.time()
        if wait > 0:
            sleep(wait)
        number = state.probes + 1
        path = run_probe(plan, number, controls)
        state = replace(state, probes=number, next_at=time.time() + plan.every_s)
        state.write(plan.folder)
        gate = check_probe(plan, key)
        controls.say(f"rerunlens monitor: probe {number} written to {path}")
        if gate["tripped"] and gate["run_id"] == f"probe-{number:04d}":
            alerted = True
            line = (
                f"rerunlens monitor: ALERT at probe {number}: {'; '.join(gate['reasons'])}. {gate['finding']}"
            )
            controls.say(line)
            if plan.webhook:
                send_webhook(plan.webhook, {"text": line, **gate}, controls.say)
    return 1 if alerted else 0
