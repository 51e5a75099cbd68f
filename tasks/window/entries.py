"""The items a window reads (its own and its lookback's), as entry views, each stored row version's
large columns fetched once per process.

Consecutive windows of a backfill read mostly the same 30 days of items: fetching and decoding
every row's text and JSON columns again for every window was most of collecting one. A window
now reads its rows' small columns (which rows, their order, time and mentions), then the large
ones only of the row versions this process has not read yet. A row version is named by the
cluster (the postmaster's start time: a restarted or other server names none of the versions
read before), the database, the row's id and its `xmin` (the transaction that wrote this
version: an UPDATE writes a new version with a new `xmin`), so what was cached is exactly what a
fresh read returns, whatever ran before.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, NamedTuple

from sqlalchemy import Text, cast, func, literal_column, or_, select, text, union_all
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from db.models import Item, Mention, Source
from tasks.common.arxiv_ids import issued_by
from tasks.common.sql import any_of
from tasks.common.working_set import WorkingSetCache, fit_window, per_window_item
from tasks.judge.echoes import trim_summaries
from tasks.model.note_facts import read_note_facts
from tasks.model.outline import Outline, PaperOutlines
from tasks.model.window_views import NOTE_KINDS, EntryView
from tasks.model.windows import Window
from tasks.window.undated import UNDATED

__all__ = ["ItemRow", "window_items"]

# Row versions whose large columns are kept, and entry views: at least two windows' worth (a window
# and its lookback hold a few thousand items in a small workspace, tens of thousands in a large one).
_KEPT = 16384
Large = tuple[str, str | None, str | None, str | None, str | None, str | None, str | None]
_large: WorkingSetCache[tuple[Any, ...], Large] = WorkingSetCache(_KEPT)


class ItemRow(NamedTuple):
    id: int
    time: dt.datetime
    entry: EntryView


def window_items(session: Session, versions: Any, since: dt.datetime, window: Window) -> list[ItemRow]:
    """Current items dated in (since, window.end]: all of the window's, and note entries before it,
    each with the canonical ids its well-formed mentions name (in mention order), by (path, ordinal).
    `versions`: the condition on `Source` of the versions in force (`collect.Versions.condition`)."""
    ids = (
        select(func.array_agg(aggregate_order_by(Mention.arxiv_id, Mention.id)))
        .where(Mention.item_id == Item.id, Mention.arxiv_id.is_not(None), Mention.malformed.is_(False))
        .scalar_subquery()
    )

    def dated_by(item_time: Any, *own: Any) -> Any:
        return (
            select(Item.id, cast(literal_column("items.xmin"), Text).label("xmin"), Item.source_id, Source.path,
                   Source.kind, Item.ordinal, Item.label, Item.heading, Item.title,
                   item_time.label("item_time"), ids.label("ids"))
            .join(Source, Source.id == Item.source_id)
            # A verdict is no entry of a window (`tasks.window.verdicts` reads them).
            .where(versions, *own, item_time > since, item_time <= window.end, Source.time_basis != UNDATED,
                   Source.kind != "feedback",
                   or_(item_time > window.start, Source.kind.in_(NOTE_KINDS)))
        )

    # An item's time is its own, else its source's. As one COALESCE across the join no index could
    # serve it (every item was read for every window); as two selects, each is found by its index.
    dated = union_all(dated_by(Item.observed_at), dated_by(Source.observed_at, Item.observed_at.is_(None))).subquery()
    server = tuple(session.execute(text("SELECT pg_postmaster_start_time(), "
                                        "(SELECT oid FROM pg_database WHERE datname = current_database())")).one())
    while True:
        rows = session.execute(select(*dated.c).order_by(dated.c.path, dated.c.ordinal)).all()
        _large.fit(len(rows))
        fit_window(len(rows))  # `_entry`, and what the checks ask of each item's text
        large = _large_columns(session, server, [(r.id, r.xmin) for r in rows])
        if large is not None:
            break
    day = window.date
    return [ItemRow(item_id, when, _entry(source_id, path, kind, ordinal, label, heading, title,
                                          *large[item_id], when, when.tzinfo,
                                          tuple(i for i in item_ids or () if i and issued_by(i, day))))
            for item_id, _, source_id, path, kind, ordinal, label, heading, title, when, item_ids in rows]


def _large_columns(session: Session, server: tuple[Any, ...], rows: list[tuple[int, str]]) -> dict[int, Large] | None:
    """Each row version's large columns by item id, read only for the versions not kept yet; None
    when a row changed since its small columns were read (read committed: each statement sees
    what was committed when it began), so the caller reads the window again."""
    out: dict[int, Large] = {}
    missing: dict[int, str] = {}
    for item_id, xmin in rows:
        kept = _large.get((*server, item_id, xmin))
        if kept is None:
            missing[item_id] = xmin
        else:
            out[item_id] = kept
    if not missing:
        return out
    read = session.execute(
        select(Item.id, cast(literal_column("items.xmin"), Text), Item.text, cast(Item.hedges, Text),
               cast(Item.numbers, Text), cast(Item.extra, Text), cast(Item.outline, Text), cast(Item.cells, Text),
               cast(Item.paper_outlines, Text))
        .where(any_of(Item.id, sorted(missing)))
    ).all()
    for item_id, xmin, *columns in read:
        if missing.get(item_id) != xmin:
            return None
        out[item_id] = tuple(columns)  # type: ignore[assignment]
    for item_id, xmin in missing.items():
        if item_id in out:
            _large.put((*server, item_id, xmin), out[item_id])
    return out if len(out) == len(rows) else None


# Entries by their stored content (every field, the JSON as text), not by id: the same row read
# again gives the same view, whatever happened to the database in between. Consecutive windows
# of a backfill read mostly the same 30 days of entries (twice per date), and decoding their JSON
# and building their views was a third of collecting a window. Views are frozen and never changed.
@per_window_item(_KEPT)
def _entry(source_id: int, path: str, kind: str, ordinal: int, label: str | None, heading: str, title: str | None,
           text: str, hedges: str | None, numbers: str | None, extra: str | None, outline: str | None,
           cells: str | None, paper_outlines: str | None,
           when: dt.datetime, tz: dt.tzinfo | None, ids: tuple[str, ...]) -> EntryView:  # noqa: ARG001 - `tz` keys the cache
    """`tz` is part of the key: equal instants in other time zones compare (and hash) equal."""
    front_matter, note_title = _about_note(extra)
    # A pasted briefing summary is no part of what the note says (tasks.judge.echoes).
    return trim_summaries(EntryView(source_id, path, kind, ordinal, label, heading, title, text,
                     tuple(_json(hedges)), tuple(_json(numbers)), when,
                     tuple(dict.fromkeys(i for i in ids if i)), front_matter,
                     None if outline is None else Outline.from_json(json.loads(outline)),
                     None if cells is None else tuple(str(c) for c in json.loads(cells)),
                     None if paper_outlines is None else PaperOutlines.from_json(json.loads(paper_outlines)),
                     note_title))


def _about_note(extra: str | None) -> tuple[tuple[tuple[str, str], ...], str | None]:
    """The note's front matter and title (`tasks.model.note_facts`), from its JSON text."""
    return ((), None) if not extra or extra == "{}" else read_note_facts(json.loads(extra))


def _json(value: str | None) -> list[Any]:
    """A JSONB column read as text (psycopg's loader detects the encoding of every value's bytes;
    most of these lists are empty); NULL reads as an empty list, as `value or ()` did."""
    if value is None or value == "[]":
        return []
    decoded: list[Any] = json.loads(value)
    return decoded or []
