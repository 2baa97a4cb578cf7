"""Each run keeps its figures' 95 % intervals; every log is read again on the next pass to fill them."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0002"
down_revision = "r0001"
COLUMNS = [
    f"{figure}_{end}"
    for figure in ("answer_gap_pp", "outcome_gap_pp", "mean_score", "pass_hat_k")
    for end in ("low", "high")
]


def upgrade() -> None:
    with op.batch_alter_table("logs") as batch:
        for name in COLUMNS:
            batch.add_column(sa.Column(name, sa.Float))
    op.execute("UPDATE logs SET size = -1, content_hash = ''")  # no stored file matches: all read again


def downgrade() -> None:
    with op.batch_alter_table("logs") as batch:
        for name in COLUMNS:
            batch.drop_column(name)
