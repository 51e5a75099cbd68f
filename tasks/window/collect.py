"""Read what a briefing needs from Postgres, as of its cutoff: window sources, mentions, anchors, cards.

Rows are read with Core selects of the columns used (plain tuples, no ORM identity map or
instances): a window reads thousands of items, and building ORM objects for them cost more than
the queries. The views themselves live in `tasks.model.window_views`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from db.models import ArxivLookup, Item, Mention, PaperCard, QueueEntry, Source
from tasks.common.arxiv_ids import issued_by
from tasks.common.limits import limited
from tasks.common.sql import any_of
from tasks.config.topics import no_document
from tasks.inbox.feedback_file import feedback_path
from tasks.model.window_views import (
    NOTE_KINDS,
    CardView,
    MentionView,
    PaperLookup,
    SourceView,
    WindowData,
)
from tasks.model.windows import Window
from tasks.window.anchors import BaselineUnreadable, NoBaseline, knowledge_in_force, unreadable_baseline
from tasks.window.entries import ItemRow, window_items
from tasks.window.undated import UNDATED, undated_sources, unlistable_folders
from tasks.window.verdicts import FEEDBACK, reader_verdicts

__all__ = ["FIRST_SEEN", "LOOKBACK_DAYS", "Versions", "add_lookups", "collect_window", "versions_at"]

# How far back earlier windows are read for names seen before and numbers to compare with.
LOOKBACK_DAYS = 30


class Versions(NamedTuple):
    """Which stored versions a window reads: per path the one in force at the cutoff."""

    workspace_id: int
    not_in_force: tuple[int, ...]  # source ids of other versions of paths stored more than once
    later_only: dict[int, dt.datetime]  # in force although first seen after the cutoff: id -> first seen

    def condition(self) -> Any:
        if not self.not_in_force:
            return Source.workspace_id == self.workspace_id
        return and_(Source.workspace_id == self.workspace_id, ~any_of(Source.id, self.not_in_force))


# When predigest first saw a version: when it was stored, or the file's mtime then if earlier
# (the daily run ingests just after its cutoff what was written before it).
FIRST_SEEN = func.least(Source.ingested_at, func.coalesce(Source.modified_at, Source.ingested_at))


def versions_at(session: Session, workspace_id: int, cutoff: dt.datetime) -> Versions:
    """Per path stored in several versions, the one in force at `cutoff`: the last first seen by
    then, else (only later versions exist) the earliest, which the briefing then flags."""
    # A path stored in several versions has a superseded one (ingest marks the version it replaces):
    # found without grouping every source, and usually there is none.
    several = select(Source.path).where(Source.workspace_id == workspace_id, Source.superseded_at.is_not(None))
    if session.execute(select(several.exists())).scalar_one() is False:
        return Versions(workspace_id, (), {})
    rows = session.execute(
        select(Source.id, Source.path, FIRST_SEEN).where(Source.workspace_id == workspace_id,
                                                        Source.path.in_(several))
        .order_by(Source.path, FIRST_SEEN, Source.id)
    ).all()
    by_path: dict[str, list[tuple[int, dt.datetime]]] = {}
    for source_id, path, seen in rows:
        by_path.setdefault(path, []).append((source_id, seen))
    excluded: list[int] = []
    later: dict[int, dt.datetime] = {}
    for versions in by_path.values():
        seen_by = [v for v in versions if v[1] <= cutoff]
        chosen = seen_by[-1] if seen_by else versions[0]
        if not seen_by:
            later[chosen[0]] = chosen[1]
        excluded += [source_id for source_id, _ in versions if source_id != chosen[0]]
    return Versions(workspace_id, tuple(sorted(excluded)), later)


def collect_window(session: Session, workspace_id: int, topic: str, window: Window, schedule: str) -> WindowData:
    """Everything dated inside (window.start, window.end], plus the knowledge document in force;
    of a file stored in several versions, the one in force at the cutoff (`versions_at`).
    `schedule`: the topic's (which dates the reader verdicts can answer)."""
    data = WindowData(window)
    versions = versions_at(session, workspace_id, window.end)
    since = window.start - dt.timedelta(days=LOOKBACK_DAYS)
    # One read of the items for the window and the lookback before it, shared by the window's
    # sources, mentions, entries and history (each its own query, they read the items four times).
    rows = window_items(session, versions.condition(), since, window)
    in_window = [r for r in rows if r.time > window.start]

    # A source is in the window if it is dated there, or (queue, cards) has an entry dated there, or
    # it is the card of a paper the window names: the briefing reads the card of what it discusses.
    named = sorted({i for r in in_window for i in r.entry.ids})
    cards_named = select(PaperCard.source_id).where(any_of(PaperCard.arxiv_id, named))
    source_rows = session.execute(
        select(Source.id, Source.path, Source.kind, Source.author, Source.observed_at, Source.time_basis,
               Source.error, Source.warnings, Source.feed_problem)
        .where(versions.condition(), Source.kind != "knowledge", Source.time_basis != UNDATED)
        # Another topic's feedback file says nothing about this one.
        .where(or_(Source.kind != FEEDBACK, Source.path == feedback_path(topic)))
        .where(
            or_(
                and_(Source.observed_at > window.start, Source.observed_at <= window.end),
                any_of(Source.id, sorted({r.entry.source_id for r in in_window})),
                and_(Source.kind == "paper_card", Source.observed_at <= window.end, Source.id.in_(cards_named)),
            )
        )
        .order_by(Source.path)
    )
    data.sources = [SourceView(r.id, r.path, r.kind, r.author, r.observed_at, r.time_basis, r.error,
                               later_version=versions.later_only.get(r.id), limits=limited(r.warnings),
                               feed_problem=r.feed_problem)
                    for r in source_rows]
    data.undated, data.undated_count = undated_sources(session, versions.condition(), FIRST_SEEN, window)
    data.unlistable = unlistable_folders(session, versions.condition(), FIRST_SEEN, window)
    data.verdicts, data.refused_verdicts, data.verdicts_recorded = reader_verdicts(
        session, versions.condition(), topic, window, schedule)

    data.mentions = _mentions(session, in_window, window.date)
    data.entries = [r.entry for r in in_window]
    data.history = [r.entry for r in rows if r.time <= window.start and r.entry.kind in NOTE_KINDS]
    _mention_history(session, versions, data)

    unreadable = unreadable_baseline(session, workspace_id, topic, window.end)
    if unreadable is not None:
        raise BaselineUnreadable(f"cannot read the knowledge document {unreadable}; no {topic} briefing is "
                                 "published against an unreadable baseline (fix or restore the file, then run again)")
    data.knowledge = knowledge_in_force(session, workspace_id, topic, window.end)
    if data.knowledge is None:
        raise NoBaseline(no_document(topic))

    card_rows = session.execute(
        select(PaperCard.arxiv_id, Source.path, PaperCard.title, PaperCard.primary_category, PaperCard.secondary,
               PaperCard.created_on, PaperCard.votes)
        .join(Source, Source.id == PaperCard.source_id)
        .where(versions.condition(), PaperCard.arxiv_id.is_not(None), Source.observed_at <= window.end,
               Source.time_basis != UNDATED)
        .order_by(Source.path)
    )
    for arxiv_id, path, title, primary, secondary, created_on, votes in card_rows:
        if arxiv_id is None or not issued_by(arxiv_id, window.date):
            continue
        data.cards.setdefault(arxiv_id, []).append(CardView(
            arxiv_id, path, title, primary, tuple(secondary or ()), created_on, votes,
        ))
    queue_rows = session.execute(
        select(QueueEntry.arxiv_id, QueueEntry.primary_category, QueueEntry.secondary_category)
        .join(Source, Source.id == QueueEntry.source_id)
        .where(versions.condition(), QueueEntry.arxiv_id.is_not(None), QueueEntry.snapshot_at <= window.end)
        .order_by(QueueEntry.snapshot_at, QueueEntry.rank)
    ).all()
    for arxiv_id, primary, secondary in queue_rows:
        if arxiv_id is None:
            continue
        data.queue_categories.setdefault(arxiv_id, []).append((primary, secondary))
    return data


