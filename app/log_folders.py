"""Where the dashboard's logs live: the user's runs folder (written) and the shipped samples (read-only).

Everything the dashboard writes (re-runs, copied uploads, new runs, uploaded task files, job state)
goes to the runs folder: `./runs` under the working directory, created on the first write, or the
folder named with `-- --runs-dir DIR` or $RERUNLENS_RUNS_DIR. The shipped `sample_runs/` stay
untouched examples: they are listed too, named `sample_runs/<file>`, and only ever read.

Logs are named in the sidebar (and the URL's `log=`) by their path relative to the runs folder, or
`sample_runs/<file>` for a sample. A runs folder that is the samples folder itself lists them once.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from analyzer.importers import list_any_logs
from analyzer.importers.unlisted import unlisted_logs
from analyzer.log.redaction import shown_text
from analyzer.runner.out_folder import DEFAULT_RUNS_DIR, RUNS_DIR_ENV, SAMPLES_DIR
from analyzer.runner.out_folder import ROOT as ROOT  # the source tree, for app/data.py

SAMPLE_PREFIX = "sample_runs/"


def runs_dir(argv: list[str] | None = None) -> Path:
    """The runs folder: `-- --runs-dir DIR`, else $RERUNLENS_RUNS_DIR, else `./runs` (may not exist yet)."""
    chosen = chosen_runs_dir(argv) or str(DEFAULT_RUNS_DIR)
    return Path(chosen).expanduser().resolve()


def chosen_runs_dir(argv: list[str] | None = None) -> str | None:
    """The runs folder the user named (flag, then environment), or None for the default."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--runs-dir")
    args, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    return args.runs_dir or os.environ.get(RUNS_DIR_ENV) or None


def samples_listed(runs: Path) -> bool:
    """False when the runs folder is (or is inside) the samples folder: its logs are listed once."""
    return not runs.resolve().is_relative_to(SAMPLES_DIR.resolve())


def log_names(runs: Path) -> list[str]:
    """Every log the sidebar offers: the runs folder's (relative paths), then the samples."""
    own = [p.relative_to(runs).as_posix() for p in list_any_logs(runs)]
    samples = [SAMPLE_PREFIX + p.relative_to(SAMPLES_DIR).as_posix() for p in list_any_logs(SAMPLES_DIR)]
    return list(dict.fromkeys(own + (samples if samples_listed(runs) else [])))


def unreadable_logs(runs: Path, names: list[str]) -> list[str]:
    """`name: reason` for each file in the runs folder that is named like a log but cannot be read
    (so is not among the listed `names`): a log cut short must not vanish without a word."""
    listed = [runs / n for n in names if not is_sample(n)]
    return [f"{p.relative_to(runs).as_posix()}: {shown_text(why)}" for p, why in unlisted_logs(runs, listed)]


def sample_names(names: list[str]) -> list[str]:
    """The samples among listed log names."""
    return [n for n in names if is_sample(n)]


def is_sample(name: str) -> bool:
    """True for a shipped sample's name (`sample_runs/<file>`)."""
    return name.startswith(SAMPLE_PREFIX)


def log_path(runs: Path, name: str) -> Path:
    """The file a listed name stands for: a sample, else a path inside the runs folder."""
    if is_sample(name) and samples_listed(runs):
        return SAMPLES_DIR / name.removeprefix(SAMPLE_PREFIX)
    return runs / name


def default_pick(names: list[str], limit: int = 6) -> list[str]:
    """The logs open at first: the named runs folder's own logs when the user chose a folder that has
    some, else the samples (so what the dashboard writes never changes the first view)."""
    own = [n for n in names if not is_sample(n)]
    if chosen_runs_dir() and own:
        return own[:limit]
    return (sample_names(names) or own)[:limit]


def where(name: str) -> str:
    """A short phrase saying where a listed log lives (for captions)."""
    return "shipped sample, read-only" if is_sample(name) else "your runs folder"
