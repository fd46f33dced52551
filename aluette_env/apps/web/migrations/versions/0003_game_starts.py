"""New games and tables started, by client address and time: the limit on
new games per address is kept in the database, so that every worker process
and every server on it counts the same starts (``service.ClientLimit``).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_starts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("client", sa.String(64), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_game_starts_client_at", "game_starts", ["client", "at"])
    op.create_index("ix_game_starts_at", "game_starts", ["at"])


def downgrade() -> None:
    op.drop_table("game_starts")
