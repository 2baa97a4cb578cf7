"""Commands for coding-tool routes: route export, route doctor. Each is a few lines over the library."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from analyzer.cli.route_args import profile_from_args
from analyzer.coding_tools import export_route, write_export
from analyzer.coding_tools.doctor import DoctorInputs, run_doctor
from analyzer.errors import RerunLensError


def export(args: argparse.Namespace) -> int:
    """`rerunlens route export`: the settings on stdout (or merged into --out), notes on stderr."""
    if args.force and not args.out:
        raise RerunLensError("--force only applies with --out")
    result = export_route(profile_from_args(args), args.tool, benchmark_key_env=args.benchmark_key_env)
    for note in result.notes:
        print(f"rerunlens: {note}", file=sys.stderr)
    for warning in result.warnings:
        print(f"rerunlens: warning: {warning}", file=sys.stderr)
    if args.out:
        print(write_export(result, args.out, force=args.force).summary())
    else:
        sys.stdout.write(result.text)
    return 0


def _path(value: str | None) -> Path | None:
    return Path(value).expanduser() if value else None


def doctor(args: argparse.Namespace) -> int:
    """`rerunlens route doctor`: one line per mistake; exit 1 when there is any."""
    report = run_doctor(
        DoctorInputs(
            claude_settings=_path(args.claude_settings),
            codex_config=_path(args.codex_config),
            cc_switch=_path(args.cc_switch),
            env=os.environ if args.env else None,
            benchmark_key_env=args.benchmark_key_env,
        )
    )
    print("\n".join(report.lines()))
    return 0 if report.ok else 1
