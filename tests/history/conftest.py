"""The store tests run against SQLite and against a throwaway PostgreSQL server (tests/postgres_kit.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres_kit import Server, start_server


@pytest.fixture(scope="session")
def postgres() -> Iterator[Server]:
    yield from start_server()


@pytest.fixture(autouse=True)
def no_history_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RERUNLENS_DB_URL", raising=False)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty history database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'history.sqlite3'}"
    server: Server = request.getfixturevalue("postgres")
    return server.new_database()
