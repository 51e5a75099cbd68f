"""`items.outline`: an entry's outline, parsed once at ingest (tasks.inbox.outline_reader.stored_outline)
and read by judging, which parsed every judged entry's text again every evening. `items.key_points`
goes: a second reading of the same list items (tasks.inbox.claims.key_points), read in one place,
which now reads the outline's items.

A migration cannot parse: rows stored before it keep NULL, and judging parses their text as before
(tasks.judge.points); a file's next version, or a new workspace, is stored with its outline.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 14:10:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("items", sa.Column("outline", postgresql.JSONB(astext_type=sa.Text()), nullable=True))
    op.drop_column("items", "key_points")


def downgrade() -> None:
    op.add_column("items", sa.Column("key_points", postgresql.JSONB(astext_type=sa.Text()), server_default="[]",
                                     nullable=False))
    op.drop_column("items", "outline")
