"""Verifications in Postgres: record a window's observations idempotently, and read them (and how
they stand) as of a day. Which windows are recorded, and in
what order, is `tasks.stages.derive`'s business."""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Date, Integer, column, func, select, update, values
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from db.models import Verification, VerificationEvent, VerificationWindow
from tasks.common.item_keys import pending_key
from tasks.common.sql import plain_rows
from tasks.verify.status import FIRST_CARRIED, Event, Observation, Tracked, detail_text, status_as_of


def load_tracked(session: Session, workspace_id: int, topic: str, day: dt.date) -> list[Tracked]:
    """Every verification of the topic with its events dated on or before `day`."""
    # Read twice a date by a backfill (recording, rendering), the whole history each time: plain tuples.
    rows = plain_rows(session, (
        select(Verification.key, Verification.kind, Verification.subject, VerificationEvent.day,
               VerificationEvent.action, VerificationEvent.source_path, VerificationEvent.detail)
        .join(VerificationEvent, VerificationEvent.verification_id == Verification.id)
        .where(Verification.workspace_id == workspace_id, Verification.topic == topic, VerificationEvent.day <= day)
        .order_by(Verification.key, VerificationEvent.day, VerificationEvent.action, VerificationEvent.source_path)
    ))
    grouped: dict[tuple[str, str, str], list[Event]] = defaultdict(list)
    for key, kind, subject, when, action, path, detail in rows:
        grouped[(key, kind, subject)].append(Event(when, action, path, detail or ""))
    return [Tracked(key, kind, subject, tuple(events)) for (key, kind, subject), events in grouped.items()]


def load_window_limits(session: Session, workspace_id: int, topic: str, day: dt.date) -> dict[str, list[str]]:
    """The caps the stored derivation of the topic's window of `day` met, per source path ({} when
    that window is not stored)."""
    limits = session.execute(select(VerificationWindow.limits).where(
        VerificationWindow.workspace_id == workspace_id, VerificationWindow.topic == topic,
        VerificationWindow.day == day)).scalar_one_or_none()
    return {str(path): [str(w) for w in warnings] for path, warnings in (limits or {}).items()}


def lookup_subjects(tracked: Sequence[Tracked]) -> list[str]:
    """Ids whose arXiv lookup raised a verification: a later lookup may resolve them."""
    return sorted({t.subject for t in tracked if t.kind in ("unknown_id", "title_mismatch")})


# Rows per IN list read back.
_CHUNK = 1000
# Inserted through the tables (Core executemany, rows sent in batches in order), not the ORM classes.
_VERIFICATIONS = Verification.metadata.tables["verifications"]
_EVENTS = VerificationEvent.metadata.tables["verification_events"]


