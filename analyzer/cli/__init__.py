"""The `rerunlens` command line: a parser, exit codes, and one small module of handlers per family.

- `parser`: every command's arguments (imports neither the runner nor pandas).
- `main`: dispatch and exit codes (0 ok, 1 a finding such as `--fail-above`, 2 bad input, 130 interrupted).
- `log_commands`: analyze, compare, export, import, report, schema: commands that read logs.
- `run_commands`: run, rerun, check, resample, simulate, dashboard: commands that make requests.
- `route_args`: route flags to a profile, and back to flags for a resume hint.
- `route_commands`: route export and route doctor (coding tools).
"""

from __future__ import annotations

from analyzer.cli.main import main
from analyzer.cli.parser import build_parser

__all__ = ["build_parser", "main"]
