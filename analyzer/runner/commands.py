"""The runner's subcommands: `run`, `rerun`, `check`, `simulate`. The lead's CLI calls `register`."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from analyzer.cli import add_answer_key_option, add_command
from analyzer.route_profile import RouteProfile, build_profile
from analyzer.url_lint import redact_url

PROFILE_FLAGS: list[tuple[str, str, type, str]] = [
    (
        "--base-url",
        "base_url",
        str,
        "API root, e.g. https://api.openai.com/v1 (default: the built-in simulator)",
    ),
    ("--key-env", "key_env", str, "environment variable holding the key (default OPENAI_API_KEY)"),
    ("--model", "model", str, "model name (default gpt-4o-mini)"),
    ("--temperature", "temperature", float, "sampling temperature (default 0)"),
    ("--top-p", "top_p", float, "nucleus sampling (default 1)"),
    ("--seed", "seed", int, "seed sent with every request (default 42)"),
    ("--max-tokens", "max_tokens", int, "completion token cap (default 256; a task's own wins)"),
    ("--timeout", "timeout_s", float, "seconds per attempt (default 120)"),
    ("--max-retries", "max_retries", int, "SDK retries after the first attempt (default 1)"),
    ("--concurrency", "concurrency", int, "tasks in flight at once (default 1)"),
]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `run`, `rerun`, `check` and `simulate` to the `rerunlens` parser."""
    _add_run(subparsers)
    _add_rerun(subparsers)
    _add_check(subparsers)
    _add_simulate(subparsers)


def _add_profile_flags(p: argparse.ArgumentParser, repeat: bool = True) -> None:
    g = p.add_argument_group(
        "route", "defaults < ALTK_*/OPENAI_* environment variables < --profile file < these flags"
    )
    g.add_argument("--profile", metavar="FILE", help="route profile, TOML or JSON")
    for flag, dest, kind, text in PROFILE_FLAGS:
        g.add_argument(flag, dest=dest, type=kind, default=None, help=text)
    if repeat:
        g.add_argument("--repeat", dest="rounds", type=int, default=None, help="rounds per task (default 5)")
    g.add_argument(
        "--scenario", metavar="FILE", help="simulator scenario (when the built-in simulator serves)"
    )


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    fields = [dest for _, dest, _, _ in PROFILE_FLAGS] + ["rounds"]
    return {f: getattr(args, f, None) for f in fields}


def _profile(args: argparse.Namespace, base: dict[str, Any] | None = None) -> RouteProfile:
    return build_profile(file=args.profile, overrides=_overrides(args), base=base)


def _resume_profile(args: argparse.Namespace, out: str | Path) -> RouteProfile | None:
    """On --resume: the journal's route, with only what was given explicitly (flags, --profile) on top.

    Environment variables are not read (they may have changed since); `run_tasks` refuses a given
    setting that differs from the journal's. None when there is no journal (run_tasks says so).
    """
    from analyzer.runner.journal import journal_path, read_journal

    jpath = journal_path(out)
    if not jpath.exists():
        return None
    recorded = read_journal(jpath).header.get("profile")
    if not isinstance(recorded, dict):
        return None
    return build_profile(file=args.profile, overrides=_overrides(args), base=recorded, use_env=False)


def _scenario(args: argparse.Namespace) -> Any:
    if not getattr(args, "scenario", None):
        return None
    from analyzer.simulator import load_scenario

    return load_scenario(args.scenario)


def _echo(msg: str) -> None:
    print(msg, file=sys.stderr)


def _flags_again(args: argparse.Namespace) -> list[str]:
    """The route flags as given, to print a resume command."""
    out: list[str] = []
    if args.profile:
        out += ["--profile", args.profile]
    for flag, dest, _, _ in PROFILE_FLAGS:
        value = getattr(args, dest, None)
        if value is not None:
            out += [flag, redact_url(str(value)) if dest == "base_url" else str(value)]
    if getattr(args, "scenario", None):
        out += ["--scenario", args.scenario]
    return out


