"""Verifications as one derivation over the stored sources, shared by daily runs, backfill and the
staleness check.

- A topic's verifications are the fold of its scheduled windows, oldest first
  (`tasks.stages.timeline`): each collected as of its cutoff, judged, observed against the state the
  earlier windows left (`tasks.verify.observe.observe_window`) and stored (`tasks.verify.records`).
  The state as of a date never depends on which dates were run before, or in what order.
- Stored rows are a cache of that fold, each derived window kept with its fingerprint.
  `derive_through` drops the first window that no longer matches and all after it, and derives
  them again in order; deriving what is derived writes nothing.
- Deriving is serialised per (workspace, topic) by an advisory lock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from sqlalchemy import delete, exists, func, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from db.models import Verification, VerificationEvent, VerificationWindow
from tasks.briefing.assemble import judge_evening
from tasks.common.limits import SourceBudgets, unbounded
from tasks.config.topics import Topic
from tasks.model.judged import Paper
from tasks.model.window_views import WindowData
from tasks.stages.timeline import DerivedWindow, timeline
from tasks.verify.observe import observe_window
from tasks.verify.records import load_tracked, lookup_subjects, record
from tasks.window.collect import add_lookups, collect_window

_VERIFY_LOCK = 0x76657269  # advisory lock class serialising the derivation per topic


@dataclass
class Judged:
    """A window collected and judged once (`judge_evening`: papers and engineering increments), for
    deriving its verifications and rendering its briefing; `budgets`: each source's work budget, spent by
    its judging and then by its verification, once each."""

    data: WindowData
    papers: list[Paper]
    budgets: SourceBudgets = field(default_factory=unbounded)


@dataclass
class Derivation:
    """What `derive_through` did: the windows derived again, and those it collected (by date)."""

    topic: str
    through: dt.date
    dropped_from: dt.date | None = None
    derived: list[dict[str, Any]] = field(default_factory=list)
    judged: dict[dt.date, Judged] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {"topic": self.topic, "through": self.through.isoformat(),
                "dropped_from": self.dropped_from.isoformat() if self.dropped_from else None,
                "derived": self.derived}


def lock_topic(session: Session, workspace_id: int, topic: str) -> None:
    session.execute(text("SELECT pg_advisory_xact_lock(:k, hashtext(:t))"),
                    {"k": _VERIFY_LOCK, "t": f"{workspace_id}:{topic}"})


def pending_windows(
    session: Session, workspace_id: int, topic: Topic, known: list[str], through: dt.date
) -> tuple[dt.date | None, list[DerivedWindow]]:
    """(first date to drop, windows up to `through` to derive, oldest first) against what is stored."""
    chain = timeline(session, workspace_id, topic, known, through)
    stored = dict(session.execute(
        select(VerificationWindow.day, VerificationWindow.fingerprint)
        .where(VerificationWindow.workspace_id == workspace_id, VerificationWindow.topic == topic.name)
    ).tuples().all())
    wanted = {w.day for w in chain}
    first_bad = next((w.day for w in chain if stored.get(w.day) != w.fingerprint), None)
    extra = [d for d in stored if d <= through and d not in wanted]  # derived once, holds nothing now
    if extra:
        first_bad = min([*extra, *([first_bad] if first_bad else [])])
    if first_bad is None:
        return None, []
    return first_bad, [w for w in chain if w.day >= first_bad]


def drop_from(session: Session, workspace_id: int, topic: str, day: dt.date) -> None:
    """Forget the windows derived for `day` and after: their events, verifications only they
    raised, and their fingerprints; the others' first and last days are those of what remains."""
    mine = select(Verification.id).where(Verification.workspace_id == workspace_id, Verification.topic == topic)
    session.execute(delete(VerificationEvent).where(VerificationEvent.verification_id.in_(mine),
                                                    VerificationEvent.window_day >= day))
    said = (select(VerificationEvent.id).where(VerificationEvent.verification_id == Verification.id,
                                               VerificationEvent.action.in_(("raised", "seen"))))
    session.execute(delete(Verification).where(Verification.workspace_id == workspace_id,
                                               Verification.topic == topic, ~exists(said)))
    bounds = (select(VerificationEvent.verification_id, func.min(VerificationEvent.day).label("lo"),
                     func.max(VerificationEvent.day).label("hi"))
              .where(VerificationEvent.action.in_(("raised", "seen"))).group_by(VerificationEvent.verification_id)
              .subquery())
    session.execute(
        update(Verification).where(Verification.id == bounds.c.verification_id, Verification.topic == topic,
                                   Verification.workspace_id == workspace_id,
                                   (Verification.raised_on != bounds.c.lo) | (Verification.last_seen != bounds.c.hi))
        .values(raised_on=bounds.c.lo, last_seen=bounds.c.hi)
    )
    session.execute(delete(VerificationWindow).where(
        VerificationWindow.workspace_id == workspace_id, VerificationWindow.topic == topic,
        VerificationWindow.day >= day))


