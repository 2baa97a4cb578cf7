"""Atomic file writes: a temporary file in the target's folder, fsync, then a rename.

A crash or a full disk mid-write leaves the old file (or none), never half a file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write `text` to `path` atomically, creating the folder if needed."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a log should read like any file
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
