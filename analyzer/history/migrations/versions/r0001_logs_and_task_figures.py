"""The first schema: `logs` and `task_figures` as `analyzer/history/schema.py` first defined them."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "logs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("path", sa.String(1024), nullable=False, unique=True),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("mtime_ns", sa.BigInteger, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("readable", sa.Boolean, nullable=False),
        sa.Column("problem", sa.Text),
        sa.Column("run_id", sa.String(256)),
        sa.Column("label", sa.String(512)),
        sa.Column("task_set_key", sa.String(64)),
        sa.Column("created_at", sa.DateTime),
        sa.Column("key_fingerprint", sa.String(128)),
        sa.Column("base_url", sa.String(1024)),
        sa.Column("model", sa.String(256)),
        sa.Column("parameters", sa.Text),
        sa.Column("served_model", sa.String(256)),
        sa.Column("system_fingerprint", sa.String(256)),
        sa.Column("rounds", sa.Integer),
        sa.Column("tasks", sa.Integer),
        sa.Column("answer_gap_pp", sa.Float),
        sa.Column("outcome_gap_pp", sa.Float),
        sa.Column("mean_score", sa.Float),
        sa.Column("pass_hat_k", sa.Float),
        sa.Column("tokens_per_task", sa.Float),
        sa.Column("errors", sa.Integer),
    )
    op.create_index("ix_logs_task_set_created", "logs", ["task_set_key", "created_at"])
    op.create_index("ix_logs_run_id", "logs", ["run_id"])
    op.create_table(
        "task_figures",
        sa.Column("log_id", sa.Integer, sa.ForeignKey("logs.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("task_id", sa.String(512), primary_key=True),
        sa.Column("results", sa.Integer, nullable=False),
        sa.Column("errors", sa.Integer, nullable=False),
        sa.Column("clusters", sa.Integer, nullable=False),
        sa.Column("consistent", sa.Boolean),
        sa.Column("graded", sa.Integer, nullable=False),
        sa.Column("successes", sa.Integer, nullable=False),
        sa.Column("outcome_mean", sa.Float),
        sa.Column("score", sa.Float),
        sa.Column("tokens", sa.BigInteger),
        sa.Column("answers", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("task_figures")
    op.drop_index("ix_logs_run_id", "logs")
    op.drop_index("ix_logs_task_set_created", "logs")
    op.drop_table("logs")
