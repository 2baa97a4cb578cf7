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


def write_text_atomic(path: str | os.PathLike[str], text: str, mode: int | None = None) -> Path:
    """Write `text` to `path` atomically, creating the folder if needed.

    Args:
        mode: Permission bits of the new file (default: a plain file's under the umask); give the
            old file's to keep a private settings file private.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask() if mode is None else mode)  # mkstemp makes 0600
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
