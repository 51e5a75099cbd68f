"""`verifications` keeps what was observed; how a verification stands as of a day (pending, stale,
resolved, with its evidence) is read from its events. The status, resolved_on and evidence columns
were a "today" copy written by the staleness check and read by nothing else.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 14:10:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for name in ("status", "resolved_on", "evidence"):
        op.drop_column("verifications", name)


def downgrade() -> None:
    op.add_column("verifications", sa.Column("status", sa.String(16), server_default="pending", nullable=False))
    op.add_column("verifications", sa.Column("resolved_on", sa.Date(), nullable=True))
    op.add_column("verifications", sa.Column("evidence", sa.Text(), nullable=True))
