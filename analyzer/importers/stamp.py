"""A cache key for everything reading a log touches, so a dashboard never shows stale figures.

A log's own modification time is not enough: an AppWorld outputs folder keeps its time when an
experiment inside is re-evaluated, a tau2-bench `results.json` reads the `simulations/` beside it,
and an ALTK-Evolve score card reads its trace's other debug files.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from analyzer.importers import altk_evolve
from analyzer.importers.tau2_bench import SIMULATIONS_DIR


def source_stamp(path: str | os.PathLike[str]) -> str:
    """Size and modification time of every file a read of `path` opens, hashed; "missing" if none.

    Raises:
        OSError: `path` cannot be examined (the caller reports it as missing or unreadable).
    """
    p = Path(path)
    files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p, *_beside(p)]
    digest = hashlib.sha256()
    for f in files:
        info = f.stat()
        digest.update(f"{f}\0{info.st_mtime_ns}\0{info.st_size}\n".encode())
    return f"{len(files)}:{digest.hexdigest()[:16]}"


def _beside(path: Path) -> list[Path]:
    """Files a foreign layout reads beside `path`."""
    found = list(altk_evolve.sibling_paths(path).values())
    simulations = path.parent / SIMULATIONS_DIR
    if path.name == "results.json" and simulations.is_dir():
        found += sorted(simulations.glob("*.json"))
    return found
