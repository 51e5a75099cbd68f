"""Index items that have a time of their own (queue rows, cards): a window's entries are read by
time, and those are found by it instead of by scanning every item (the rest by their source's).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 11:15:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_index(
        "ix_items_observed_at", "items", ["observed_at"], unique=False,
        postgresql_where=sa.text("observed_at IS NOT NULL"),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index("ix_items_observed_at", table_name="items", postgresql_where=sa.text("observed_at IS NOT NULL"))
