"""The run store: logs indexed into the history database, incrementally and one transaction per log.

The logs stay the source of truth. A file already indexed whose path, size and modification time are
unchanged is not opened again; one whose bytes hash as before only has its times updated; anything
else is read, analysed and written in one transaction (a crash leaves the log indexed as before or
not at all). A file that is not a log is remembered as such, so it is not read again either. A lost
or damaged database is rebuilt from the logs with `rebuild`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update

from analyzer.errors import RerunLensError
from analyzer.history.database import (
    DB_FILE_NAME,
    HistoryError,
    database_errors,
    open_engine,
    shown_url,
    sqlite_file,
)
from analyzer.history.figures import log_figures
from analyzer.history.migrate import drop_all, upgrade
from analyzer.history.schema import logs, task_figures
from analyzer.importers import load_any
from analyzer.log.loader import MAX_LOG_BYTES
from analyzer.safety.bounded_read import read_file

LOG_SUFFIXES = (".json", ".eval", ".jsonl")
"""Files a folder's walk considers; the runner's checkpoint journals and the database are left out."""
SKIPPED_ENDINGS = (".journal.jsonl", DB_FILE_NAME)


@dataclass
class IndexReport:
    """What one pass over the logs did."""

    read: list[str] = field(default_factory=list)
    """Files opened and analysed in this pass (new or changed)."""
    unchanged: int = 0
    """Files skipped without being opened, or opened and found the same bytes."""
    not_logs: list[str] = field(default_factory=list)
    """Files read in this pass that are not logs, with the reason."""
    removed: int = 0
    """Rows of files that are gone."""


def log_files(sources: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The files named, and under each folder named every file that may be a log, sorted."""
    found: set[Path] = set()
    for source in sources:
        path = Path(source)
        if path.is_dir():
            found |= {
                p.resolve()
                for p in path.rglob("*")
                if p.suffix in LOG_SUFFIXES and not p.name.endswith(SKIPPED_ENDINGS) and p.is_file()
            }
        elif path.is_file():
            found.add(path.resolve())
        else:
            raise HistoryError(f"{path}: no such file or folder")
    return sorted(found)


