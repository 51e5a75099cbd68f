"""Contract: every arXiv lookup stays in `paper_lookups` as it was made.

`store_papers` records a lookup in `papers` (the latest) and the trigger of migration 0004 copies
it to `paper_lookups` keyed by (arxiv_id, looked_up_at). A later lookup of the same id, whether its
title or status changed or not, is a new history row; the earlier row keeps its own status and title,
so a window whose cutoff lies between the two reads the first lookup.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from db.models import ArxivLookup, Paper
from tasks.feeds.arxiv_api import ArxivMetadata
from tasks.feeds.store import store_papers


def _meta(arxiv_id: str, title: str) -> ArxivMetadata:
    return ArxivMetadata(arxiv_id=arxiv_id, title=title, authors=("A. Author",), abstract="", categories=("cs.CL",),
                         primary_category="cs.CL", published=None, updated=None, latest_version=1, doi=None,
                         journal_ref=None)


def _history(session: Session, arxiv_id: str) -> list[tuple[str, str | None, dt.datetime]]:
    rows = session.execute(select(ArxivLookup.status, ArxivLookup.title, ArxivLookup.looked_up_at)
                           .where(ArxivLookup.arxiv_id == arxiv_id).order_by(ArxivLookup.looked_up_at))
    return [tuple(row) for row in rows]  # type: ignore[misc]


def test_a_later_lookup_adds_history_and_keeps_the_earlier_row(clean_db: Engine) -> None:
    with Session(clean_db) as session, session.begin():
        store_papers(session, [_meta("2610.00001", "First title")], [])
    with Session(clean_db) as session, session.begin():
        store_papers(session, [_meta("2610.00001", "Revised title")], [])
    with Session(clean_db) as session, session.begin():
        store_papers(session, [], ["2610.00001"])
    with Session(clean_db) as session:
        history = _history(session, "2610.00001")
        latest = session.get(Paper, "2610.00001")
    assert [(status, title) for status, title, _ in history] == [
        ("found", "First title"), ("found", "Revised title"), ("unknown", "Revised title")]
    times = [when for _, _, when in history]
    assert times == sorted(set(times))  # three distinct moments, in order
    assert latest is not None and (latest.status, latest.title, latest.looked_up_at) == ("unknown", "Revised title", times[-1])


def test_a_window_before_the_refresh_reads_the_first_lookup(clean_db: Engine) -> None:
    with Session(clean_db) as session, session.begin():
        store_papers(session, [_meta("2610.00002", "Old")], [])
    with Session(clean_db) as session:
        (between,) = session.execute(select(ArxivLookup.looked_up_at)).scalars().all()
    with Session(clean_db) as session, session.begin():
        store_papers(session, [_meta("2610.00002", "New")], [])
    with Session(clean_db) as session:
        as_of = session.execute(select(ArxivLookup.title).where(ArxivLookup.looked_up_at <= between)).scalars().all()
    assert as_of == ["Old"]
