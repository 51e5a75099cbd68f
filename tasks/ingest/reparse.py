"""What ingest stores of an item's text for judging, brought up to date for rows stored before.

Judging reads what ingest parsed (`items.outline`, `items.cells`, `items.paper_outlines`) and parses
no text itself. A migration cannot parse, so rows stored before a change to what ingest stores
keep what was stored then. `STORED_PARSE` numbers what ingest stores and each workspace records
the number its rows carry (`workspaces.stored_parse`): a run that finds its workspace behind
recomputes every row once (superseded versions too) and records the number; any other run checks
one column of one row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, func, null, select, tuple_, update
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from db.models import Item, Mention, Source, Workspace
from tasks.common.limits import CAPPED
from tasks.inbox.outline_reader import naming_cells, stored_outline
from tasks.inbox.own_parts import paper_outlines
from tasks.ingest.sources import WHOLE_ITEMS, entry_text

QUEUE = "work_queue"
# What ingest stores of an item's text for judging: 1, outlines (0011) and a title-less queue
# row's cells (0012); 2, a note entry's papers' own joined texts' outlines (0014) and an outline's
# blocks' line spans; 3, the blocks and list items from the note's one parse (`tasks.inbox.document`); 4, outlines
# read from that tree, stored with its code, table rows, headings and labels. A change to `stored_outline`,
# `naming_cells` or `paper_outlines` output raises it.
STORED_PARSE = 4
# Rows read per query while bringing a workspace up to date: its memory stays bounded (a source's
# rows are computed together, its papers' own texts read its later entries: a chunk ends at a source).
FILL_CHUNK_ROWS = 2000
COLUMNS = ("outline", "cells", "paper_outlines")


def fill_unparsed(session: Session, workspace_id: int) -> int:
    """Bring a workspace stored by an older ingest up to `STORED_PARSE` (see the module docstring);
    how many rows were changed (0 for a workspace already up to date, without reading a row)."""
    stored = session.execute(select(Workspace.stored_parse).where(Workspace.id == workspace_id)).scalar_one()
    if stored >= STORED_PARSE:
        return 0
    ids = (select(func.array_agg(aggregate_order_by(Mention.arxiv_id, Mention.id)))
           .where(Mention.item_id == Item.id, Mention.arxiv_id.is_not(None), Mention.malformed.is_(False))
           .scalar_subquery())
    changed, after = 0, (0, -1)
    carried: list[Row[Any]] = []
    while True:
        chunk = session.execute(
            select(Item.source_id, Item.ordinal, Item.id, Item.heading, Item.text, Item.title, Item.outline, Item.cells,
                   Item.paper_outlines, Source.kind, ids.label("ids"))
            .join(Source, Source.id == Item.source_id)
            .where(Source.workspace_id == workspace_id, tuple_(Item.source_id, Item.ordinal) > after)
            .order_by(Item.source_id, Item.ordinal).limit(FILL_CHUNK_ROWS)
        ).all()
        if not chunk:
            break
        after = (chunk[-1].source_id, chunk[-1].ordinal)
        rows = [*carried, *chunk]
        # The last source may go on in the next chunk: its rows wait for the rest of it.
        last = rows[-1].source_id
        carried = [r for r in rows if r.source_id == last]
        changed += _fill(session, [r for r in rows if r.source_id != last])
    changed += _fill(session, carried)
    session.execute(update(Workspace).where(Workspace.id == workspace_id).values(stored_parse=STORED_PARSE))
    return changed


def _fill(session: Session, rows: Sequence[Row[Any]]) -> int:
    """Recompute whole sources' rows (in source, ordinal order); how many changed."""
    bulk, changed = [], 0
    by_source: dict[int, list[Row[Any]]] = {}
    for r in rows:
        by_source.setdefault(r.source_id, []).append(r)
    for source_id, items in by_source.items():
        kind = items[0].kind
        warnings: list[str] = []
        papers = ([None] * len(items) if kind in WHOLE_ITEMS else
                  paper_outlines([entry_text(r.heading, r.text, r.ids or ()) for r in items], warnings))
        for r, paper in zip(items, papers, strict=True):
            wanted = {"outline": None if kind == QUEUE else stored_outline(r.text).to_json(),
                      "cells": list(naming_cells(r.text)) if kind == QUEUE and r.title is None else None,
                      "paper_outlines": None if paper is None else paper.to_json()}
            differ = {k: v for k, v in wanted.items() if v != getattr(r, k)}
            if None in differ.values():  # rare; SQL NULL, not JSON null, as ingest writes it
                session.execute(update(Item).where(Item.id == r.id)
                                .values({k: null() if v is None else v for k, v in differ.items()}))
            elif differ:
                bulk.append({"id": r.id, **differ})
            changed += bool(differ)
        _warn(session, source_id, warnings)
    if bulk:
        session.execute(update(Item), bulk)  # one executemany per chunk
    return changed


def _warn(session: Session, source_id: int, warnings: list[str]) -> None:
    """A source whose papers' own texts pass their cap says so, as a fresh ingest's does (once)."""
    if not warnings:
        return
    stored = session.execute(select(Source.warnings).where(Source.id == source_id)).scalar_one() or []
    added = [w for w in warnings if w.startswith(CAPPED) and w not in stored]
    if added:
        session.execute(update(Source).where(Source.id == source_id).values(warnings=[*stored, *added]))
