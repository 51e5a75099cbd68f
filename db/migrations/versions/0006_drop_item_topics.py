"""Drop items.primary_topic and items.adjacent_topics: ingest classified each entry by topic from its
whole text, and nothing read the result. Papers are judged by ownership from evidence when a
briefing is built (tasks/judge/evidence.py), which needs the paper's own text, not the entry's.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 11:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.drop_column("items", "adjacent_topics")
    op.drop_column("items", "primary_topic")


def downgrade() -> None:
    """Restore the columns (empty: the classifier that filled them is gone)."""
    op.add_column("items", sa.Column("primary_topic", sa.String(length=128), nullable=True))
    op.add_column(
        "items",
        sa.Column("adjacent_topics", postgresql.JSONB(astext_type=sa.Text()), server_default="[]", nullable=False),
    )
