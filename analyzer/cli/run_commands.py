"""Commands that make requests: run, rerun, check, simulate. Each builds a plan and hands it over."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path

import analyzer.numbers as numbers
from analyzer.child_process import run_forwarding
from analyzer.cli.consent import terminal_question
from analyzer.cli.history_on_write import index_logs
from analyzer.cli.proxy_commands import rerun_through_harness
from analyzer.cli.route_args import (
    flags_again,
    profile_from_args,
    resume_profile,
    route_overrides,
    scenario_from_args,
)
from analyzer.cli.semantic_args import judge_consent_first, semantic_options
from analyzer.errors import RerunLensError, TaskFileError
from analyzer.importers import load_any
from analyzer.jobs.exposure import ALLOW_REMOTE_ENV, check_port, dashboard_command
from analyzer.log.taskfile import load_tasks
from analyzer.proxy.harness_rerun import harness_of
from analyzer.runner.parent_route import parent_route_plan, parent_route_profile
from analyzer.runner.pinned_rerun import (
    RerunReport,
    RerunRequest,
    default_rerun_path,
    planned_rerun,
    rerun_plan,
    resume_rerun_plan,
)
from analyzer.runner.pinned_rerun import rerun as rerun_request
from analyzer.runner.plan import (
    Provenance,
    ResumeRequest,
    RunControls,
    RunPlan,
    Simulation,
    new_plan,
    plan_from_journal,
    recorded_profile,
    with_label,
)
from analyzer.runner.preflight import check_route
from analyzer.runner.progress import Progress, TerminalProgress
from analyzer.runner.rerun_route import Consent, confirm_log_route, parent_provider, parent_settings
from analyzer.runner.resample import ResampleRequest, default_resample_path, pinned_profile
from analyzer.runner.resample import resample as resample_steps
from analyzer.runner.run import run_plan
from analyzer.safety.keys import read_keys
from analyzer.safety.shell_words import command_words, shell_line
from analyzer.safety.terminal_text import json_text, visible, visible_lines
from analyzer.simulator import Scenario, Simulator
from analyzer.verdicts.default_rerun import DEFAULT_SELECTION, default_rerun


def run(args: argparse.Namespace) -> int:
    """`rerunlens run`: a new run from a task file, or `--resume` of an interrupted one."""
    if not args.tasks and not args.resume:
        raise TaskFileError("run: --tasks TASKS.json is required (unless --resume)")
    tasks = load_tasks(args.tasks) if args.tasks else None
    flags = [("--tasks", args.tasks), ("--out", args.out), ("--repeat", args.rounds)]
    flags += [("--executor", args.executor), *flags_again(args), ("--resume", True)]
    again = command_words(["rerunlens", "run"], flags)
    if args.resume:
        ask = ResumeRequest(
            profile=resume_profile(args, recorded_profile(args.out)),
            tasks=tasks,
            rounds=args.rounds,
            executor=args.executor,
            scenario=scenario_from_args(args),
        )
        plan = with_label(plan_from_journal(args.out, ask), args.label)
    else:
        assert tasks is not None
        plan = new_plan(
            tasks,
            profile_from_args(args),
            args.out,
            rounds=args.rounds,
            provenance=Provenance(label=args.label),
            executor=args.executor,
            simulation=Simulation(scenario_from_args(args)),
        )
    outcome = run_plan(plan, _controls(args, again))
    if outcome.cancelled:
        return 130
    index_logs(args, [outcome.path])
    print(f"{outcome.path}  run_id {outcome.run_id}")
    return _exit_code(outcome.progress)


def rerun(args: argparse.Namespace) -> int:
    """`rerunlens rerun`: the chosen tasks of a log on a pinned route, then before/after."""
    judge_consent_first(args)
    parent = load_any(args.log).log
    wanted: list[str] = args.only or [DEFAULT_SELECTION]
    only: str | list[str] = wanted[0] if wanted in (["flagged"], ["inconsistent"]) else wanted
    request = RerunRequest(
        parent, only, args.log, args.tasks, args.key, args.label, args.simulator, semantic_options(args)
    )
    request = replace(request, with_parent_route=bool(args.with_parent_route))
    if args.dry_run:
        return _dry_run(request, args.rounds, bool(args.json), getattr(args, "through", "prompt"))
    out = Path(args.out) if args.out else free_path(default_rerun_path(args.log))
    through = rerun_through_harness(args, parent, only, out)
    if through is not None:
        index_logs(args, [out])
        return through
    flags = [("--only", wanted), ("--out", out), ("--repeat", args.rounds), ("--tasks", args.tasks)]
    flags += [*flags_again(args), ("--resume", True)]
    again = command_words(["rerunlens", "rerun"], flags, [args.log])
    scenario = scenario_from_args(args)
    if args.resume:
        given = resume_profile(args, recorded_profile(out))
        ask = ResumeRequest(profile=given, rounds=args.rounds, executor=args.executor, scenario=scenario)
        plan = resume_rerun_plan(request, out, ask)
    else:
        base = {**parent_provider(parent).profile_base(), **parent_settings(parent)}
        profile = profile_from_args(args, base=base)
        confirm_log_route(profile, profile_from_args(args), log_consent(args))
        plan = rerun_plan(
            request, profile, out, rounds=args.rounds, executor=args.executor, simulation=Simulation(scenario)
        )
    beside = _beside(args, request, plan) if args.with_parent_route else None
    _confirm_cost(request, plan, args.rounds, args.max_requests, beside)
    report = rerun_request(request, plan, _controls(args, again), beside)
    if report.outcome.cancelled:
        return 130
    index_logs(args, [report.outcome.path, report.beside_path])
    _print_report(report, bool(args.json))
    return _exit_code(report.outcome.progress)


def _print_report(report: RerunReport, as_json: bool) -> None:
    """The before/after and the verdict on stdout, as JSON or for a terminal, and where the logs are."""
    if as_json:
        print(json_text(report.to_json()))
        return
    print(visible_lines(report.lines()))
    print(f"\n{report.outcome.path}  run_id {report.outcome.run_id}  parent {report.parent_run_id}")
    if report.beside_path is not None:
        print(f"{report.beside_path}  the rounds on the parent's own route")


def _beside(args: argparse.Namespace, request: RerunRequest, plan: RunPlan) -> RunPlan | None:
    """`--with-parent-route`: the planner's proposed rounds on the parent's recorded route, under the
    key rules of any route a log names; refused on --resume (the pinned journal alone is resumed)."""
    if args.resume:
        raise RerunLensError("--with-parent-route: not with --resume (it resumes the pinned re-run only)")
    own = profile_from_args(args)
    profile = parent_route_profile(request.parent, plan.profile, own)
    return parent_route_plan(request.parent_analysis, plan, profile, own, log_consent(args))


def _dry_run(request: RerunRequest, rounds: int | None, as_json: bool, through: str) -> int:
    """`rerun --dry-run`: the re-run's plan (tasks, rounds each, what cannot be decided, the cost) on
    stdout, the same the Re-run page shows beside its button; nothing is sent. For a log a harness
    made, a line on stderr says the plan is the prompt-only re-run's."""
    made_by = harness_of(request.parent)
    if made_by is not None and through != "prompt":
        print(
            f"rerunlens: the log was made by {made_by[0]}: this plan is the re-run with --through prompt; "
            "one through the harness runs its own rounds",
            file=sys.stderr,
        )
    planned = planned_rerun(request, rounds)
    print(json_text(planned.to_json()) if as_json else visible_lines(planned.lines()))
    return 0


