"""Files in a runs folder that are named like logs but cannot be read, with the line that says why.

`list_any_logs` lists only what opens (a file's first bytes must look like a log), so a log cut short
by a crash or a full disk would otherwise vanish from the list without a word. Only names that
promise a log are checked: Inspect's own `.eval` suffix and RerunLens's `altk_runs.json` ending;
other files (task files, notes, configs) are not logs and are not named.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from functools import lru_cache
from pathlib import Path

from analyzer.errors import RerunLensError
from analyzer.importers import list_any_logs, load_any

PROMISES_A_LOG = (".eval", "altk_runs.json")
"""File name endings that say the file is a run log."""
READ_AT_MOST = 64 * 2**20
"""Larger unlisted files are named without being read whole for their reason."""


def unlisted_logs(
    folder: str | os.PathLike[str], listed: Collection[Path] | None = None
) -> list[tuple[Path, str]]:
    """Each file under `folder` whose name promises a log that `list_any_logs` leaves out, with the
    reason (the reader's own one line, without the path), sorted by path.

    Args:
        folder: The runs folder.
        listed: What `list_any_logs(folder)` gave, when the caller has it already (else listed here).
    """
    root = Path(folder)
    if not root.is_dir():
        return []
    listed = set(list_any_logs(root) if listed is None else listed)
    out = []
    for path in sorted(root.rglob("*")):
        if path.name.endswith(PROMISES_A_LOG) and path not in listed and path.is_file():
            reason = _reason(path)
            if reason is not None:
                out.append((path, reason))
    return out


def _reason(path: Path) -> str | None:
    """Why the file cannot be opened as a log; None when it opens after all."""
    try:
        stat = path.stat()
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    return _reason_for(str(path), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=256)
def _reason_for(path: str, size: int, mtime_ns: int) -> str | None:
    """The reason for one version of a file (its size and time are the cache key): the dashboard asks
    every few seconds, and a broken file is read again only when it changes."""
    del mtime_ns  # cache key only
    if size == 0:
        return "empty file"
    if size > READ_AT_MOST:
        return "does not start like a run log"
    try:
        load_any(path)
    except RerunLensError as exc:
        return exc.message.removeprefix(f"{path}: ")
    return None
