"""What ingest stores of an item's text for judging, filled in for rows stored before it did.

Judging reads an entry's outline (`items.outline`, since migration 0011) and a queue row's cells
that can name its paper (`items.cells`, since 0012), and parses no text itself. A migration cannot
parse, so rows stored before those columns keep NULL. Each is a function of the row's stored text
alone, the one ingest applies to every new version (`tasks.ingest.sources`), so they are filled in
here from that text, once, as a run looks for changed files: superseded versions too, which a
backfill of an earlier date still reads.
"""

from __future__ import annotations

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session

from db.models import Item, Source
from tasks.inbox.outline import naming_cells, stored_outline

QUEUE = "work_queue"


def fill_unparsed(session: Session, workspace_id: int) -> int:
    """Store the outline of each of the workspace's items that lacks one (a queue row has none), and
    the cells of each queue row without a title that lacks them; how many rows were filled."""
    rows = session.execute(
        select(Item.id, Item.text, Source.kind)
        .join(Source, Source.id == Item.source_id)
        .where(Source.workspace_id == workspace_id,
               or_(and_(Source.kind != QUEUE, Item.outline.is_(None)),
                   and_(Source.kind == QUEUE, Item.title.is_(None), Item.cells.is_(None))))
    ).all()
    outlines = [{"id": i, "outline": stored_outline(text).to_json()} for i, text, kind in rows if kind != QUEUE]
    cells = [{"id": i, "cells": list(naming_cells(text))} for i, text, kind in rows if kind == QUEUE]
    for values in (outlines, cells):
        if values:
            session.execute(update(Item), values)
    return len(rows)