def _confirm_cost(
    request: RerunRequest, plan: RunPlan, given: int | None, limit: int | None, beside: RunPlan | None
) -> None:
    """The plan and the requests and expected tokens on stderr before anything is sent
    (`default_rerun`'s sentences, as `--dry-run` and the Re-run page show them, `given` the rounds
    asked for); past `limit`, a y/N question on a terminal, else a one-line refusal."""
    planned = planned_rerun(replace(request, with_parent_route=beside is not None), given)
    if planned.rounds() != _per_task(plan):  # a resumed journal's own tasks and rounds
        ids = [str(t.task_id) for t in plan.tasks]
        rounds = plan.rounds if plan.task_rounds is None else _per_task(plan)
        planned = default_rerun(request.parent_analysis, ids, rounds, beside is not None)
    for sentence in planned.sentences():
        print(visible(sentence), file=sys.stderr)
    if limit is None or planned.requests <= limit:
        return
    ask = terminal_question("Send them?")
    past = f"{planned.requests:,} requests is past --max-requests {limit:,}"
    if ask is None:
        raise RerunLensError(f"{past}; no terminal to ask: give --repeat fewer rounds or a higher limit")
    if not ask(past):
        raise RerunLensError(f"{past}: not sent")


def _per_task(plan: RunPlan) -> dict[str, int]:
    return {str(t.task_id): plan.rounds_of(str(t.task_id)) for t in plan.tasks}


def check(args: argparse.Namespace) -> int:
    """`rerunlens check`: one minimal completion through the route, and a diagnosis."""
    diagnosis = check_route(profile_from_args(args), scenario=scenario_from_args(args))
    if args.json:
        print(json_text(diagnosis.to_dict()))
    else:
        print("\n".join(diagnosis.lines()))
    return 0 if diagnosis.ok else 1


