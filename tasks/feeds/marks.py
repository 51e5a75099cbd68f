"""The stored feed problems (`sources.feed_problem`), kept equal to `tasks.feeds.health.judge_feed`
over the feed's stored facts whenever one of its snapshots is stored.

Every store of a snapshot re-judges its whole feed (one read of the feed's facts, a write only for
marks that change), so a snapshot stored out of date order re-marks the later days it is history
for, and marks left by an older rule or an older program are brought in line by the feed's next
snapshot. Stores of one feed are serialised by an advisory lock held to the end of the transaction:
two evenings storing the same feed at once would otherwise each judge without the other's snapshot.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import or_, select, text, update
from sqlalchemy.orm import Session

from db.models import Source
from tasks.feeds.health import Facts, FeedHealthRule, feed_key, feed_name, judge_feed, local_day

_FEED_LOCK = 0x66656564  # advisory lock class serialising the stores of one feed


def lock_feed(session: Session, workspace_id: int, kind: str, uri: str) -> None:
    """Hold the feed's lock until the transaction ends."""
    session.execute(text("SELECT pg_advisory_xact_lock(:k, hashtext(:t))"),
                    {"k": _FEED_LOCK, "t": f"{workspace_id}:{kind}:{feed_key(uri)}"})


def rejudge_feed(session: Session, workspace_id: int, kind: str, uri: str, rule: FeedHealthRule) -> int:
    """Store every judged snapshot's problem as `judge_feed` gives it now; returns marks changed."""
    key = feed_key(uri)
    rows = session.execute(
        select(Source.id, Source.sha256, Source.observed_at, Source.feed_facts, Source.feed_problem)
        .where(Source.workspace_id == workspace_id, Source.kind == kind,
               or_(Source.path == key, Source.path.startswith(key + "?", autoescape=True)),
               Source.error.is_(None), Source.feed_facts.is_not(None))
    ).all()
    facts = [Facts(r.id, r.sha256, local_day(kind, r.observed_at), int(r.feed_facts["count"]),
                   dt.date.fromisoformat(r.feed_facts["listing_day"]),
                   dt.date.fromisoformat(r.feed_facts["expected_day"])) for r in rows]
    marks = judge_feed(kind, feed_name(uri, kind), facts, rule)
    changed = 0
    for r in rows:
        if marks[r.id] != r.feed_problem:
            session.execute(update(Source).where(Source.id == r.id).values(feed_problem=marks[r.id]))
            changed += 1
    return changed
