"""Run a plan: serve its route, read its keys into a ring, schedule its work, write its log.

`run_plan` is the one entry point for the CLI (`rerunlens run`), `rerun` and the dashboard's jobs;
each builds a `RunPlan` (analyzer.runner.plan) first.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.analysis import analyze
from analyzer.errors import RerunLensError, RouteError
from analyzer.log.loader import save_log
from analyzer.log.model import FORMAT_V2, Route, RunLog, Summary
from analyzer.routes.profile import RouteProfile
from analyzer.runner.client import make_client
from analyzer.runner.embedded import Served, key_ring, serving
from analyzer.runner.executors import Executor, load_executor
from analyzer.runner.journal import JournalWriter, journal_path
from analyzer.runner.plan import RunControls, RunPlan
from analyzer.runner.progress import Progress
from analyzer.runner.results import Stamp, error_summary
from analyzer.runner.schedule import Bound, Scheduler
from analyzer.runner.transport import KeyRing
from analyzer.safety.scrub import one_line, scrub
from analyzer.safety.shell_words import command_words, shell_line


@dataclass
class RunOutcome:
    """How a run ended."""

    run_id: str
    """The run's id (also in the log and journal)."""
    path: Path | None
    """The final log; None when the run was cancelled before finishing."""
    journal: Path
    """The journal (removed once the final log is written)."""
    log: RunLog | None
    """The final log, when written."""
    cancelled: bool
    """True when cancel was set (or Ctrl-C pressed) before every result was done."""
    progress: Progress
    """Figures at the end."""
    notice: str | None = None
    """The simulator notice, when the embedded simulator served."""
    resume_hint: str | None = None
    """How to finish a cancelled run."""


def run_plan(plan: RunPlan, controls: RunControls | None = None) -> RunOutcome:
    """Run a plan: every (task, round) it has not finished, then write its format-2 log atomically.

    Raises:
        RerunLensError: an executor cannot load, a resumed run's key changed, a failure after
            results were journalled (they are kept, and the message says how to resume).
        KeyboardInterrupt: after Ctrl-C, once the journal is safe and the resume hint is printed.
    """
    controls = controls or RunControls()
    jpath = journal_path(plan.out)
    fn, spec = _executor(plan.executor)
    sim = plan.simulation
    with serving(plan.profile, scenario=sim.scenario, preferred_port=sim.port) as served:
        if served.notice:
            controls.say(served.notice)
        ring = key_ring(plan.keys, served)
        if plan.journal is not None:
            _same_keys(plan.journal.header.get("route"), ring, plan, jpath)
        header = None if plan.resuming else _journal_header(plan, served, ring, spec)
        writer = JournalWriter(jpath, header)
        client, _transport = make_client(plan.profile, served.base_url, ring)
        stamp = Stamp(plan.profile, served.shown_url, ring.fingerprints[0], tuple(ring.secrets()), spec)
        scheduler = Scheduler(plan, Bound(fn, client, stamp), writer, controls)
        try:
            scheduler.run()
        except KeyboardInterrupt:
            controls.cancel.set()
            writer.close()
            hint = _resume_hint(plan.out, controls.resume_command)
            done, total = scheduler.done_count, scheduler.total
            controls.say(f"Interrupted: {done} of {total} results are saved in {jpath}. {hint}")
            raise
        except RerunLensError:
            raise
        except Exception as exc:  # a bug in the runner: one line, the journal kept for a resume
            raise _kept(exc, "the run stopped", scheduler.progress(), plan, controls, ring) from None
        finally:
            with contextlib.suppress(OSError):  # a failing close (a full disk) must not hide why it stopped
                writer.close()
    return _finish(plan, scheduler, served, ring, controls)


def _executor(executor: str | Executor | None) -> tuple[Executor, str]:
    if callable(executor):
        return executor, getattr(executor, "__name__", "custom")
    return load_executor(executor)


def _journal_header(plan: RunPlan, served: Served, ring: KeyRing, spec: str) -> dict[str, Any]:
    """The journal's first line: everything a resume needs to rebuild the plan (never a key)."""
    prov = plan.provenance
    return {
        "run_id": prov.run_id,
        "created_at": prov.created_at.isoformat(),
        "label": prov.label,
        "parent_run_id": prov.parent_run_id,
        "rounds": plan.rounds,
        **({"task_rounds": dict(plan.task_rounds)} if plan.task_rounds else {}),
        "executor": spec if isinstance(plan.executor, str) or plan.executor is None else None,
        "profile": plan.profile.public_dump(),
        "route": _log_route(plan.profile, served, ring).model_dump(mode="json", exclude_none=True),
        "tasks": [t.model_dump(mode="json", exclude_none=True) for t in plan.tasks],
        "simulator_port": served.simulator.port if served.simulator else None,
        "extra": dict(prov.extra) if prov.extra is not None else None,
    }