def simulate(args: argparse.Namespace) -> int:
    """`rerunlens simulate`: the simulator on loopback until Ctrl-C."""
    if not 0 <= args.port <= 65535:
        raise RerunLensError(f"--port {args.port}: a port is 0 to 65535 (0 picks a free one)")
    scenario = scenario_from_args(args) or Scenario()
    sim = Simulator(scenario, port=args.port)
    try:
        sim.start()
    except OSError as err:
        raise RerunLensError(f"port {args.port}: cannot listen on 127.0.0.1 ({err.strerror})") from None
    keys = (
        "any non-empty key"
        if scenario.accept_any_key
        else f"{numbers.counted(len(scenario.keys), 'listed key')}"
    )
    print(f"Simulator listening on {sim.base_url} (accepts {keys}); Ctrl-C stops it.", flush=True)
    print(f"  export OPENAI_BASE_URL={sim.base_url}", flush=True)
    print(f"  export OPENAI_API_KEY={_simulator_key_hint(scenario, args.scenario)}", flush=True)
    print("  then: rerunlens check", flush=True)
    _stop_on_signals(sim.state.stop)
    try:
        sim.state.stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()
    return 0


def _stop_on_signals(stop: threading.Event) -> None:
    """Ctrl-C and SIGTERM stop the server, even when the shell started it with SIGINT ignored
    (a background job, `nohup`): an inherited SIG_IGN would otherwise keep it running for good."""

    def handler(signum: int, frame: object) -> None:
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, handler)


SIMULATOR_ANY_KEY = "sim-local-key"
"""A stand-in key for a simulator that accepts any non-empty key (it is never a real key)."""


def _simulator_key_hint(scenario: Scenario, scenario_file: str | None) -> str:
    """What to export as the key: a stand-in, or where the accepted keys are listed (never the keys)."""
    if scenario.accept_any_key:
        return f"{SIMULATOR_ANY_KEY}   # any non-empty key is accepted"
    return f"<one of the {len(scenario.keys)} keys listed in {scenario_file}>"


def dashboard(args: argparse.Namespace) -> int:
    """`rerunlens dashboard`: streamlit with the safe settings as flags (they beat any config file)."""
    command = dashboard_command(args.runs_dir, args.port, args.address)
    if args.print_command:
        print(shell_line(command))
        return 0
    check_port(args.port, args.address)
    env = {**os.environ, ALLOW_REMOTE_ENV: "1"} if args.address else None  # beyond loopback on purpose
    return run_forwarding(command, env=env)


def resample(args: argparse.Namespace) -> int:
    """`rerunlens resample`: one task's steps sampled again on a pinned route, scored and saved."""
    parent = load_any(args.log).log
    profile = pinned_profile(parent, overrides=route_overrides(args))
    confirm_log_route(profile, profile_from_args(args), log_consent(args))
    out = Path(args.out) if args.out else default_resample_path(args.log, args.task)
    request = ResampleRequest(
        parent, args.task, out, args.samples, args.steps, args.round, args.log, scenario_from_args(args)
    )
    report = resample_steps(request, profile, read_keys(profile.key_envs()), progress=_sample_progress)
    print(file=sys.stderr)
    if not report.cancelled:
        index_logs(args, [report.out])
    if args.json:
        print(json_text(report.to_json()))
    else:
        for step in report.steps:
            mark = "  flagged" if step.step in report.flagged else ""
            score = step.score
            print(
                f"step {step.step:>3}  uncertainty {_two(score.uncertainty)} "
                f"[{_two(score.low)}, {_two(score.high)}]  entropy {score.entropy:.2f}{mark}"
            )
        print(f"\n{report.out}  flagged steps: {', '.join(map(str, report.flagged)) or 'none'}")
    return 130 if report.cancelled else 0


def log_consent(args: argparse.Namespace) -> Consent:
    """`--yes`, else a question on an interactive terminal, else no way to confirm (refused)."""
    return Consent(yes=bool(getattr(args, "yes", False)), ask=terminal_question("Send it there?"))


def _two(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _sample_progress(done: int, planned: int) -> None:
    print(f"\rsamples {done}/{planned}", end="", file=sys.stderr, flush=True)


def free_path(path: Path) -> Path:
    """`x.rerun.altk_runs.json`, else `x.rerun-2.altk_runs.json`, ... whichever does not exist yet."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(path.name.replace(".rerun.", f".rerun-{n}.", 1))
    return candidate


def _controls(args: argparse.Namespace, again: list[str]) -> RunControls:
    bar = None if args.quiet else TerminalProgress()
    return RunControls(progress=bar, echo=_echo, resume_command=shell_line(again))


def _echo(msg: str) -> None:
    print(msg, file=sys.stderr)


def _exit_code(progress: Progress) -> int:
    """1 when every result errored (the log is written, but nothing was measured), else 0."""
    return 1 if progress.total and progress.errors >= progress.total else 0
