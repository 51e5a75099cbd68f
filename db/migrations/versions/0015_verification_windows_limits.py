"""`verification_windows.limits`: the caps a window's checks met, per source path (the numbers
check pairs a window source with at most MAX_COMPARED_SOURCES others), stored with the derivation so
that the briefing of a window derived earlier names them too. Rows stored before it hold `{}`; the
derivation's version (tasks.stages.timeline.DERIVATION) changed with it, so they are derived again.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-05 08:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("verification_windows", sa.Column(
        "limits", postgresql.JSONB(astext_type=sa.Text()), server_default="{}", nullable=False))


def downgrade() -> None:
    op.drop_column("verification_windows", "limits")
