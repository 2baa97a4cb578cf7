"""Zip archives opened within bounds: what an archive says it inflates to is checked before a byte
is inflated.

A zip names each entry's inflated size; Python's `zipfile` (and the zstd reader, given that size as
its output cap) never inflates an entry past it, so the stated sizes bound the memory an archive can
take. They are refused when together they pass a limit, when one entry inflates more than
`MAX_RATIO` times its compressed size (a zip bomb: 120 KiB of newlines inflating to 100 MiB), or when
the archive lists more entries than any tool's output would.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence

__all__ = ["MAX_ENTRIES", "MAX_RATIO", "RATIO_FLOOR", "archive_problem"]

MAX_RATIO = 200
"""Highest inflated / compressed size accepted for an entry (JSON logs compress 5 to 30 times)."""
RATIO_FLOOR = 4 * 1024 * 1024
"""Entries that inflate to less than this are never refused for their ratio (small files are cheap)."""
MAX_ENTRIES = 200_000
"""Most entries an archive may list."""


def archive_problem(infos: Sequence[zipfile.ZipInfo], limit: int) -> str | None:
    """Why the entries to be read may not be inflated, in a few words naming one; None when they may.

    Args:
        infos: The entries that will be read.
        limit: The most bytes they may inflate to together.
    """
    if len(infos) > MAX_ENTRIES:
        return f"{len(infos):,} entries are over the {MAX_ENTRIES:,} entry limit"
    total = 0
    for info in infos:
        if info.file_size >= RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            ratio = info.file_size // max(info.compress_size, 1)
            return (
                f"{info.filename}: inflates {ratio:,} times its compressed size (over {MAX_RATIO}:1, "
                "the shape of a zip bomb); it was not inflated"
            )
        total += info.file_size
    if total > limit:
        return f"the entries inflate to {total / 2**20:,.0f} MiB, over the {limit // 2**20} MiB limit"
    return None
