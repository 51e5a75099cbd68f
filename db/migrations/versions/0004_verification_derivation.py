"""Verifications become a cache of one derivation over the scheduled windows, in date order.

- `sources.modified_at`: the file's mtime when this version was read (its first-seen time is the
  earlier of it and `ingested_at`).
- `verification_windows`: one row per derived (workspace, topic, date), with its fingerprint.
- `verification_events.window_day`: the window that produced an event.
- `paper_lookups`: every arXiv lookup as it was made (a trigger on `papers`, which keeps the latest).
Rows recorded before this revision are cleared and derived again on the next run that needs them.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.execute("DELETE FROM verification_events")
    op.execute("DELETE FROM verifications")
    op.add_column("sources", sa.Column("modified_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("verification_events", sa.Column("window_day", sa.Date(), nullable=False))
    op.create_table(
        "verification_windows",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("topic", sa.String(length=128), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("derived_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"],
                                name=op.f("fk_verification_windows_workspace_id_workspaces"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_verification_windows")),
        sa.UniqueConstraint("workspace_id", "topic", "day", name="uq_verification_windows_day"),
    )


    op.create_table(
        "paper_lookups",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("looked_up_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_paper_lookups")),
        sa.UniqueConstraint("arxiv_id", "looked_up_at", name="uq_paper_lookups_arxiv_id"),
    )
    op.execute("INSERT INTO paper_lookups (arxiv_id, status, title, looked_up_at) "
               "SELECT arxiv_id, status, title, looked_up_at FROM papers")
    op.execute(LOOKUP_TRIGGER_FUNCTION)
    op.execute("CREATE TRIGGER papers_lookup_history AFTER INSERT OR UPDATE OF status, title, looked_up_at "
               "ON papers FOR EACH ROW EXECUTE FUNCTION record_paper_lookup()")


LOOKUP_TRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION record_paper_lookup() RETURNS trigger AS $$
BEGIN
    INSERT INTO paper_lookups (arxiv_id, status, title, looked_up_at)
    VALUES (NEW.arxiv_id, NEW.status, NEW.title, NEW.looked_up_at)
    ON CONFLICT ON CONSTRAINT uq_paper_lookups_arxiv_id DO UPDATE SET status = EXCLUDED.status, title = EXCLUDED.title;
    RETURN NEW;
END
$$ LANGUAGE plpgsql
"""


def downgrade() -> None:
    """Revert this revision."""
    op.execute("DROP TRIGGER IF EXISTS papers_lookup_history ON papers")
    op.execute("DROP FUNCTION IF EXISTS record_paper_lookup()")
    op.drop_table("paper_lookups")
    op.drop_table("verification_windows")
    op.drop_column("verification_events", "window_day")
    op.drop_column("sources", "modified_at")
