"""Unknown seat tokens asked for, by client address and time: the limit on
guessing is kept in the database, so that every worker process and every
server on the database counts the same guesses (``tables.TokenGuard``).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "token_failures",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("client", sa.String(64), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_token_failures_client_at", "token_failures", ["client", "at"])
    op.create_index("ix_token_failures_at", "token_failures", ["at"])


def downgrade() -> None:
    op.drop_table("token_failures")
