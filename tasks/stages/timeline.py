"""The windows a topic's verifications are derived over, each with the fingerprint of what the
derivation up to it reads.

A window reads only what is dated by its cutoff, so the fingerprint of a date is a running hash, in
time order, of what is stored with times up to that date's cutoff. When a derived window's stored
fingerprint differs from today's, something it read changed (a note, a lookup, a topic's
vocabulary, this code): that window and every later one are derived again (`tasks.stages.derive`).
Each stored version enters the hash at the earliest time it can matter to a window (see
`_entries`); entering earlier than needed only costs a recomputation, never a wrong answer.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from db.models import ArxivLookup, Item, Source
from tasks.config.topics import Topic
from tasks.model.windows import ScheduleError, Window, window_for
from tasks.window.collect import FIRST_SEEN


@lru_cache(maxsize=1)
def derivation_code() -> str:
    """A digest of the code and data that decide what a derivation records (every module and TOML
    file of the `tasks` package): a new version of predigest derives every stored window again,
    with no number for a person to remember to bump."""
    root = Path(__file__).resolve().parents[1]  # the tasks package
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml") and p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class DerivedWindow:
    """One window of the derivation: its date, bounds and the fingerprint of everything up to it."""

    day: dt.date
    window: Window
    fingerprint: str


def _scheduled(topic: Topic, day: dt.date) -> Window | None:
    try:
        return window_for(day, topic.schedule, topic.timezone)
    except ScheduleError:
        return None


def _entries(session: Session, workspace_id: int, topic: str) -> tuple[list[tuple[dt.datetime, str]], list[str]]:
    """(time it enters the hash, what enters) for every stored version and lookup, and what always enters.
    The earliest time each can matter to a window: a path's first version (by first-seen time) from
    its dated time (its own, or its earliest entry's); a later version from its first-seen time, or
    its dated time when the first version was first seen after that; a topic's oldest knowledge
    document always (`knowledge_in_force` falls back to it), the others from their header's time;
    an arXiv lookup from when it was made."""
    own_times = (
        select(Item.source_id, func.min(Item.observed_at).label("first"))
        .where(Item.observed_at.is_not(None)).group_by(Item.source_id).subquery()
    )
    rows = session.execute(
        select(Source.id, Source.path, Source.kind, Source.sha256, Source.observed_at, FIRST_SEEN, own_times.c.first)
        .outerjoin(own_times, own_times.c.source_id == Source.id)
        .where(Source.workspace_id == workspace_id)
        .order_by(Source.path, FIRST_SEEN, Source.id)
    ).all()
    entries: list[tuple[dt.datetime, str]] = []
    always: list[str] = []
    first_of: dict[str, tuple[dt.datetime, dt.datetime]] = {}  # path -> (dated, first seen) of its first version
    knowledge: list[tuple[dt.datetime, int, str]] = []
    for source_id, path, kind, sha256, observed_at, seen, first_entry in rows:
        dated = min(observed_at, first_entry) if first_entry is not None else observed_at
        what = f"source\t{kind}\t{path}\t{sha256}\t{observed_at.isoformat()}\t{seen.isoformat()}"
        if kind == "knowledge":
            knowledge.append((observed_at, source_id, what))
            continue
        if path not in first_of:
            first_of[path] = (dated, seen)
            at = dated
        else:
            at = min(seen, dated) if dated < first_of[path][1] else seen
        entries.append((at, what))
    mine = sorted(k for k in knowledge if k[2].split("\t")[2] == f"organized/knowledge/{topic}.md")
    for observed_at, _, what in sorted(knowledge):
        if mine and what == mine[0][2]:
            always.append(what)
        else:
            entries.append((observed_at, what))
    for arxiv_id, status, title, looked_up_at in session.execute(
        select(ArxivLookup.arxiv_id, ArxivLookup.status, ArxivLookup.title, ArxivLookup.looked_up_at)
    ):
        entries.append((looked_up_at, f"lookup\t{arxiv_id}\t{status}\t{title}\t{looked_up_at.isoformat()}"))
    entries.sort()
    return entries, always


def _activity(session: Session, workspace_id: int) -> list[dt.datetime]:
    """Every time something is dated at (sources, entries with a time of their own, lookups), sorted:
    a window holding none of them observes nothing and is skipped."""
    times = [t for (t,) in session.execute(
        select(Source.observed_at).where(Source.workspace_id == workspace_id, Source.kind != "knowledge").distinct())]
    times += [t for (t,) in session.execute(
        select(Item.observed_at).join(Source, Source.id == Item.source_id)
        .where(Source.workspace_id == workspace_id, Item.observed_at.is_not(None)).distinct()) if t is not None]
    times += [t for (t,) in session.execute(select(ArxivLookup.looked_up_at).distinct())]
    return sorted(times)


def timeline(session: Session, workspace_id: int, topic: Topic, known: list[str], through: dt.date) -> list[DerivedWindow]:
    """The topic's scheduled windows up to `through` that hold anything, oldest first, with fingerprints."""
    activity = _activity(session, workspace_id)
    if not activity:
        return []
    entries, always = _entries(session, workspace_id, topic.name)
    digest = hashlib.sha256()
    base = [derivation_code(), repr(topic), repr(sorted(known)), *always]  # the repr of a topic names its whole configuration
    digest.update("\n".join(base).encode())
    out: list[DerivedWindow] = []
    tz = ZoneInfo(topic.timezone)
    day = activity[0].astimezone(tz).date()
    fed = 0
    active = 0
    while day <= through:
        window = _scheduled(topic, day)
        day += dt.timedelta(days=1)
        if window is None:
            continue
        while active < len(activity) and activity[active] <= window.start:
            active += 1
        if active == len(activity):
            break  # nothing dated after this window's start: no later window holds anything
        if activity[active] > window.end:
            # Nothing in this window: the next one holding anything is that of the next time's date or later.
            day = max(day, activity[active].astimezone(tz).date())
            continue
        while fed < len(entries) and entries[fed][0] <= window.end:
            digest.update(b"\n" + entries[fed][1].encode())
            fed += 1
        out.append(DerivedWindow(window.date, window, digest.copy().hexdigest()))
    return out
