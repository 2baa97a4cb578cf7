"""Index on write: a log RerunLens has just written goes into its runs folder's history at once.

Which history: the one `$RERUNLENS_DB_URL` names, else the SQLite history of the nearest
folder above the log that holds one, else the runs folder's (created) when the log is inside the runs
folder. A log written anywhere else is not indexed: the runs folder's history lists only logs under
that folder, so it would only be dead weight there. `--no-history` or `RERUNLENS_HISTORY=0` turns
this off. Indexing never stops a run: any failure is one warning line, its URL's password masked.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from analyzer.errors import RerunLensError
from analyzer.history.database import DB_FILE_NAME, DB_URL_ENV, database_url, scrubbed, shown_url
from analyzer.history.store import RunStore

WAIT_S = 5
"""The longest a run waits for the history's database (a connection, another writer) before it warns."""
HISTORY_ENV = "RERUNLENS_HISTORY"
"""`0` (or `no`, `off`, `false`): logs are not indexed as they are written."""


def history_wanted(no_history: bool = False) -> bool:
    """False with `--no-history` or `RERUNLENS_HISTORY=0`."""
    off = os.environ.get(HISTORY_ENV, "").strip().lower() in ("0", "no", "off", "false")
    return not (no_history or off)


def history_url(log: Path, runs_dir: Path) -> str | None:
    """The database a log just written goes into, or None (see the module's rule)."""
    if os.environ.get(DB_URL_ENV):
        return database_url(None, runs_dir)
    log = log.resolve()
    for folder in log.parents:
        if (folder / DB_FILE_NAME).is_file():
            return database_url(None, folder)
    if log.is_relative_to(runs_dir.resolve()):
        return database_url(None, runs_dir)
    return None


def index_written(
    logs: Iterable[Path | None],
    runs_dir: Path,
    warn: Callable[[str], object],
) -> int:
    """Index each written log (missing ones are skipped) into its history; the number indexed.

    Never raises: a failure is one `warn` line naming the masked URL (the caller adds its warning
    prefix), and the log stays as written.
    """
    indexed = 0
    for log in logs:
        if log is None or not Path(log).is_file():
            continue
        url = ""
        try:
            url = history_url(Path(log), runs_dir) or ""
            if not url:
                continue
            store = RunStore(url, wait_s=WAIT_S)
            try:
                report = store.index([log])
            finally:
                store.close()
            indexed += len(report.read)
        except RerunLensError as exc:
            warn(f"{log} is not in the history: {_masked(exc.message, url)}")
        except Exception as exc:  # a driver or file error: the run has its log, the history waits
            where = shown_url(url) if url else "the history"
            warn(f"{log} is not in {where}: {_masked(f'{type(exc).__name__}: {exc}', url)}")
    return indexed


def _masked(text: str, url: str) -> str:
    return scrubbed(text, url) if url else text.splitlines()[0] if text else "unknown error"
