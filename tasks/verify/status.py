"""The lifecycle of a verification as of a day, computed only from its events dated on or before it.

Rules (documented; tests hold them):
- a verification exists on day X once it has a `raised` or `seen` event dated <= X;
- raised_on is its earliest such event, last_seen its latest one (<= X);
- it is resolved on X if a `resolved` event is dated <= X (the earliest one gives resolved_on
  and the evidence); resolution is final;
- otherwise it is stale when (X - raised_on) >= stale_after_days, else pending.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any, NamedTuple

from tasks.model.judged import StatusAsOf

OPEN = ("pending", "stale")


class Event(NamedTuple):
    """One observation: raised/seen/resolved by a source on a day, with its detail (JSON text).

    A tuple (not a dataclass): a backfill reads the whole history twice a date, and building
    millions of frozen dataclasses was a third of reading it."""

    day: dt.date
    action: str
    source_path: str
    detail: str = ""

    def data(self) -> Mapping[str, Any]:
        """The detail as a read-only mapping (old or hand-written details are plain text claims)."""
        return _detail_data(self.detail)


# Every date's views read the details of the whole history again (a year's backfill parsed the
# same ~2,000 texts on each of 730 reads); parsed once, shared read-only.
@lru_cache(maxsize=65536)
def _detail_data(detail: str) -> Mapping[str, Any]:
    try:
        value = json.loads(detail) if detail else {}
    except ValueError:
        return MappingProxyType({"text": detail})
    return MappingProxyType(value if isinstance(value, dict) else {"text": str(value)})


@dataclass(frozen=True)
class Observation:
    """What one source said about one verification in one window."""

    key: str
    kind: str  # hedge, unknown_id, title_mismatch, conflict, promise
    subject: str
    action: str  # raised, resolved
    source_path: str
    day: dt.date
    detail: dict[str, Any]

    def event(self) -> Event:
        return Event(self.day, self.action, self.source_path, detail_text(self.detail))


@dataclass(frozen=True)
class Tracked:
    """A verification known to the database (or just observed), with its events."""

    key: str
    kind: str
    subject: str
    events: tuple[Event, ...]



def detail_text(detail: dict[str, Any]) -> str:
    """Deterministic JSON for an event's detail column."""
    return json.dumps(detail, ensure_ascii=False, sort_keys=True)


# The detail fields a view takes from the first event carrying them, where the rest of its detail
# comes from its first event (`tasks.verify.records.record` keeps an event that could be that one).
FIRST_CARRIED = ("advice", "risk")


def status_as_of(item: Tracked, day: dt.date, stale_after_days: int) -> StatusAsOf | None:
    """The verification as of `day`, or None if nothing had raised it by then."""
    events = sorted((e for e in item.events if e.day <= day), key=lambda e: (e.day, e.action, e.source_path))
    seen = [e for e in events if e.action in ("raised", "seen")]
    if not seen:
        return None
    first = seen[0].data()
    resolved = [e for e in events if e.action == "resolved"]
    raised_on, last_seen = seen[0].day, seen[-1].day
    age = (day - raised_on).days
    if resolved:
        status, resolved_on = "resolved", resolved[0].day
    else:
        status, resolved_on = ("stale" if age >= stale_after_days else "pending"), None
    evidence = resolved[0].data() if resolved else {}
    said = [e.data() for e in seen]

    def first_of(name: str) -> str:
        return next((str(d[name]) for d in said if d.get(name)), "")

    return StatusAsOf(
        key=item.key, kind=item.kind, subject=item.subject, title=str(first.get("title") or item.subject),
        claim=str(first.get("text", "")), marker=str(first.get("marker", "")),
        sources=tuple(dict.fromkeys(e.source_path for e in seen)), raised_on=raised_on, last_seen=last_seen,
        status=status, age_days=age, resolved_on=resolved_on, evidence=evidence.get("text") if resolved else None,
        resolved_by=resolved[0].source_path if resolved else None, **{name: first_of(name) for name in FIRST_CARRIED},
        seen_in_window=last_seen == day or resolved_on == day, keys=(item.key,), kinds=(item.kind,),
    )


def state_on(item: Tracked, day: dt.date) -> tuple[bool, dt.date | None]:
    """(raised by `day`, the earliest day it was resolved on or before `day`): what decides whether
    `status_as_of` is open or resolved, found in one pass without building the view (the backfill
    asks this of every stored verification on every date)."""
    exists, resolved_on = False, None
    for event in item.events:
        if event.day > day:
            continue
        if event.action == "resolved":
            if resolved_on is None or event.day < resolved_on:
                resolved_on = event.day
        elif event.action in ("raised", "seen"):
            exists = True
    return exists, resolved_on


def is_open(item: Tracked, day: dt.date) -> bool:
    """`status_as_of(item, day, …).status in OPEN`, whatever the staleness threshold."""
    exists, resolved_on = state_on(item, day)
    return exists and resolved_on is None


def merge(tracked: Iterable[Tracked], observations: Sequence[Observation]) -> list[Tracked]:
    """Stored verifications plus this window's observations (same key, same event = one event)."""
    by_key = {t.key: t for t in tracked}
    added: dict[str, list[Event]] = {}
    meta: dict[str, tuple[str, str]] = {}
    for obs in observations:
        added.setdefault(obs.key, []).append(obs.event())
        meta.setdefault(obs.key, (obs.kind, obs.subject))
    out: list[Tracked] = []
    for key in sorted(set(by_key) | set(added)):
        old = by_key.get(key)
        known = {(e.day, e.action if e.action != "seen" else "raised", e.source_path) for e in old.events} if old else set()
        fresh = [e for e in added.get(key, []) if (e.day, e.action, e.source_path) not in known]
        kind, subject = (old.kind, old.subject) if old else meta[key]
        out.append(Tracked(key, kind, subject, (*(old.events if old else ()), *fresh)))
    return out


def listed(items: Iterable[Tracked], day: dt.date, stale_after_days: int) -> list[StatusAsOf]:
    """What section 三 lists on `day`: first what this window raised or saw (oldest first), then
    those resolved that day, then the items of earlier days still open and not seen in this window
    (stale first, oldest first). `tasks.verify.items.one_per_subject` then merges them by subject."""
    # Only open items and those resolved on `day` are listed; the rest are not worth a view.
    wanted = [t for t in items if (state := state_on(t, day))[0] and state[1] in (None, day)]
    views = [v for v in (status_as_of(t, day, stale_after_days) for t in wanted) if v is not None]
    fresh = sorted((v for v in views if v.status in OPEN and v.seen_in_window), key=lambda v: (v.raised_on, v.key))
    resolved_today = sorted((v for v in views if v.status == "resolved" and v.resolved_on == day), key=lambda v: v.key)
    earlier = sorted((v for v in views if v.status in OPEN and not v.seen_in_window),
                     key=lambda v: (v.status != "stale", v.raised_on, v.key))
    return fresh + resolved_today + earlier
