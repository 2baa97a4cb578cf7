"""Where a new log made from a parent goes by default: beside its parent, except that the shipped
samples are never written (the README promises it): a re-run or resample of a sample goes into the
runs folder, as the dashboard's do."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES_DIR = (
    ROOT / "sample_runs"
    if (ROOT / "sample_runs").is_dir()
    else Path(sys.prefix) / "share" / "rerunlens" / "sample_runs"  # an installed wheel's copy
)
"""The shipped sample logs (read-only)."""
RUNS_DIR_ENV = "RERUNLENS_RUNS_DIR"
DEFAULT_RUNS_DIR = Path("runs")
"""Relative to the working directory."""


def runs_folder() -> Path:
    """$RERUNLENS_RUNS_DIR, else `./runs` (created on the first write)."""
    return Path(os.environ.get(RUNS_DIR_ENV) or DEFAULT_RUNS_DIR).expanduser()


def beside(parent: str | Path, name: str) -> Path:
    """`name` in the parent's folder, or in the runs folder when the parent is a shipped sample."""
    folder = Path(parent).parent
    if folder.resolve().is_relative_to(SAMPLES_DIR.resolve()):
        return runs_folder() / name
    return folder / name