def _mentions(session: Session, items: list[ItemRow], day: dt.date) -> list[MentionView]:
    """The mentions of the window's items, by (path, ordinal, mention id). An id that could not
    exist by `day` (a new-style YYMM after the briefing's month) is malformed for this briefing."""
    by_id = {r.id: r for r in items}
    if not by_id:
        return []
    found = session.execute(
        select(Mention.id, Mention.item_id, Mention.arxiv_id, Mention.raw, Mention.malformed, Mention.context)
        .where(any_of(Mention.item_id, sorted(by_id)))
    ).all()
    ordered = sorted(found, key=lambda m: (by_id[m.item_id].entry.path, by_id[m.item_id].entry.ordinal, m.id))
    out = []
    for _, item_id, arxiv_id, raw, malformed, context in ordered:
        unissued = arxiv_id is not None and not issued_by(arxiv_id, day)  # read as malformed, without its id
        e = by_id[item_id].entry
        if e.echoed and arxiv_id is not None and arxiv_id not in e.id_set and arxiv_id in e.echoed:
            continue  # named only in a pasted briefing summary (tasks.judge.echoes)
        out.append(MentionView(
            source_id=e.source_id, path=e.path, kind=e.kind, item_ordinal=e.ordinal, label=e.label,
            heading=e.heading, title=e.title, arxiv_id=None if unissued else arxiv_id, raw=raw,
            malformed=True if unissued else malformed, context=context,
            item_time=by_id[item_id].time, hedges=e.hedges, cells=e.cells,
        ))
    return out


