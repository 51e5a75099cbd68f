"""Sources carry warnings: what was read with losses or dropped (lossy decoding, an undated name,
ids over the per-source cap, out-of-range numbers), as opposed to `error`, which means unreadable.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 11:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.add_column(
        "sources",
        sa.Column("warnings", postgresql.JSONB(astext_type=sa.Text()), nullable=False, server_default="[]"),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_column("sources", "warnings")
