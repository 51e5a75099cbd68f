"""Index items by their own time: a window's entries are read by time, and an entry with its own
time (a queue row, a card) is found by it instead of by scanning every item.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 11:15:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_index(op.f("ix_items_observed_at"), "items", ["observed_at"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index(op.f("ix_items_observed_at"), table_name="items")
