"""`items.cells`: a queue row's cells that can name its paper, stored at ingest for a row whose
title column was not recognised (tasks.inbox.outline_reader.naming_cells). Judging took the title from
the row's first such cell that is not one of the paper's categories, and split the row's stored
text into cells again, every evening, for every such row.

A migration cannot parse: rows stored before it keep NULL, and the next ingest run fills them in
from their stored text (tasks.ingest.reparse), as it fills in the outline of rows stored before 0011.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04 01:20:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("items", sa.Column("cells", postgresql.JSONB(astext_type=sa.Text()), nullable=True))


def downgrade() -> None:
    op.drop_column("items", "cells")
