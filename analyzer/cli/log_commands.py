"""Commands that read logs: analyze, compare, export, schema. Each is a few lines over the library."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import analyzer.numbers as numbers
from analyzer.analysis import Analysis
from analyzer.analysis import analyze as analyze_log
from analyzer.atomic import write_text_atomic
from analyzer.cli.semantic_args import semantic_options
from analyzer.errors import RerunLensError
from analyzer.importers import import_to_file, load_any
from analyzer.importers.experiments import experiment_groups
from analyzer.log.schema import log_json_schema
from analyzer.log.taskfile import load_tasks
from analyzer.metrics.prices import PriceTable, load_prices
from analyzer.report.export import flagged_task_file, missing_prompts, missing_prompts_note, tasks_csv
from analyzer.report.html import ReportEntry, render_report_html
from analyzer.report.text import render_comparison, render_report
from analyzer.safety.terminal_text import json_text
from analyzer.verdicts.compare import compare as compare_groups
from analyzer.verdicts.compare import comparison_report


def analyze(args: argparse.Namespace) -> int:
    """`rerunlens analyze`: the report, or one JSON object; exit 1 above `--fail-above`."""
    analysis = analyze_log(
        load_any(args.file).log, args.key, semantic=semantic_options(args), prices=_prices(args)
    )
    if args.json:
        report = analysis.report()
        report["source"] = str(args.file)
        print(json_text(report))
    else:
        print(render_report(analysis, str(args.file)))
    gap = analysis.headline.answer_gap_pp
    if args.fail_above is not None and gap is not None and gap > args.fail_above:
        print(f"rerunlens: answer gap {gap:.2f} pp is above {args.fail_above:g} pp", file=sys.stderr)
        return 1
    return 0


def compare(args: argparse.Namespace) -> int:
    """`rerunlens compare`: groups side by side and the tasks that flip. A file that compares
    experiments itself (a promptfoo eval of two providers) counts as its groups."""
    groups = _labelled(args)
    if len(groups) < 2:
        raise RerunLensError("compare needs at least two run logs (or one file of several experiment groups)")
    comparison = compare_groups([(label, analysis) for label, _, analysis in groups])
    if args.json:
        print(json_text(comparison_report(comparison)))
    else:
        print(render_comparison(comparison))
    return 0


def export(args: argparse.Namespace) -> int:
    """`rerunlens export`: the flagged tasks as a task file and/or the per-task table as CSV."""
    if not args.flagged and not args.csv:
        raise RerunLensError("export needs --flagged OUT.json and/or --csv OUT.csv")
    analysis = analyze_log(load_any(args.file).log, args.key, semantic=semantic_options(args))
    if args.flagged:
        entries = flagged_task_file(analysis, load_tasks(args.tasks) if args.tasks else None)
        write_text_atomic(args.flagged, json.dumps(entries, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {numbers.counted(len(entries), 'flagged task')} to {args.flagged}")
        missing = missing_prompts(entries)
        if missing:
            print(missing_prompts_note(analysis.log, len(missing)), file=sys.stderr)
    if args.csv:
        write_text_atomic(args.csv, tasks_csv(analysis))
        print(f"wrote {numbers.counted(len(analysis.tasks), 'task row')} to {args.csv}")
    return 0


def report(args: argparse.Namespace) -> int:
    """`rerunlens report`: one self-contained HTML file for one or several logs."""
    entries = [ReportEntry(label, path, analysis) for label, path, analysis in _labelled(args)]
    out = write_text_atomic(args.out, render_report_html(entries, title=args.title))
    logs = numbers.counted(len(entries), "log")
    print(f"wrote {out} ({logs}, {out.stat().st_size / 2**20:.1f} MB, opens offline)")
    return 0


def import_log(args: argparse.Namespace) -> int:
    """`rerunlens import`: another tool's log written as a format-2 log, with its provenance."""
    print(f"wrote {import_to_file(args.src, args.out)}")
    return 0


def schema(args: argparse.Namespace) -> int:
    """`rerunlens schema`: the JSON Schema of the log format."""
    print(json.dumps(log_json_schema(), indent=2))
    return 0


def _labelled(args: argparse.Namespace) -> list[tuple[str, str, Analysis]]:
    """Each of `args.files` analysed, with its `--label` (else the log's own) and its path."""
    if args.label and len(args.label) != len(args.files):
        raise RerunLensError(f"{len(args.label)} --label given for {len(args.files)} files")
    out = []
    semantic = semantic_options(args)
    prices = _prices(args)
    for i, path in enumerate(args.files):
        loaded = load_any(path)
        label = args.label[i] if args.label else loaded.log.display_label(Path(path).name)
        parts = experiment_groups(loaded)
        if not parts:
            out.append(
                (label, str(path), analyze_log(loaded.log, args.key, semantic=semantic, prices=prices))
            )
        for part, group in parts:  # a file that compares experiments: each group on its own
            shown = part if len(args.files) == 1 else f"{label}: {part}"
            out.append((shown, str(path), analyze_log(group.log, args.key, semantic=semantic, prices=prices)))
    return out


def _prices(args: argparse.Namespace) -> PriceTable | None:
    """The `--prices` table, where the command takes one and it was given."""
    path = getattr(args, "prices", None)
    return load_prices(path) if path else None