class RunStore:
    """The history database at one URL, its schema brought up to date on opening."""

    def __init__(self, url: str, rebuild: bool = False, wait_s: int | None = None) -> None:
        """Open (and create or migrate) the database; `rebuild` first throws away what it holds;
        `wait_s` bounds the wait for a connection or another writer (`database.open_engine`)."""
        self.url = url
        self.shown_url = shown_url(url)
        if rebuild:
            _remove_sqlite_file(url)
        self.engine: Engine = open_engine(url, wait_s)
        with database_errors(url, "opening the history"):
            if rebuild:
                drop_all(self.engine)
            upgrade(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    def index(self, sources: Sequence[str | os.PathLike[str]]) -> IndexReport:
        """Index every log under `sources` that is new or changed; forget files that are gone."""
        files = log_files(sources)
        report = IndexReport()
        with database_errors(self.url, "reading the index"), self.engine.connect() as conn:
            known = {
                row.path: row
                for row in conn.execute(
                    select(logs.c.id, logs.c.path, logs.c.size, logs.c.mtime_ns, logs.c.content_hash)
                )
            }
        for path in files:
            self._index_one(path, known.get(str(path)), report)
        report.removed = self._forget_missing(sources, {str(p) for p in files}, known)
        return report

    def _index_one(self, path: Path, row: Any, report: IndexReport) -> None:
        try:
            info = path.stat()
        except FileNotFoundError:  # removed since the folder was walked: forgotten on the next pass
            return
        if row is not None and row.size == info.st_size and row.mtime_ns == info.st_mtime_ns:
            report.unchanged += 1
            return
        try:
            data = read_file(path, MAX_LOG_BYTES, "log")
        except RerunLensError as exc:
            self._write(path, info, "", None, exc.message)
            report.not_logs.append(exc.message)
            return
        digest = hashlib.sha256(data).hexdigest()
        if row is not None and row.content_hash == digest:
            with database_errors(self.url, "updating the index"), self.engine.begin() as conn:
                conn.execute(
                    update(logs)
                    .where(logs.c.id == row.id)
                    .values(size=info.st_size, mtime_ns=info.st_mtime_ns)
                )
            report.unchanged += 1
            return
        try:
            figures = log_figures(load_any(path).log)
        except RerunLensError as exc:
            self._write(path, info, digest, None, exc.message)
            report.not_logs.append(exc.message)
            return
        self._write(path, info, digest, figures, None)
        report.read.append(str(path))

    def _write(
        self,
        path: Path,
        info: os.stat_result,
        digest: str,
        figures: tuple[dict[str, Any], list[dict[str, Any]]] | None,
        problem: str | None,
    ) -> None:
        """One log's rows replaced in one transaction."""
        file_row = {
            "path": str(path),
            "size": info.st_size,
            "mtime_ns": info.st_mtime_ns,
            "content_hash": digest,
        }
        with database_errors(self.url, "writing the index"), self.engine.begin() as conn:
            old = conn.execute(select(logs.c.id).where(logs.c.path == str(path))).scalar()
            if old is not None:
                conn.execute(delete(task_figures).where(task_figures.c.log_id == old))
                conn.execute(delete(logs).where(logs.c.id == old))
            run = figures[0] if figures else {}
            log_id = conn.execute(
                insert(logs).values(**file_row, **run, readable=figures is not None, problem=problem)
            ).inserted_primary_key[0]  # type: ignore[index]
            if figures and figures[1]:
                conn.execute(insert(task_figures), [{"log_id": log_id, **t} for t in figures[1]])

    def _forget_missing(
        self, sources: Sequence[str | os.PathLike[str]], present: set[str], known: dict[str, Any]
    ) -> int:
        folders = [str(Path(s).resolve()) + os.sep for s in sources if Path(s).is_dir()]
        gone = [
            row.id for path, row in known.items() if path not in present and path.startswith(tuple(folders))
        ]
        if gone:
            with database_errors(self.url, "writing the index"), self.engine.begin() as conn:
                conn.execute(delete(task_figures).where(task_figures.c.log_id.in_(gone)))
                conn.execute(delete(logs).where(logs.c.id.in_(gone)))
        return len(gone)

    def runs(self, task_set_key: str | None = None) -> list[dict[str, Any]]:
        """The indexed runs (readable logs), of one task set or all, oldest first."""
        query = select(logs).where(logs.c.readable.is_(True))
        if task_set_key is not None:
            query = query.where(logs.c.task_set_key == task_set_key)
        with database_errors(self.url, "reading the history"), self.engine.connect() as conn:
            rows = [dict(r._mapping) for r in conn.execute(query)]
        return sorted(rows, key=_time_order)

    def tasks_of(self, log_ids: Iterable[int]) -> list[dict[str, Any]]:
        """Every task row of these logs."""
        ids = list(log_ids)
        out: list[dict[str, Any]] = []
        with database_errors(self.url, "reading the history"), self.engine.connect() as conn:
            for start in range(0, len(ids), 500):
                query = select(task_figures).where(task_figures.c.log_id.in_(ids[start : start + 500]))
                out += [dict(r._mapping) for r in conn.execute(query)]
        return out


def _time_order(row: dict[str, Any]) -> tuple[str, str, str]:
    created = row["created_at"]
    stamp = created.strftime("%Y-%m-%dT%H:%M:%S.%f") if created is not None else ""
    return (stamp, row["run_id"] or "", row["path"])


def _remove_sqlite_file(url: str) -> None:
    """A SQLite history is a file the logs rebuild: removed whole, damaged or not (with its journals)."""
    database = sqlite_file(url)
    if database is None:
        return
    for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm"), Path(f"{database}-journal")):
        path.unlink(missing_ok=True)
