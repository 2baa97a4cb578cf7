"""Alembic's migrations of the history database (`analyzer/history/migrate.py` runs them)."""