def record(
    session: Session, workspace_id: int, topic: str, observations: Sequence[Observation], window_day: dt.date
) -> dict[str, int]:
    """Store the observations of the window of `window_day`; re-recording the same window adds no
    rows. Returns counts of new rows.

    Observations are taken in (key, day, action, source_path) order: one batched `INSERT … ON
    CONFLICT DO NOTHING` of a row per observation for the verifications (rows go in order and each
    takes one id from the sequence; a later row of a key is skipped like a conflict), one read of
    the raised and seen events already stored, the raised/seen decisions made here against those
    plus the ones made earlier in the batch, one UPDATE of raised_on/last_seen, and one batched
    insert of the events.

    A window observes again every source of a contradiction its lookback still holds, so storing
    each such sighting made a verification's events grow with its sources times the windows, and
    every later window read them all back. A sighting adds nothing to what any day's view shows
    (`status_as_of`: its sources in order of their first sighting, raised_on, last_seen, the first
    event's text and the first advice and risk) when the source was seen on an earlier day, the
    verification already has an event that day, and the advice and risk it carries are empty or the
    verification's first event has them too: such a sighting is not stored (`_Sightings.redundant`).
    """
    count = select(func.count()).select_from(Verification).where(
        Verification.workspace_id == workspace_id, Verification.topic == topic)
    before = session.execute(count).scalar_one()
    ordered = sorted(observations, key=lambda o: (o.key, o.day, o.action, o.source_path))
    ids = _verification_ids(session, workspace_id, topic, ordered)
    said = _said(session, list(ids.values()))
    sightings = {vid: _Sightings.of(events) for vid, events in said.items()}
    firsts = _first_details(session, list(said))
    spans: dict[int, tuple[dt.date, dt.date]] = {}  # raised_on / last_seen bounds to apply, per verification
    events: list[dict[str, Any]] = []
    for obs in ordered:
        vid, action = ids[obs.key], obs.action
        if action == "raised":
            seen = sightings.setdefault(vid, _Sightings())
            if (obs.day, obs.source_path) in seen.said:
                continue  # this source already said so that day (as raised or seen)
            action = "seen" if seen.first_day is not None and seen.first_day < obs.day else "raised"
            lo, hi = spans.get(vid, (obs.day, obs.day))
            spans[vid] = (min(lo, obs.day), max(hi, obs.day))
            place, carries = (obs.day, action, obs.source_path), _fields(obs.detail)
            first = firsts.get(vid)
            redundant = seen.redundant(obs.day, obs.source_path) and first is not None and all(
                has or not wanted for has, wanted in zip(first[1], carries, strict=True))
            seen.add(obs.day, obs.source_path)
            if redundant:
                continue
            if first is None or place < first[0]:
                firsts[vid] = (place, carries)
        events.append({"verification_id": vid, "day": obs.day, "action": action, "source_path": obs.source_path,
                       "detail": detail_text(obs.detail), "window_day": window_day})
    if spans:
        bounds = values(column("vid", Integer), column("lo", Date), column("hi", Date), name="bounds").data(
            [(vid, lo, hi) for vid, (lo, hi) in sorted(spans.items())])
        session.execute(
            update(Verification).where(Verification.id == bounds.c.vid).values(
                raised_on=func.least(Verification.raised_on, bounds.c.lo),
                last_seen=func.greatest(Verification.last_seen, bounds.c.hi))
        )
    new_events = len(session.execute(
        insert(_EVENTS).on_conflict_do_nothing(constraint="uq_verification_events_obs").returning(_EVENTS.c.id),
        events,
    ).all()) if events else 0
    after = session.execute(count).scalar_one()
    return {"observations": len(observations), "new_verifications": after - before, "new_events": new_events}


def _verification_ids(
    session: Session, workspace_id: int, topic: str, ordered: Sequence[Observation]
) -> dict[str, int]:
    """The id of each observation's verification, inserting those not stored yet (first observation wins)."""
    rows = [{"workspace_id": workspace_id, "topic": topic, "key": obs.key, "kind": obs.kind, "subject": obs.subject,
             "claim": str(obs.detail.get("text", ""))[:2000], "raised_on": obs.day, "last_seen": obs.day}
            for obs in ordered]
    if rows:
        session.execute(insert(_VERIFICATIONS).on_conflict_do_nothing(constraint="uq_verifications_key"), rows)
    keys = sorted({obs.key for obs in ordered})
    ids: dict[str, int] = {}
    for start in range(0, len(keys), _CHUNK):
        ids.update(session.execute(
            select(Verification.key, Verification.id).where(
                Verification.workspace_id == workspace_id, Verification.topic == topic,
                Verification.key.in_(keys[start : start + _CHUNK]))
        ).tuples().all())
    return ids


def _fields(detail: dict[str, Any]) -> tuple[bool, ...]:
    """Which of the fields a view takes from the first event carrying them `detail` carries."""
    return tuple(bool(detail.get(name)) for name in FIRST_CARRIED)


