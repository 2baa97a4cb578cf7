"""One task set across many runs: the run store (a SQLite or PostgreSQL database of indexed logs),
the history's labels and change points, and the route monitor that appends probes to it."""

from analyzer.history.database import DB_URL_ENV, HistoryError, database_url, shown_url
from analyzer.history.query import HistoryRequest, HistoryResult, load_history
from analyzer.history.store import IndexReport, RunStore

__all__ = [
    "DB_URL_ENV",
    "HistoryError",
    "HistoryRequest",
    "HistoryResult",
    "IndexReport",
    "RunStore",
    "database_url",
    "load_history",
    "shown_url",
]
