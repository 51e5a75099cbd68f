"""Contract of migration 0012 (`items.cells`): a database at 0011 keeps every row, each with NULL
cells; the next look for changed files (tasks.ingest.reparse) stores what a fresh ingest would: a
title-less queue row's cells, and the outline of an entry stored before 0011 without one.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from db.engine import make_engine, upgrade_database
from db.models import Item
from tasks.inbox.outline_reader import naming_cells, stored_outline
from tasks.ingest.reparse import fill_unparsed

OLD = "- FooServe arXiv:2611.00001\n- 2.1× on H100\n"  # stored before 0011: no outline
NEW = "一段话。\n\n第二段。"
ROW = "| 3 | arXiv:2611.00001 | rag | PagedFlux | 新入队 |"


def test_cells_start_null_then_rows_are_filled_once(database_factory: Callable[[str], str]) -> None:
    engine = make_engine(database_factory("predigest_items_cells"), pool_size=1)
    try:
        upgrade_database(engine, "0011")
        with engine.begin() as conn:
            ws = conn.execute(text("INSERT INTO workspaces (root) VALUES ('/ws') RETURNING id")).scalar_one()
            items = []
            for k, (path, kind, body, outline) in enumerate([
                ("inbox/a/n.md", "note", OLD, None),
                ("inbox/a/m.md", "note", NEW, stored_outline(NEW).to_json()),
                ("organized/queue/work-queue.md", "work_queue", ROW, None),
            ]):
                source = conn.execute(text(
                    "INSERT INTO sources (workspace_id, path, kind, sha256, size, observed_at, time_basis)"
                    " VALUES (:w, :p, :k, :h, 0, now(), 'filename') RETURNING id"),
                    {"w": ws, "p": path, "k": kind, "h": f"{k:064d}"}).scalar_one()
                items.append(conn.execute(text(
                    "INSERT INTO items (source_id, ordinal, heading, text, numbers, hedges, links, outline)"
                    " VALUES (:s, 0, 'h', :t, '[]', '[]', '[]', CAST(:o AS jsonb)) RETURNING id"),
                    {"s": source, "t": body, "o": None if outline is None else json.dumps(outline)}).scalar_one())
        upgrade_database(engine)
        old, new, queue = items

        def stored() -> dict[int, tuple[object, object]]:
            with Session(engine) as session:
                return {i: (o, c) for i, o, c in session.execute(select(Item.id, Item.outline, Item.cells))}

        assert stored() == {old: (None, None), new: (stored_outline(NEW).to_json(), None), queue: (None, None)}
        with Session(engine) as session, session.begin():
            assert fill_unparsed(session, ws) == 2
        assert stored() == {old: (stored_outline(OLD).to_json(), None), new: (stored_outline(NEW).to_json(), None),
                            queue: (None, list(naming_cells(ROW)))}
        with Session(engine) as session, session.begin():
            assert fill_unparsed(session, ws) == 0  # once
    finally:
        engine.dispose()