class _Sightings:
    """The (day, source) a verification was raised or seen by, with what tells a redundant one."""

    __slots__ = ("days", "first_day", "first_seen", "said")

    def __init__(self) -> None:
        self.said: set[tuple[dt.date, str]] = set()
        self.first_seen: dict[str, dt.date] = {}  # source -> its earliest day
        self.days: set[dt.date] = set()
        self.first_day: dt.date | None = None

    @classmethod
    def of(cls, said: set[tuple[dt.date, str]]) -> _Sightings:
        out = cls()
        for day, path in said:
            out.add(day, path)
        return out

    def add(self, day: dt.date, path: str) -> None:
        self.said.add((day, path))
        self.days.add(day)
        if path not in self.first_seen or day < self.first_seen[path]:
            self.first_seen[path] = day
        if self.first_day is None or day < self.first_day:
            self.first_day = day

    def redundant(self, day: dt.date, path: str) -> bool:
        """Whether `path` seeing it on `day` changes no view: seen by it before, and by some source that day."""
        return path in self.first_seen and self.first_seen[path] < day and day in self.days


_Place = tuple[dt.date, str, str]  # (day, action, source): the order a view reads events in


def _first_details(session: Session, vids: list[int]) -> dict[int, tuple[_Place, tuple[bool, ...]]]:
    """Per verification, its first raised or seen event's place and which of `FIRST_CARRIED` it carries."""
    out: dict[int, tuple[_Place, tuple[bool, ...]]] = {}
    vids = sorted(vids)
    for start in range(0, len(vids), _CHUNK):
        rows = session.execute(
            select(VerificationEvent.verification_id, VerificationEvent.day, VerificationEvent.action,
                   VerificationEvent.source_path, VerificationEvent.detail)
            .where(VerificationEvent.verification_id.in_(vids[start : start + _CHUNK]),
                   VerificationEvent.action.in_(("raised", "seen")))
            .order_by(VerificationEvent.verification_id, VerificationEvent.day, VerificationEvent.action,
                      VerificationEvent.source_path)
            .distinct(VerificationEvent.verification_id)
        )
        for vid, day, action, path, detail in rows:
            out[vid] = ((day, action, path), _fields(json.loads(detail) if detail else {}))
    return out


def _said(session: Session, vids: list[int]) -> dict[int, set[tuple[dt.date, str]]]:
    """(day, source) of every raised or seen event stored for these verifications."""
    said: dict[int, set[tuple[dt.date, str]]] = {}
    vids = sorted(vids)
    for start in range(0, len(vids), _CHUNK):
        rows = session.execute(
            select(VerificationEvent.verification_id, VerificationEvent.day, VerificationEvent.source_path)
            .where(VerificationEvent.verification_id.in_(vids[start : start + _CHUNK]),
                   VerificationEvent.action.in_(("raised", "seen")))
        )
        for vid, day, path in rows:
            said.setdefault(vid, set()).add((day, path))
    return said


def staleness_report(tracked: list[Tracked], topic: str, day: dt.date, stale_after_days: int,
                     answered: frozenset[str] = frozenset()) -> dict[str, Any]:
    """How the topic's verifications (`tracked`, `load_tracked`) stand as of `day` (pending, stale,
    resolved; `not_yet`: raised only after it), and the keys that turned stale on `day` itself. Read
    from the events and `answered` (the pending keys readers' verdicts settled by then) alone, so a
    report for any date is the same whatever ran before; nothing is written."""
    counts = {"pending": 0, "stale": 0, "resolved": 0, "not_yet": 0}
    newly_stale: list[str] = []
    for item in tracked:
        view = status_as_of(item, day, stale_after_days)
        if view is None:
            counts["not_yet"] += 1
            continue
        if pending_key(item.key) in answered:
            counts["resolved"] += 1  # a reader settled it: it never turns stale
            continue
        counts[view.status] += 1
        before = status_as_of(item, day - dt.timedelta(days=1), stale_after_days)
        if view.status == "stale" and (before is None or before.status != "stale"):
            newly_stale.append(item.key)
    return {"topic": topic, "day": day.isoformat(), **counts, "newly_stale": sorted(newly_stale)}
