"""Contract of migration 0008 (`sources.feed_facts`): a database at 0007 keeps its feed snapshots'
judgement. A judged snapshot gets its facts from its mark (a stale one was stored without its
entries), a healthy one from its entries and the day it counts on (US/Eastern for arXiv, even
after midnight UTC); a failed feed snapshot and a file get none; and the feed's next stored
snapshot re-judges the old ones from those facts (tasks.feeds.marks).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from sqlalchemy import Connection, select, text
from sqlalchemy.orm import Session

from db.engine import make_engine, upgrade_database
from db.models import Source
from tasks.config.judgment import default_judgment
from tasks.feeds.health import FeedHealthRule, day_start
from tasks.feeds.results import FeedSnapshot
from tasks.feeds.store import store_snapshot

URI = "https://rss.arxiv.org/rss/cs.DC"
MONDAY = dt.date(2026, 11, 30)


def _source(conn: Connection, workspace: int, path: str, kind: str, day: dt.date, problem: str | None = None,
            error: str | None = None) -> int:
    return conn.execute(text(
        "INSERT INTO sources (workspace_id, path, kind, sha256, size, observed_at, time_basis, error, feed_problem)"
        " VALUES (:w, :p, :k, md5(:p || :d) || md5(:d), 0, :at, 'feed', :e, CAST(:fp AS jsonb)) RETURNING id"),
        {"w": workspace, "p": path, "k": kind, "d": day.isoformat(), "at": day_start("arxiv_feed", day), "e": error,
         "fp": problem}).scalar_one()


def test_facts_are_backfilled_and_the_next_snapshot_rejudges(database_factory: Callable[[str], str]) -> None:
    engine = make_engine(database_factory("predigest_feed_facts"), pool_size=1)
    try:
        upgrade_database(engine, "0007")
        weeks = [MONDAY - dt.timedelta(weeks=k) for k in (4, 3, 2, 1)]
        with engine.begin() as conn:
            ws = conn.execute(text("INSERT INTO workspaces (root) VALUES ('/ws') RETURNING id")).scalar_one()
            healthy = [_source(conn, ws, URI, "arxiv_feed", d) for d in weeks]
            for source_id in healthy:
                for k in range(30):
                    conn.execute(text("INSERT INTO items (source_id, ordinal, heading, text, key_points, numbers,"
                                      " hedges, links) VALUES (:s, :k, 'h', 't', '[]', '[]', '[]', '[]')"),
                                 {"s": source_id, "k": k})
            stale = _source(conn, ws, URI, "arxiv_feed", MONDAY, problem=(
                '{"problem": "stale", "feed": "arXiv cs.DC", "count": 12, "usual": null, "history": 0,'
                f' "listing_day": "{weeks[-1]}", "expected_day": "{MONDAY}"}}'))
            failed = _source(conn, ws, URI, "arxiv_feed", MONDAY - dt.timedelta(days=1), error="HTTP 500")
            note = _source(conn, ws, "notes/a.md", "note", MONDAY)
        upgrade_database(engine)
        with engine.connect() as conn:
            facts = dict(conn.execute(select(Source.id, Source.feed_facts)).all())
        assert facts[healthy[0]] == {"count": 30, "listing_day": weeks[0].isoformat(),
                                     "expected_day": weeks[0].isoformat()}
        assert facts[stale] == {"count": 12, "listing_day": weeks[-1].isoformat(), "expected_day": MONDAY.isoformat()}
        assert facts[failed] is None and facts[note] is None

        # Storing the next day's snapshot re-judges the stale one against its four weeks.
        with Session(engine) as session, session.begin():
            store_snapshot(session, ws, FeedSnapshot(URI, "arxiv_feed", MONDAY + dt.timedelta(days=1), "f" * 64, (),
                                                     requested_day=MONDAY + dt.timedelta(days=1)),
                           dt.datetime.now(dt.UTC), FeedHealthRule.of(default_judgment()))
        with engine.connect() as conn:
            mark = conn.execute(select(Source.feed_problem).where(Source.id == stale)).scalar_one()
        assert mark["problem"] == "stale" and (mark["history"], mark["usual"]) == (4, 30)
    finally:
        engine.dispose()
