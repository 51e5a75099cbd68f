"""Feed snapshots carry their feed problem: empty, stale or truncated against the feed's own history
(tasks/feeds/health.py), with the numbers behind it; NULL for a healthy snapshot and for files.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 07:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.add_column("sources", sa.Column("feed_problem", postgresql.JSONB(astext_type=sa.Text()), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    op.drop_column("sources", "feed_problem")
