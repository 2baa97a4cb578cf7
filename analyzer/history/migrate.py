"""The schema brought to the newest revision with Alembic, on first use and after an upgrade of RerunLens."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, inspect

from analyzer.history.schema import metadata

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def upgrade(engine: Engine) -> None:
    """Run every migration the database has not had yet (one transaction)."""
    with engine.begin() as connection:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def drop_all(engine: Engine) -> None:
    """Every history table and Alembic's version mark gone (for `--rebuild`)."""
    with engine.begin() as connection:
        metadata.drop_all(connection)
        if inspect(connection).has_table("alembic_version"):
            connection.exec_driver_sql("DROP TABLE alembic_version")