def collect_and_judge(
    session: Session, workspace_id: int, topic: Topic, step: DerivedWindow, budget: int | None = None,
) -> Judged:
    """The window collected and judged, each source within `budget` units of work (Settings.source_budget_units)."""
    data = collect_window(session, workspace_id, topic.name, step.window, topic.schedule)
    budgets = SourceBudgets(budget)
    return Judged(data, judge_evening(data, topic, budgets), budgets)


def record_window(
    session: Session, workspace_id: int, topic: Topic, known: list[str], step: DerivedWindow, judged: Judged
) -> dict[str, Any]:
    """Store what one window of the fold observes, against the state of the windows before it, and
    its fingerprint: the window's one observation, made from everything it judged (its briefing
    reads it back, `tasks.stages.briefings`). A window already stored with this fingerprint
    (another run got here first) is left."""
    lock_topic(session, workspace_id, topic.name)
    stored = session.execute(select(VerificationWindow.fingerprint).where(
        VerificationWindow.workspace_id == workspace_id, VerificationWindow.topic == topic.name,
        VerificationWindow.day == step.day)).scalar_one_or_none()
    if stored == step.fingerprint:
        return {"date": step.day.isoformat(), "observations": 0, "new_verifications": 0, "new_events": 0}
    if stored is not None:
        drop_from(session, workspace_id, topic.name, step.day)
    data = copy_window(judged.data)
    tracked = load_tracked(session, workspace_id, topic.name, step.day)
    add_lookups(session, data, lookup_subjects(tracked))
    observations = observe_window(data, judged.papers, topic, known, tracked, judged.budgets)
    counts = record(session, workspace_id, topic.name, observations, step.day)
    session.execute(insert(VerificationWindow).values(
        workspace_id=workspace_id, topic=topic.name, day=step.day, fingerprint=step.fingerprint,
        limits={path: list(warnings) for path, warnings in sorted(judged.budgets.capped.items())}))
    return {"date": step.day.isoformat(), **counts}


def derive_through(
    session: Session, workspace_id: int, topic: Topic, known: list[str], through: dt.date,
    keep: Sequence[dt.date] = (), budget: int | None = None,
) -> Derivation:
    """Bring the topic's stored verifications up to date through `through` (one transaction,
    under the topic's lock); the windows of `keep` that had to be collected are returned with it.
    `budget`: each source's units of work per window for judging and verifying (None: unbounded)."""
    lock_topic(session, workspace_id, topic.name)
    out = Derivation(topic.name, through)
    first_bad, steps = pending_windows(session, workspace_id, topic, known, through)
    if first_bad is None:
        return out
    drop_from(session, workspace_id, topic.name, first_bad)
    out.dropped_from = first_bad
    for step in steps:
        judged = collect_and_judge(session, workspace_id, topic, step, budget)
        out.derived.append(record_window(session, workspace_id, topic, known, step, judged))
        if step.day in keep:
            out.judged[step.day] = judged
    return out


def copy_window(data: WindowData) -> WindowData:
    """A copy whose lists and dicts are new (their items are shared: nothing downstream mutates them;
    `add_lookups` only adds to `lookups`), so recording leaves the collected window as it was."""
    copied = {f.name: getattr(data, f.name) for f in fields(data) if f.init}
    for name, value in copied.items():
        if isinstance(value, list):
            copied[name] = list(value)
        elif isinstance(value, dict):
            copied[name] = dict(value)
    return WindowData(**copied)
