"""`items.paper_outlines`: the outlines of the joined texts that are one paper's own in a note entry
(the entry with the sub-sections under its heading; a digest's units naming the paper), parsed once
at ingest (tasks.inbox.own_parts). Judging parsed each of them again, every evening, per paper.

A migration cannot parse: rows stored before it keep NULL, and the next ingest run fills them in
from their stored text (tasks.ingest.reparse, STORED_PARSE 2).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04 21:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("items", sa.Column("paper_outlines", postgresql.JSONB(astext_type=sa.Text()), nullable=True))


def downgrade() -> None:
    op.drop_column("items", "paper_outlines")
