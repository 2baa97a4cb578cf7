"""Where the history lives: a database URL chosen, its password masked, its engine opened, its errors
made one line that never carries the password.

SQLite by default (`<runs folder>/rerunlens-history.sqlite3`), any PostgreSQL URL with `--db URL` or
`$RERUNLENS_DB_URL` for a team sharing one history. A URL's password is never printed, logged or put in
an error: the URL is shown with it masked, and a driver's message has it scrubbed before it is raised.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, quote_plus

from alembic.util.exc import CommandError
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from analyzer.errors import RerunLensError

DB_URL_ENV = "RERUNLENS_DB_URL"
DB_FILE_NAME = "rerunlens-history.sqlite3"
MASK = "***"


class HistoryError(RerunLensError):
    """The history's database cannot be opened, read or written."""


def database_url(given: str | None, runs_folder: str | os.PathLike[str]) -> str:
    """`--db URL`, else `$RERUNLENS_DB_URL`, else the SQLite file in the runs folder."""
    chosen = given or os.environ.get(DB_URL_ENV)
    if chosen:
        return chosen
    return "sqlite:///" + str(Path(runs_folder).resolve() / DB_FILE_NAME)


def _parsed(url: str) -> URL:
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise HistoryError(
            "the database URL cannot be read (expected sqlite:///FILE or postgresql://...)"
        ) from None
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise HistoryError(f"{shown_url(url)}: only SQLite and PostgreSQL databases are supported")
    return parsed


def shown_url(url: str) -> str:
    """The URL as it may be shown: its password masked (`***`); an unreadable URL is not shown at all."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return "(an unreadable database URL)"
    return parsed.render_as_string(hide_password=True)


def secret_forms(url: str) -> list[str]:
    """The password of `url` in every form a driver may echo it (plain, percent-encoded)."""
    try:
        password = make_url(url).password
    except (ArgumentError, ValueError):
        return [url]
    if not password:
        return []
    return sorted({password, quote(password, safe=""), quote_plus(password)}, key=len, reverse=True)


def scrubbed(text: str, url: str) -> str:
    """`text` with the URL's password masked wherever it appears, then its first line."""
    for secret in secret_forms(url):
        text = text.replace(secret, MASK)
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "unknown error"


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL; None for another database or an in-memory one."""
    parsed = _parsed(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database)


def open_engine(url: str, wait_s: int | None = None) -> Engine:
    """An engine for `url` (psycopg 3 for PostgreSQL); SQLite waits up to 30 s for another writer.

    `wait_s` bounds both that wait and a PostgreSQL connection attempt (index on write must not hold
    up a run for long); without it a PostgreSQL connection waits as long as the driver does.
    """
    parsed = _parsed(url)
    if parsed.get_backend_name() == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
        limit = {"connect_timeout": max(1, wait_s)} if wait_s is not None else {}
        return create_engine(parsed, pool_pre_ping=True, hide_parameters=True, connect_args=limit)
    database = sqlite_file(url)
    if database is not None:
        database.parent.mkdir(parents=True, exist_ok=True)
    timeout = wait_s if wait_s is not None else 30
    engine = create_engine(parsed, connect_args={"timeout": timeout}, hide_parameters=True)
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(connection: object, _record: object) -> None:
    cursor = connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


@contextmanager
def database_errors(url: str, doing: str) -> Iterator[None]:
    """Any driver error inside becomes one `HistoryError` line naming the masked URL, never its password."""
    try:
        yield
    except CommandError:
        raise HistoryError(
            f"{shown_url(url)}: the history was written by a newer RerunLens (an unknown schema revision)"
        ) from None
    except SQLAlchemyError as exc:
        cause = exc.orig if getattr(exc, "orig", None) is not None else exc  # type: ignore[attr-defined]
        detail = scrubbed(str(cause), url)
        raise HistoryError(
            f"{shown_url(url)}: {doing} failed ({detail}); if the file is damaged, "
            "`rerunlens history --rebuild` rebuilds it from the logs"
        ) from None