# run -------------------------------------------------------------------------------------------


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "run",
        "Run every task N times through one route and write a format-2 run log (checkpointed, resumable).",
        [
            "rerunlens run --tasks sample_runs/tasks.json --repeat 5 --out runs/mine.altk_runs.json",
            "rerunlens run --tasks t.json --out x.json --base-url https://api.openai.com/v1 --concurrency 4",
            "rerunlens run --tasks t.json --out runs/x.json --executor examples/agent_executor.py:run_task",
        ],
    )
    p.add_argument(
        "--tasks", help='task file: a JSON list of {"task_id", "prompt", "max_tokens"?, "expected"?}'
    )
    p.add_argument("--out", required=True, help="run log to write (a journal sits beside it while running)")
    p.add_argument(
        "--executor", metavar="MODULE:FUNCTION", help="your agent: called with (task, client, route)"
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted run from its journal, on the journal's route (route flags, if "
        "given, must match it; OPENAI_*/ALTK_* variables other than the key are not read)",
    )
    p.add_argument("--label", help='label stored in the log, e.g. "C: pinned route"')
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_profile_flags(p)
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from analyzer.errors import TaskFileError
    from analyzer.runner.progress import TerminalProgress
    from analyzer.runner.run import run_tasks
    from analyzer.taskfile import load_tasks

    if not args.tasks and not args.resume:
        raise TaskFileError("run: --tasks TASKS.json is required (unless --resume)")
    profile = (_resume_profile(args, args.out) if args.resume else None) or _profile(args)
    tasks = load_tasks(args.tasks) if args.tasks else None
    again = ["rerunlens", "run", *(["--tasks", args.tasks] if args.tasks else []), "--out", args.out]
    again += ["--repeat", str(args.rounds)] if args.rounds else []
    again += (["--executor", args.executor] if args.executor else []) + _flags_again(args) + ["--resume"]
    bar = None if args.quiet else TerminalProgress()
    outcome = run_tasks(
        tasks,
        profile,
        args.out,
        rounds=args.rounds,
        executor=args.executor,
        resume=args.resume,
        label=args.label,
        progress=bar,
        scenario=_scenario(args),
        echo=_echo,
        resume_command=shlex.join(again),
    )
    if outcome.cancelled:
        return 130
    print(f"{outcome.path}  run_id {outcome.run_id}")
    return _exit_code(outcome.progress)


def _exit_code(progress: Any) -> int:
    """1 when every result errored (the log is written, but nothing was measured), else 0."""
    return 1 if progress.total and progress.errors >= progress.total else 0


# rerun -----------------------------------------------------------------------------------------