def _finish(
    plan: RunPlan, scheduler: Scheduler, served: Served, ring: KeyRing, controls: RunControls
) -> RunOutcome:
    """Write the final log (or report a cancelled run) and remove the journal."""
    jpath = journal_path(plan.out)
    final = scheduler.progress()
    prov = plan.provenance
    if controls.cancel.is_set() and final.done < final.total:
        hint = _resume_hint(plan.out, controls.resume_command)
        controls.say(f"Cancelled: {final.done} of {final.total} results are saved in {jpath}. {hint}")
        return RunOutcome(prov.run_id, None, jpath, None, True, final, served.notice, hint)
    try:
        log = RunLog(
            format=FORMAT_V2,
            run_id=prov.run_id,
            created_at=prov.created_at,
            **({"parent_run_id": prov.parent_run_id} if prov.parent_run_id else {}),
            **({"label": prov.label} if prov.label else {}),
            route=_log_route(plan.profile, served, ring),
            tasks=list(plan.tasks),
            runs=scheduler.rounds_of_results(),
            **(dict(prov.extra) if prov.extra else {}),
            **_scenario_record(served),
        )
        log.summary = _summary(log, plan.profile, served)
        save_log(log, plan.out)
    except Exception as exc:  # the results are safe in the journal: say so in one line, keep it
        raise _kept(exc, "could not write the final log", final, plan, controls, ring) from None
    jpath.unlink(missing_ok=True)
    errors = error_summary(scheduler.results.values())
    controls.say(
        f"Wrote {plan.out}: {len(plan.tasks)} tasks x {_rounds_text(plan)}, {final.tokens:,} tokens, "
        f"{final.retries} retries" + (f"; {errors}" if errors else "")
    )
    return RunOutcome(prov.run_id, plan.out, jpath, log, False, final, served.notice)


def _rounds_text(plan: RunPlan) -> str:
    """`5 rounds`, or `2 to 18 rounds (the planner's per task)`."""
    fewest = min(plan.rounds_of(str(t.task_id)) for t in plan.tasks)
    if fewest == plan.rounds:
        return f"{plan.rounds} rounds"
    return f"{fewest} to {plan.rounds} rounds (the planner's per task)"


def _kept(
    exc: BaseException,
    what: str,
    progress: Progress,
    plan: RunPlan,
    controls: RunControls,
    ring: KeyRing,
) -> RerunLensError:
    """A one-line error for a failure after results were journalled: they are kept, and how to resume."""
    reason = one_line(scrub(f"{type(exc).__name__}: {exc}", ring.secrets()), 200)
    return RerunLensError(
        f"{what} ({reason}); the {progress.done} finished results are kept in {journal_path(plan.out)}. "
        f"{_resume_hint(plan.out, controls.resume_command)}"
    )


def _same_keys(recorded: Any, ring: KeyRing, plan: RunPlan, jpath: Path) -> None:
    """A resumed run must send the key(s) it started with (compared by fingerprint), or its log mixes two."""
    recorded = recorded if isinstance(recorded, dict) else {}
    before = recorded.get("key_fingerprints") or (
        [recorded["key_fingerprint"]] if recorded.get("key_fingerprint") else []
    )
    now = [fp for fp in ring.fingerprints if fp]
    if before and now != list(before):
        raise RouteError(
            f"--resume: the journal {jpath.name} was started with the key {', '.join(before)} and "
            f"{plan.profile.key_env} now holds {', '.join(now) or 'no key'}; resume with the same key"
        )


def _resume_hint(out: Path, command: str | None) -> str:
    if command:
        return f"Resume with: {command}"
    again = shell_line(command_words(["rerunlens", "run"], [("--out", out), ("--resume", True)]))
    return f"Resume with: {again} (same tasks and route flags)"


def _log_route(profile: RouteProfile, served: Served, keys: KeyRing) -> Route:
    fps = [fp for fp in keys.fingerprints if fp]
    route = profile.to_route(base_url=served.shown_url, fingerprints=fps)
    route.simulator = served.simulator is not None
    return route


def _scenario_record(served: Served) -> dict[str, Any]:
    """`simulator_scenario` for a log the embedded simulator served, so a re-run can replay it."""
    if served.simulator is None:
        return {}
    return {"simulator_scenario": served.simulator.scenario.model_dump(mode="json")}


def _summary(log: RunLog, profile: RouteProfile, served: Served) -> Summary:
    """The format-1 summary block, computed by the metrics' own analyze() so it never disagrees."""
    head = analyze(log).headline
    total = head.tokens.total or 0
    return Summary(
        model=profile.model,
        base_url=served.shown_url,
        repeat=len(log.runs),
        task_count=head.tasks,
        consistency_gap_pp=round(head.answer_gap_pp, 2) if head.answer_gap_pp is not None else None,
        total_tokens=int(total),
        avg_tokens_per_task=round(total / head.tasks, 2) if head.tasks else 0.0,
    )
