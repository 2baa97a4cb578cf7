"""A cache key for everything reading a log touches, so a dashboard never shows stale figures.

A log's own modification time is not enough: an AppWorld outputs folder keeps its time when an
experiment inside is re-evaluated, a tau2-bench `results.json` reads the `simulations/` beside it,
an ALTK-Evolve score card reads its trace's other debug files, an lm-evaluation-harness results file
reads its samples files (and a samples file its results file), and an Inspect eval set's listing
reads the logs beside it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from analyzer.importers import altk_evolve
from analyzer.importers.inspect_eval_set import LISTING, is_eval_set, set_files
from analyzer.importers.lm_eval_files import read_beside
from analyzer.importers.tau2_bench import SIMULATIONS_DIR


def source_stamp(path: str | os.PathLike[str]) -> str:
    """Size and modification time of every file a read of `path` opens, hashed, prefixed by their count.

    Raises:
        OSError: `path` cannot be examined (the caller reports it as missing or unreadable).
    """
    p = Path(path)
    eval_set = p.parent if p.name == LISTING and is_eval_set(p.parent) else p
    if eval_set.is_dir() and is_eval_set(eval_set):
        files = set_files(eval_set)  # the folder's logs, not what sits in its subfolders
    elif p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.is_file())
    else:
        files = [p, *_beside(p)]
    digest = hashlib.sha256()
    for f in files:
        info = f.stat()
        digest.update(f"{f}\0{info.st_mtime_ns}\0{info.st_size}\n".encode())
    return f"{len(files)}:{digest.hexdigest()[:16]}"


def _beside(path: Path) -> list[Path]:
    """Files a foreign layout reads beside `path`."""
    found = list(altk_evolve.sibling_paths(path).values()) + read_beside(path)
    simulations = path.parent / SIMULATIONS_DIR
    if path.name == "results.json" and simulations.is_dir():
        found += sorted(simulations.glob("*.json"))
    return found
