"""What ingest stores of an item's text for judging, brought up to date for rows stored before.

Judging reads an entry's outline (`items.outline`, since migration 0011) and a queue row's cells
that can name its paper (`items.cells`, since 0012), and parses no text itself. Each is a function
of the row's stored text alone, the one ingest applies to every new version (`tasks.ingest.sources`).
A migration cannot parse, so rows stored before a change to what ingest stores keep what was
stored then (SQL NULL for a column added since). `STORED_PARSE` numbers what ingest stores; a
workspace records the number its rows all carry (`workspaces.stored_parse`, set for a new
workspace as it is created). A run that finds its workspace behind recomputes every row from its
stored text once, superseded versions too (a backfill of an earlier date still reads them), and
records the number; every other run checks one column of one row, so an unchanged re-ingest pays
nothing for it.
"""

from __future__ import annotations

from sqlalchemy import null, select, update
from sqlalchemy.orm import Session

from db.models import Item, Source, Workspace
from tasks.inbox.outline import naming_cells, stored_outline

QUEUE = "work_queue"
# What ingest stores of an item's text for judging: 1, outlines (0011) and a title-less queue
# row's cells (0012). A change to `stored_outline` or `naming_cells` output raises it.
STORED_PARSE = 1
# Rows read per query while bringing a workspace up to date: its memory stays bounded.
FILL_CHUNK_ROWS = 2000


def fill_unparsed(session: Session, workspace_id: int) -> int:
    """Bring a workspace stored by an older ingest up to `STORED_PARSE` (see the module docstring);
    how many rows were changed (0 for a workspace already up to date, without reading a row)."""
    stored = session.execute(select(Workspace.stored_parse).where(Workspace.id == workspace_id)).scalar_one()
    if stored >= STORED_PARSE:
        return 0
    changed = after = 0
    while rows := session.execute(
        select(Item.id, Item.text, Item.title, Item.outline, Item.cells, Source.kind)
        .join(Source, Source.id == Item.source_id)
        .where(Source.workspace_id == workspace_id, Item.id > after)
        .order_by(Item.id).limit(FILL_CHUNK_ROWS)
    ).all():
        bulk = []
        for item_id, text, title, outline, cells, kind in rows:
            wanted = {"outline": None if kind == QUEUE else stored_outline(text).to_json(),
                      "cells": list(naming_cells(text)) if kind == QUEUE and title is None else None}
            differ = {k: v for k, v in wanted.items() if v != {"outline": outline, "cells": cells}[k]}
            if None in differ.values():  # rare; SQL NULL, not JSON null, as ingest writes it
                session.execute(update(Item).where(Item.id == item_id)
                                .values({k: null() if v is None else v for k, v in differ.items()}))
            elif differ:
                bulk.append({"id": item_id, **differ})
            changed += bool(differ)
        if bulk:
            session.execute(update(Item), bulk)  # one executemany per chunk
        after = rows[-1][0]
    session.execute(update(Workspace).where(Workspace.id == workspace_id).values(stored_parse=STORED_PARSE))
    return changed