def _mention_history(session: Session, versions: Versions, data: WindowData) -> None:
    """Days each window id was mentioned up to the cutoff, and its arXiv lookup if made by then."""
    window_ids = sorted({m.arxiv_id for m in data.mentions if m.arxiv_id and not m.malformed})
    if not window_ids:
        return
    # The ids' mentions, their items, then those items' sources, each by its index, with the join
    # done here: as one join, the planner (without statistics) reads every current item instead.
    named = session.execute(
        select(Mention.item_id, Mention.arxiv_id).where(any_of(Mention.arxiv_id, window_ids))
    ).all()
    items = session.execute(
        select(Item.id, Item.source_id, Item.observed_at).where(any_of(Item.id, sorted({i for i, _ in named})))
    ).all() if named else []
    sources = dict(session.execute(
        select(Source.id, Source.observed_at)
        .where(any_of(Source.id, sorted({source_id for _, source_id, _ in items})), versions.condition(),
               Source.kind != "knowledge", Source.time_basis != UNDATED)
    ).tuples().all()) if items else {}
    times: dict[int, dt.datetime] = {}
    for item_id, source_id, observed_at in items:
        when = observed_at if observed_at is not None else sources.get(source_id)
        if source_id in sources and when is not None and when <= data.window.end:
            times[item_id] = when
    days: dict[str, set[dt.date]] = {}
    tz = data.window.tz
    for item_id, arxiv_id in named:
        when = times.get(item_id)
        if arxiv_id and when is not None:
            days.setdefault(arxiv_id, set()).add(when.astimezone(tz).date())
    # By id: rows come back in no particular order, and the judgment must not depend on it.
    data.mention_days = {k: tuple(sorted(days[k])) for k in sorted(days)}
    add_lookups(session, data, window_ids)


def add_lookups(session: Session, data: WindowData, ids: Sequence[str]) -> None:
    """The latest arXiv lookup of each of `ids` made by the cutoff (a later one does not exist yet for
    this window; `papers` keeps only the latest, its history has them all)."""
    wanted = sorted(set(ids) - set(data.lookups))
    if not wanted:
        return
    rows = session.execute(
        select(ArxivLookup.arxiv_id, ArxivLookup.status, ArxivLookup.title, ArxivLookup.looked_up_at)
        .where(any_of(ArxivLookup.arxiv_id, wanted), ArxivLookup.looked_up_at <= data.window.end)
        .order_by(ArxivLookup.arxiv_id, ArxivLookup.looked_up_at.desc()).distinct(ArxivLookup.arxiv_id)
    )
    data.lookups.update({arxiv_id: PaperLookup(arxiv_id, status, title, when) for arxiv_id, status, title, when in rows})
