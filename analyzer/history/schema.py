"""The history's tables (SQLAlchemy Core): one row per log file indexed, one per task in it.

`logs` holds what decides whether a file must be read again (path, size, modification time, content
hash) beside the run's figures and route; `task_figures` the per-task figures the labels are tested
on. Figures a log does not record are NULL ("not recorded"), never 0.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

INTERVAL_FIGURES = ("answer_gap_pp", "outcome_gap_pp", "mean_score", "pass_hat_k")
"""Figures whose 95 % interval each run keeps (`<figure>_low`, `<figure>_high`; revision r0002)."""

logs = Table(
    "logs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("path", String(1024), nullable=False, unique=True),
    Column("size", BigInteger, nullable=False),
    Column("mtime_ns", BigInteger, nullable=False),
    Column("content_hash", String(64), nullable=False),
    Column("readable", Boolean, nullable=False),
    Column("problem", Text),
    Column("run_id", String(256)),
    Column("label", String(512)),
    Column("task_set_key", String(64)),
    Column("created_at", DateTime),
    Column("key_fingerprint", String(128)),
    Column("base_url", String(1024)),
    Column("model", String(256)),
    Column("parameters", Text),
    Column("served_model", String(256)),
    Column("system_fingerprint", String(256)),
    Column("rounds", Integer),
    Column("tasks", Integer),
    Column("answer_gap_pp", Float),
    Column("outcome_gap_pp", Float),
    Column("mean_score", Float),
    Column("pass_hat_k", Float),
    Column("tokens_per_task", Float),
    Column("errors", Integer),
    *[Column(f"{figure}_{end}", Float) for figure in INTERVAL_FIGURES for end in ("low", "high")],
    Index("ix_logs_task_set_created", "task_set_key", "created_at"),
    Index("ix_logs_run_id", "run_id"),
)

task_figures = Table(
    "task_figures",
    metadata,
    Column("log_id", Integer, ForeignKey("logs.id", ondelete="CASCADE"), primary_key=True),
    Column("task_id", String(512), primary_key=True),
    Column("results", Integer, nullable=False),
    Column("errors", Integer, nullable=False),
    Column("clusters", Integer, nullable=False),
    Column("consistent", Boolean),
    Column("graded", Integer, nullable=False),
    Column("successes", Integer, nullable=False),
    Column("outcome_mean", Float),
    Column("score", Float),
    Column("tokens", BigInteger),
    Column("answers", Text, nullable=False),
)
"""`answers`: JSON {answer hash: rounds} of the task's answers in that log (errors left out)."""
