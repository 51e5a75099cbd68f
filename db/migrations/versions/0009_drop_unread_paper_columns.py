"""`papers` keeps what is read: an arXiv lookup's status and title (its history is `paper_lookups`).
The metadata columns (authors, abstract, categories, primary_category, published, updated,
latest_version, doi, journal_ref) were written by every lookup and read by nothing.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 08:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = (
    ("authors", postgresql.JSONB(astext_type=sa.Text()), "[]"),
    ("abstract", sa.Text(), None),
    ("categories", postgresql.JSONB(astext_type=sa.Text()), "[]"),
    ("primary_category", sa.String(64), None),
    ("published", sa.DateTime(timezone=True), None),
    ("updated", sa.DateTime(timezone=True), None),
    ("latest_version", sa.Integer(), None),
    ("doi", sa.Text(), None),
    ("journal_ref", sa.Text(), None),
)


def upgrade() -> None:
    for name, _, _ in _COLUMNS:
        op.drop_column("papers", name)


def downgrade() -> None:
    for name, type_, default in _COLUMNS:
        op.add_column("papers", sa.Column(name, type_, server_default=default, nullable=default is None))