def _add_rerun(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "rerun",
        "Re-run a log's unstable tasks through one pinned route; print before/after and the verdict. "
        "Model, temperature, top_p and max_tokens default to the parent log's (so before/after "
        "measures the route, not a model change); key, base URL, seed, retries and concurrency come "
        "from the profile as usual. A setting given that differs from the parent's is warned about "
        "and recorded in the new log.",
        [
            "rerunlens rerun sample_runs/A_baseline.altk_runs.json --only flagged --out runs/A_pinned.json",
            "rerunlens rerun runs/mine.json --only shop-003 cal-007 --out runs/two.json --concurrency 1",
        ],
    )
    p.add_argument("log", help="the run log to re-run tasks from")
    p.add_argument(
        "--only",
        nargs="+",
        default=["flagged"],
        metavar="WHICH",
        help="flagged (default), inconsistent, or task ids",
    )
    p.add_argument("--out", help="new log (default: LOG's name with .rerun)")
    p.add_argument("--tasks", help="task file, for a format-1 log that has no task definitions")
    add_answer_key_option(p)
    p.add_argument(
        "--executor", metavar="MODULE:FUNCTION", help="your agent: called with (task, client, route)"
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted re-run from its journal, on the journal's route",
    )
    p.add_argument("--label", help="label stored in the new log")
    p.add_argument("--json", action="store_true", help="print the before/after as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_profile_flags(p)
    p.set_defaults(handler=_rerun)


def _rerun(args: argparse.Namespace) -> int:
    from analyzer.loader import load_path
    from analyzer.runner.pinned_rerun import default_rerun_path, parent_settings, rerun
    from analyzer.runner.progress import TerminalProgress

    loaded = load_path(args.log)
    only: str | list[str] = args.only[0] if args.only in (["flagged"], ["inconsistent"]) else args.only
    out = Path(args.out) if args.out else _free(default_rerun_path(args.log))
    again = ["rerunlens", "rerun", args.log, "--only", *args.only, "--out", str(out)]
    again += ["--repeat", str(args.rounds)] if args.rounds else []
    again += (["--tasks", args.tasks] if args.tasks else []) + _flags_again(args) + ["--resume"]
    resumed = _resume_profile(args, out) if args.resume else None
    profile = resumed or _profile(args, base=parent_settings(loaded.log))
    report = rerun(
        loaded.log,
        only,
        profile=profile,
        out=out,
        rounds=args.rounds,
        source=args.log,
        tasks_file=args.tasks,
        key=args.key,
        label=args.label,
        executor=args.executor,
        progress=None if args.quiet else TerminalProgress(),
        scenario=_scenario(args),
        echo=_echo,
        resume=args.resume,
        resume_command=shlex.join(again),
    )
    if report.outcome.cancelled:
        return 130
    if args.json:
        payload = {
            "route": report.route_line,
            "warnings": report.warnings,
            "path": str(report.outcome.path),
            "run_id": report.outcome.run_id,
            "parent_run_id": report.parent_run_id,
            "turned_consistent": report.turned_consistent,
            "still_inconsistent": report.still_inconsistent,
            "tasks": json.loads(report.before_after.to_json(orient="records")),
        }
        print(json.dumps(payload, indent=2))
    else:
        print("\n".join(report.lines()))
        print(f"\n{report.outcome.path}  run_id {report.outcome.run_id}  parent {report.parent_run_id}")
    return _exit_code(report.outcome.progress)


def _free(path: Path) -> Path:
    """`x.rerun.altk_runs.json`, else `x.rerun-2.altk_runs.json`, ... whichever does not exist yet."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(path.name.replace(".rerun.", f".rerun-{n}.", 1))
    return candidate


# check -----------------------------------------------------------------------------------------


def _add_check(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "check",
        'Preflight a route: one minimal completion (asks for "OK", max_tokens 8) and a diagnosis.',
        [
            "rerunlens check",
            "rerunlens check --base-url https://api.openai.com/v1 --key-env MY_KEY --model gpt-4o-mini",
        ],
    )
    p.add_argument("--json", action="store_true", help="print the diagnosis as JSON")
    _add_profile_flags(p, repeat=False)
    p.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from analyzer.runner.preflight import check_route

    diagnosis = check_route(_profile(args), scenario=_scenario(args))
    if args.json:
        print(json.dumps(diagnosis.to_dict(), indent=2, default=str))
    else:
        print("\n".join(diagnosis.lines()))
    return 0 if diagnosis.ok else 1


# simulate --------------------------------------------------------------------------------------


def _add_simulate(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "simulate",
        "Serve the OpenAI-compatible simulator on loopback (/v1/chat/completions, /v1/models) until Ctrl-C.",
        [
            "rerunlens simulate --port 8765",
            "rerunlens simulate --port 8765 --scenario tests/fixtures/scenarios/flaky.json",
        ],
    )
    p.add_argument("--port", type=int, default=8765, help="loopback port (default 8765; 0 picks a free one)")
    p.add_argument(
        "--scenario", metavar="FILE", help="scenario JSON: keys, backends, faults, scripted replies"
    )
    p.set_defaults(handler=_simulate)


def _simulate(args: argparse.Namespace) -> int:
    from analyzer.simulator import Scenario, Simulator

    if not 0 <= args.port <= 65535:
        from analyzer.errors import RerunLensError

        raise RerunLensError(f"--port {args.port}: a port is 0 to 65535 (0 picks a free one)")
    scenario = _scenario(args) or Scenario()
    sim = Simulator(scenario, port=args.port)
    try:
        sim.start()
    except OSError as err:
        from analyzer.errors import RerunLensError

        raise RerunLensError(f"port {args.port}: cannot listen on 127.0.0.1 ({err.strerror})") from None
    keys = "any non-empty key" if scenario.accept_any_key else f"{len(scenario.keys)} listed key(s)"
    print(f"Simulator listening on {sim.base_url} (accepts {keys}); Ctrl-C stops it.", flush=True)
    print(f"  export OPENAI_BASE_URL={sim.base_url}", flush=True)
    try:
        sim.state.stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()
    return 0
