"""Verifications in Postgres: record a window's observations idempotently, read them as of a day,
and keep the `status` column (the "today" view) up to date."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from db.models import Verification, VerificationEvent
from tasks.verify.status import Event, Observation, Tracked, detail_text, status_as_of


def load_tracked(session: Session, workspace_id: int, topic: str, day: dt.date) -> list[Tracked]:
    """Every verification of the topic with its events dated on or before `day`."""
    rows = session.execute(
        select(Verification.key, Verification.kind, Verification.subject, VerificationEvent.day,
               VerificationEvent.action, VerificationEvent.source_path, VerificationEvent.detail)
        .join(VerificationEvent, VerificationEvent.verification_id == Verification.id)
        .where(Verification.workspace_id == workspace_id, Verification.topic == topic, VerificationEvent.day <= day)
        .order_by(Verification.key, VerificationEvent.day, VerificationEvent.action, VerificationEvent.source_path)
    ).all()
    grouped: dict[tuple[str, str, str], list[Event]] = defaultdict(list)
    for key, kind, subject, when, action, path, detail in rows:
        grouped[(key, kind, subject)].append(Event(when, action, path, detail or ""))
    return [Tracked(key, kind, subject, tuple(events)) for (key, kind, subject), events in grouped.items()]


def lookup_subjects(tracked: Sequence[Tracked]) -> list[str]:
    """Ids whose arXiv lookup raised a verification: a later lookup may resolve them."""
    return sorted({t.subject for t in tracked if t.kind in ("unknown_id", "title_mismatch")})


def _verification_id(session: Session, workspace_id: int, topic: str, obs: Observation) -> int:
    stmt = (
        insert(Verification)
        .values(workspace_id=workspace_id, topic=topic, key=obs.key, kind=obs.kind, subject=obs.subject,
                claim=str(obs.detail.get("text", ""))[:2000], raised_on=obs.day, last_seen=obs.day, status="pending")
        .on_conflict_do_nothing(constraint="uq_verifications_key")
        .returning(Verification.id)
    )
    new_id = session.execute(stmt).scalar_one_or_none()
    if new_id is not None:
        return new_id
    return session.execute(
        select(Verification.id).where(Verification.workspace_id == workspace_id, Verification.topic == topic,
                                      Verification.key == obs.key)
    ).scalar_one()


def record(session: Session, workspace_id: int, topic: str, observations: Sequence[Observation]) -> dict[str, int]:
    """Store observations; re-recording the same window adds no rows. Returns counts of new rows."""
    new_events = 0
    before = session.execute(
        select(func.count()).select_from(Verification)
        .where(Verification.workspace_id == workspace_id, Verification.topic == topic)
    ).scalar_one()
    for obs in sorted(observations, key=lambda o: (o.key, o.day, o.action, o.source_path)):
        vid = _verification_id(session, workspace_id, topic, obs)
        action = obs.action
        if action == "raised":
            seen = select(VerificationEvent.day).where(
                VerificationEvent.verification_id == vid, VerificationEvent.action.in_(("raised", "seen")))
            if session.execute(seen.where(VerificationEvent.day == obs.day,
                                          VerificationEvent.source_path == obs.source_path)).first():
                continue  # this source already said so that day (as raised or seen)
            action = "seen" if session.execute(seen.where(VerificationEvent.day < obs.day)).first() else "raised"
            session.execute(
                update(Verification).where(Verification.id == vid).values(
                    raised_on=func.least(Verification.raised_on, obs.day),
                    last_seen=func.greatest(Verification.last_seen, obs.day))
            )
        result = session.execute(
            insert(VerificationEvent)
            .values(verification_id=vid, day=obs.day, action=action, source_path=obs.source_path,
                    detail=detail_text(obs.detail))
            .on_conflict_do_nothing(constraint="uq_verification_events_obs")
            .returning(VerificationEvent.id)
        ).scalar_one_or_none()
        new_events += result is not None
    after = session.execute(
        select(func.count()).select_from(Verification)
        .where(Verification.workspace_id == workspace_id, Verification.topic == topic)
    ).scalar_one()
    return {"observations": len(observations), "new_verifications": after - before, "new_events": new_events}


def refresh_status(session: Session, workspace_id: int, topic: str, day: dt.date, stale_after_days: int) -> dict[str, Any]:
    """Set status/resolved_on/evidence of every verification of the topic to their values as of `day`."""
    counts = {"pending": 0, "stale": 0, "resolved": 0, "not_yet": 0}
    changed: list[str] = []
    rows = {v.key: v for v in session.execute(
        select(Verification).where(Verification.workspace_id == workspace_id, Verification.topic == topic)
        .with_for_update()
    ).scalars()}
    for item in load_tracked(session, workspace_id, topic, day):
        view = status_as_of(item, day, stale_after_days)
        row = rows.get(item.key)
        if view is None or row is None:
            counts["not_yet"] += 1
            continue
        counts[view.status] += 1
        values = (view.status, view.resolved_on, view.evidence)
        if (row.status, row.resolved_on, row.evidence) != values:
            row.status, row.resolved_on, row.evidence = values
            changed.append(item.key)
    return {"topic": topic, "day": day.isoformat(), **counts, "changed": len(changed), "newly_stale": sorted(
        k for k in changed if rows[k].status == "stale")}
