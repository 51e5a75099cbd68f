"""Contract of `tasks.verify.records.record`: storing a window's observations in a few bulk statements
leaves, batch after batch, the verification rows (ids and the id sequence included) that storing them
one statement at a time left: first observation of a key wins the verification row, raised becomes
seen after an earlier day, a source saying it again the same day adds nothing, raised_on/last_seen
widen, re-recording adds no rows; and of the events, those one statement each stored less the
sightings no view needs (a source seen before, on a day the verification has an event already,
carrying no advice or risk its first event lacks): every verification's view on every day
(`status_as_of`) is the same from both, and the counts returned differ only in new events."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, func, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from db.models import Verification, VerificationEvent, Workspace
from tasks.verify.records import load_tracked, record
from tasks.verify.status import Observation, detail_text, status_as_of
from tests.helpers import empty_tables

D = dt.date(2026, 10, 1)


def plain_record(
    session: Session, workspace_id: int, topic: str, observations: Sequence[Observation], window_day: dt.date
) -> dict[str, int]:
    """One statement per observation (the implementation before the bulk one)."""
    def vid_of(obs: Observation) -> int:
        new_id = session.execute(
            insert(Verification)
            .values(workspace_id=workspace_id, topic=topic, key=obs.key, kind=obs.kind, subject=obs.subject,
                    claim=str(obs.detail.get("text", ""))[:2000], raised_on=obs.day, last_seen=obs.day)
            .on_conflict_do_nothing(constraint="uq_verifications_key").returning(Verification.id)
        ).scalar_one_or_none()
        if new_id is not None:
            return new_id
        return session.execute(select(Verification.id).where(
            Verification.workspace_id == workspace_id, Verification.topic == topic, Verification.key == obs.key)
        ).scalar_one()

    count = select(func.count()).select_from(Verification).where(
        Verification.workspace_id == workspace_id, Verification.topic == topic)
    before, new_events = session.execute(count).scalar_one(), 0
    for obs in sorted(observations, key=lambda o: (o.key, o.day, o.action, o.source_path)):
        vid, action = vid_of(obs), obs.action
        if action == "raised":
            seen = select(VerificationEvent.day).where(
                VerificationEvent.verification_id == vid, VerificationEvent.action.in_(("raised", "seen")))
            if session.execute(seen.where(VerificationEvent.day == obs.day,
                                          VerificationEvent.source_path == obs.source_path)).first():
                continue
            action = "seen" if session.execute(seen.where(VerificationEvent.day < obs.day)).first() else "raised"
            session.execute(update(Verification).where(Verification.id == vid).values(
                raised_on=func.least(Verification.raised_on, obs.day),
                last_seen=func.greatest(Verification.last_seen, obs.day)))
        inserted = session.execute(
            insert(VerificationEvent)
            .values(verification_id=vid, day=obs.day, action=action, source_path=obs.source_path,
                    detail=detail_text(obs.detail), window_day=D)
            .on_conflict_do_nothing(constraint="uq_verification_events_obs").returning(VerificationEvent.id)
        ).scalar_one_or_none()
        new_events += inserted is not None
    after = session.execute(count).scalar_one()
    return {"observations": len(observations), "new_verifications": after - before, "new_events": new_events}


def _batches(seed: int) -> list[list[Observation]]:
    rng = random.Random(seed)
    keys = [(f"hedge:k{i}", "hedge", f"k{i}") for i in range(6)] + [("promise:p|2026-10-03", "promise", "p")]
    out = []
    for b in range(8):
        window_day = D + dt.timedelta(days=b % 5)  # windows recorded again (idempotency) and out of order
        batch: dict[tuple[str, str, str, dt.date], Observation] = {}  # deduplicated as observe_window does
        for _ in range(rng.randrange(0, 14)):
            key, kind, subject = rng.choice(keys)
            day = window_day + dt.timedelta(days=rng.choice([0, 0, 0, 2]))  # promises surface later
            action = rng.choice(["raised", "raised", "resolved"])
            path = rng.choice(["a.md", "b.md", "c.md"])
            # One detail per (key, action, source, day), whichever window makes it, as a derivation
            # does (a window observes its own day; a promise's later day with the same sentence).
            own = random.Random(f"{key}|{action}|{path}|{day}")
            detail = {"text": f"{subject} on {day} by {path} #{own.randrange(3)}", "title": subject,
                      "advice": own.choice(["", "", "check the repo"]), "risk": own.choice(["", "vendor blog"])}
            batch.setdefault((key, action, path, day), Observation(key, kind, subject, action, path, day, detail))
        out.append(list(batch.values()))
    return out


def _dump(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return [
            conn.execute(text("SELECT * FROM verifications ORDER BY id")).all(),
            conn.execute(text("SELECT * FROM verification_events ORDER BY id")).all(),
            conn.execute(text("SELECT last_value, is_called FROM verifications_id_seq")).all(),
            conn.execute(text("SELECT last_value, is_called FROM verification_events_id_seq")).all(),
        ]


def _run(engine: Engine, store: Any, batches: list[list[Observation]]) -> tuple[list[dict[str, int]], list[Any]]:
    empty_tables(engine)
    with Session(engine) as session:
        # The id the database gives: an explicit id=1 would leave the sequence behind the row, and
        # the next test on this database (without clean_db) would collide with it.
        workspace_id = session.execute(insert(Workspace).values(root="/w").returning(Workspace.id)).scalar_one()
        session.commit()
        counts = []
        for batch in batches:
            counts.append(store(session, workspace_id, "inference", batch, D))
            session.commit()
    return counts, _dump(engine)


def _views(engine: Engine, days: list[dt.date]) -> list[Any]:
    with Session(engine) as session:
        workspace_id = session.execute(select(Workspace.id)).scalar_one()
        tracked = load_tracked(session, workspace_id, "inference", max(days))
    return [(t.key, day, status_as_of(t, day, 3)) for t in sorted(tracked, key=lambda t: t.key) for day in days]


def _events(rows: list[Any]) -> list[tuple[Any, ...]]:
    return sorted((r.verification_id, r.day, r.action, r.source_path, r.detail) for r in rows)


def test_bulk_record_leaves_the_views_one_statement_each_left(clean_db: Engine) -> None:
    days = [D + dt.timedelta(days=k) for k in range(-1, 8)]
    dropped = 0
    for seed in range(8):
        batches = _batches(seed)
        plain_counts, plain_rows = _run(clean_db, plain_record, batches)
        plain_views = _views(clean_db, days)
        counts, rows = _run(clean_db, record, batches)
        assert _views(clean_db, days) == plain_views
        assert [{**c, "new_events": 0} for c in counts] == [{**c, "new_events": 0} for c in plain_counts]
        assert rows[0] == plain_rows[0] and rows[2] == plain_rows[2]  # the verifications, their ids
        kept, every = _events(rows[1]), _events(plain_rows[1])
        assert set(kept) <= set(every) and len(set(kept)) == len(kept)
        dropped += len(every) - len(kept)
    assert dropped > 0  # the redundant sightings were met, and not stored
    assert any(r.action == "seen" for r in rows[1]) and any(r.action == "resolved" for r in rows[1])


def test_recording_nothing_writes_nothing(clean_db: Engine) -> None:
    counts, rows = _run(clean_db, record, [[]])
    assert counts == [{"observations": 0, "new_verifications": 0, "new_events": 0}]
    assert rows[0] == [] and rows[1] == []
