"""`workspaces.stored_parse`: what ingest stores of an item's text for judging (outlines since 0011,
a queue row's cells since 0012), as numbered by tasks.ingest.reparse.STORED_PARSE, that all of a
workspace's rows carry. Every run looked for rows stored before 0011/0012 by scanning `items` on
two NULL columns, on an unchanged re-ingest too; now it reads this column, and brings a workspace
that is behind up to date once (tasks.ingest.reparse). Workspaces stored before this revision get 0,
so their next run does that once.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04 20:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("workspaces", sa.Column("stored_parse", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    op.drop_column("workspaces", "stored_parse")
