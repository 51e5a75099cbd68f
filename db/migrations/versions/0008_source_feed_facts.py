"""Judged feed snapshots keep the facts their feed problem is judged from (count, listing_day,
expected_day), so the marks can be recomputed from the stored set in date order whatever order the
snapshots were stored in (tasks/feeds/marks.py). Existing snapshots get their facts from their mark
(a stale one was stored without its entries), else from their entries and the day they count on;
their marks are recomputed when their feed next stores a snapshot.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 19:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The feeds' timezones as tasks.feeds.health.FEED_TIMEZONES had them when this revision was written.
_BACKFILL = """
UPDATE sources AS s SET feed_facts = CASE
  WHEN s.feed_problem IS NOT NULL THEN jsonb_build_object(
    'count', (s.feed_problem->>'count')::int, 'listing_day', s.feed_problem->>'listing_day',
    'expected_day', s.feed_problem->>'expected_day')
  ELSE jsonb_build_object(
    'count', (SELECT count(*) FROM items AS i WHERE i.source_id = s.id),
    'listing_day', to_char((s.observed_at AT TIME ZONE
        CASE s.kind WHEN 'hf_daily' THEN 'UTC' ELSE 'America/New_York' END)::date, 'YYYY-MM-DD'),
    'expected_day', to_char((s.observed_at AT TIME ZONE
        CASE s.kind WHEN 'hf_daily' THEN 'UTC' ELSE 'America/New_York' END)::date, 'YYYY-MM-DD'))
  END
WHERE s.kind IN ('hf_daily', 'arxiv_feed') AND s.error IS NULL
"""


def upgrade() -> None:
    """Apply this revision."""
    op.add_column("sources", sa.Column("feed_facts", postgresql.JSONB(astext_type=sa.Text()), nullable=True))
    op.execute(_BACKFILL)


def downgrade() -> None:
    """Revert this revision."""
    op.drop_column("sources", "feed_facts")
