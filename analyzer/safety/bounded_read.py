"""The one guarded way to read a file by path: regular files only, never more than a limit.

A path comes from a user or from inside a log folder, so it can be anything: a FIFO that never
ends, `/dev/zero`, a symlink to a device, a sparse file of gigabytes. The file is opened without
blocking, checked to be a regular file, refused on its stated size before a byte is read, and read
to at most one byte past the limit (a `/proc` file states 0 and can be endless). Every failure is one
line of the caller's error type naming the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from analyzer.errors import RerunLensError


def read_file(
    path: str | os.PathLike[str], limit: int, what: str = "file", error: type[RerunLensError] = RerunLensError
) -> bytes:
    """The bytes of a regular file of at most `limit` bytes.

    Raises:
        error: the file is missing, a folder, not a regular file, over the limit or unreadable.
    """
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(f"{p}: no such file") from None
    except IsADirectoryError:
        raise error(f"{p}: is a folder, not a {what} file") from None
    except OSError as exc:
        raise error(f"{p}: cannot read ({exc.strerror or type(exc).__name__})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise error(f"{p}: is a folder, not a {what} file")
        raise error(f"{p}: not a regular file (a device, pipe or socket); save it to a file first")
    with os.fdopen(fd, "rb") as fh:
        if info.st_size > limit:
            raise error(f"{p}: {info.st_size / 2**20:.0f} MiB is over the {_mib(limit)} limit for a {what}")
        try:
            data = _read_up_to(fh, limit + 1, info.st_size)
        except OSError as exc:
            raise error(f"{p}: cannot read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > limit:  # the file grew, or says it is smaller than it is (/proc)
        raise error(f"{p}: over the {_mib(limit)} limit for a {what} (reading stopped there)")
    return data


def _read_up_to(fh: BinaryIO, most: int, stated: int) -> bytes:
    """At most `most` bytes, read in pieces: one `read(most)` would allocate `most` bytes up front
    (gigabytes for a small file under a large cap); the first piece is the stated size plus one."""
    parts: list[bytes] = []
    total, piece = 0, max(stated + 1, 1 << 16)
    while total < most:
        chunk = fh.read(min(piece, most - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        piece = 1 << 20
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _mib(n: int) -> str:
    return f"{n // 2**20} MiB"
