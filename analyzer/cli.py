"""The `rerunlens` command line: each command is a few lines over one library call.

Library errors (the RerunLensError family) become one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from analyzer.answer_keys import ANSWER_KEYS
from analyzer.errors import RerunLensError


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `rerunlens` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return handler(args)
    except RerunLensError as exc:
        print(f"rerunlens: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `rerunlens ... | head`
        return 0
    except OSError as exc:  # a path the user named cannot be read or written
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"rerunlens: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rerunlens: interrupted", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    """The parser with every subcommand, the runner's included."""
    parser = argparse.ArgumentParser(
        prog="rerunlens",
        description="Tell route noise from model noise in repeated LLM agent runs.",
    )
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    _add_analyze(sub)
    _add_compare(sub)
    _add_export(sub)
    _add_schema(sub)
    try:
        from analyzer.runner.commands import register
    except ImportError:  # the runner is optional for reading logs
        pass
    else:
        register(sub)
    return parser


def add_command(
    sub: argparse._SubParsersAction, name: str, help_text: str, examples: str | list[str]
) -> argparse.ArgumentParser:
    """A subcommand whose help carries its description and at least one example."""
    lines = [examples] if isinstance(examples, str) else examples
    return sub.add_parser(
        name,
        help=help_text,
        description=help_text,
        epilog="example:\n" + "\n".join(f"  {e}" for e in lines),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def add_answer_key_option(p: argparse.ArgumentParser) -> None:
    """The shared `--key exact|normalized|fuzzy` option."""
    p.add_argument(
        "--key",
        choices=ANSWER_KEYS,
        default="exact",
        help="how answers are grouped into clusters (default: exact)",
    )


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


# analyze ---------------------------------------------------------------------------------------


def _add_analyze(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "analyze",
        "Report a run log: answer gap, outcome figures, tokens, retries, route, flagged tasks.",
        "rerunlens analyze sample_runs/format1_plain_script.json --key normalized --fail-above 20",
    )
    p.add_argument("file", help="run log (altk_runs.json)")
    add_answer_key_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    p.add_argument(
        "--fail-above",
        type=_finite_float,
        metavar="PP",
        help="exit 1 when the answer gap exceeds PP percentage points (for CI)",
    )
    p.set_defaults(handler=_analyze)


def _analyze(args: argparse.Namespace) -> int:
    from analyzer.analysis import analyze
    from analyzer.loader import load_path
    from analyzer.report_text import render_report

    loaded = load_path(args.file)
    analysis = analyze(loaded.log, args.key)
    if args.json:
        report = analysis.report()
        report["source"] = str(args.file)
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(render_report(analysis, str(args.file)))
    gap = analysis.headline.answer_gap_pp
    if args.fail_above is not None and gap is not None and gap > args.fail_above:
        print(f"rerunlens: answer gap {gap:.2f} pp is above {args.fail_above:g} pp", file=sys.stderr)
        return 1
    return 0


# compare ---------------------------------------------------------------------------------------


def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "compare",
        "Compare run logs side by side and list the tasks that flip between consistent and not.",
        "rerunlens compare sample_runs/A_baseline.altk_runs.json sample_runs/C_pinned.altk_runs.json",
    )
    p.add_argument("files", nargs="+", help="two or more run logs")
    p.add_argument("--label", action="append", help="a label per file, in order (default: the log's label)")
    add_answer_key_option(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(handler=_compare)


def _compare(args: argparse.Namespace) -> int:
    from analyzer.analysis import analyze
    from analyzer.compare import compare
    from analyzer.loader import load_path
    from analyzer.report_text import render_comparison

    if len(args.files) < 2:
        raise RerunLensError("compare needs at least two run logs")
    if args.label and len(args.label) != len(args.files):
        raise RerunLensError(f"{len(args.label)} --label given for {len(args.files)} files")
    groups = []
    for i, path in enumerate(args.files):
        log = load_path(path).log
        label = args.label[i] if args.label else log.display_label(Path(path).name)
        groups.append((label, analyze(log, args.key)))
    comparison = compare(groups)
    if args.json:
        report = {
            "groups": json.loads(comparison.table.to_json(orient="records")),
            "flips": json.loads(comparison.flips.to_json(orient="records")),
        }
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(render_comparison(comparison))
    return 0


# export ----------------------------------------------------------------------------------------


def _add_export(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "export",
        "Write the flagged tasks as a task file, and/or the per-task table as CSV.",
        "rerunlens export run.json --flagged flagged_tasks.json --csv tasks.csv",
    )
    p.add_argument("file", help="run log")
    p.add_argument("--flagged", metavar="OUT.json", help="write the flagged tasks as a task file")
    p.add_argument("--csv", metavar="OUT.csv", help="write the per-task table")
    p.add_argument("--tasks", metavar="TASKS.json", help="take prompts from this task file (format-1 logs)")
    add_answer_key_option(p)
    p.set_defaults(handler=_export)


def _export(args: argparse.Namespace) -> int:
    from analyzer.analysis import analyze
    from analyzer.atomic import write_text_atomic
    from analyzer.export import flagged_task_file, missing_prompts, tasks_csv
    from analyzer.loader import load_path
    from analyzer.taskfile import load_tasks

    if not args.flagged and not args.csv:
        raise RerunLensError("export needs --flagged OUT.json and/or --csv OUT.csv")
    analysis = analyze(load_path(args.file).log, args.key)
    if args.flagged:
        extra = load_tasks(args.tasks) if args.tasks else None
        entries = flagged_task_file(analysis, extra)
        write_text_atomic(args.flagged, json.dumps(entries, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {len(entries)} flagged task(s) to {args.flagged}")
        missing = missing_prompts(entries)
        if missing:
            print(
                f"note: {len(missing)} task(s) have no prompt in the log (format 1); "
                "pass --tasks TASKS.json to fill them in",
                file=sys.stderr,
            )
    if args.csv:
        write_text_atomic(args.csv, tasks_csv(analysis))
        print(f"wrote {len(analysis.tasks)} task row(s) to {args.csv}")
    return 0


# schema ----------------------------------------------------------------------------------------


def _add_schema(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "schema",
        "Print the JSON Schema of the run log format.",
        "rerunlens schema > altk_runs.schema.json",
    )
    p.set_defaults(handler=_schema)


def _schema(args: argparse.Namespace) -> int:
    from analyzer.model import RunLog

    print(json.dumps(RunLog.model_json_schema(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
