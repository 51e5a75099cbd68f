"""Contract of feed health (`tasks.feeds.health`, applied when `tasks.feeds.stage.store_feed` stores a
snapshot), on copies of a recorded arXiv listing that the test empties, ages and truncates, over a
history of same-weekday listings the test generates:

- an empty listing whose weekday usually has entries, a listing below `truncated_ratio` of its
  weekday's median, and a listing dated more than `stale_days` before the day it was fetched for are
  marked on the stored snapshot (`sources.feed_problem`); a listing of the usual size is not;
- a weekday with too little history is not judged on its count (a quiet Saturday stays quiet); a
  feed's first-ever snapshot is judged only on emptiness and its own date;
- a stale listing counts on the day it was fetched for, not on the day it names;
- the judgement depends only on the stored snapshots before it: storing the same snapshots in date
  order in another workspace marks the same ones;
- the briefing's density statement names the problem in the markdown and the JSON twin, in both
  languages, and the briefing's notification carries it to a local webhook.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from db.engine import session_scope
from db.models import Source
from tasks.config.settings import Settings
from tasks.feeds import clients, stage
from tasks.feeds.arxiv_rss import ARXIV_TZ
from tasks.feeds.health import day_start
from tasks.feeds.http import Recorded, ReplayHttpClient
from tasks.publish.notify import notify_published
from tasks.publish.pages import date_summary
from tasks.publish.storage import LocalStore
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.workspace import register_workspace
from tests.helpers import SAMPLE_WORKSPACE, ingest_all
from tests.publish.hooks import serve_hooks

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "feeds" / "arxiv-rss-2026-04-27_cs.AI_3-new-items.xml"
RECORDED_DAY = "Mon, 27 Apr 2026"
CATEGORY = "cs.DC"
USUAL = 30


def listing(day: dt.date, entries: int) -> bytes:
    """A copy of the recorded listing dated `day` with `entries` items (copies of its first, renumbered)."""
    midnight = day_start("arxiv_feed", day).astimezone(ARXIV_TZ)  # the recorded stamps are midnight, -0400
    text = RECORDED.read_text(encoding="utf-8").replace(f"{RECORDED_DAY} 00:00:00 -0400",
                                                        midnight.strftime("%a, %d %b %Y %H:%M:%S %z"))
    head, rest = text.split("<item>", 1)
    first = "<item>" + rest.split("</item>", 1)[0] + "</item>"
    tail = text.rsplit("</item>", 1)[1]
    original = re.search(r"oai:arXiv\.org:(\d{4}\.\d{5})", first)
    assert original is not None
    items = [first.replace(original[1], f"{day:%y%m}.{90000 + k:05d}") for k in range(entries)]
    return (head + "\n".join(items) + tail).encode("utf-8")


def _fetch_and_store(settings: Settings, monkeypatch: pytest.MonkeyPatch, workspace_id: int, day: dt.date,
                     body: bytes) -> int:
    client = ReplayHttpClient({f"*rss.arxiv.org/rss/{CATEGORY}": Recorded(body=body)})
    monkeypatch.setattr(clients, "http_client", lambda s: client)
    outcome = stage.store_feed(settings, workspace_id, stage.fetch_feed(settings, "arxiv", day, CATEGORY))
    assert outcome.status == "new" and outcome.error is None
    return outcome.source_id


def _history(settings: Settings, monkeypatch: pytest.MonkeyPatch, workspace_id: int, day: dt.date,
             weeks: int = 4) -> None:
    """`weeks` earlier listings on `day`'s weekday, of USUAL entries give or take a few."""
    for week in range(weeks, 0, -1):
        earlier = day - dt.timedelta(weeks=week)
        _fetch_and_store(settings, monkeypatch, workspace_id, earlier, listing(earlier, USUAL - 2 + week))


def _mark(engine: Engine, source_id: int) -> dict[str, Any] | None:
    with session_scope(engine) as session:
        return session.execute(select(Source.feed_problem).where(Source.id == source_id)).scalar_one()


MONDAY = dt.date(2026, 11, 30)


@pytest.mark.parametrize(("entries", "age_days", "problem"), [
    (0, 0, "empty"), (3, 0, "truncated"), (USUAL, 5, "stale"), (USUAL - 3, 0, None), (8, 1, None),
])
def test_a_snapshot_is_judged_against_its_weekday(
    clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, entries: int, age_days: int,
    problem: str | None,
) -> None:
    ref = register_workspace(settings, SAMPLE_WORKSPACE)
    _history(settings, monkeypatch, ref.id, MONDAY)
    listing_day = MONDAY - dt.timedelta(days=age_days)
    source_id = _fetch_and_store(settings, monkeypatch, ref.id, MONDAY, listing(listing_day, entries))
    mark = _mark(clean_db, source_id)
    assert (mark or {}).get("problem") == problem
    if mark is not None:
        assert mark["feed"] == f"arXiv {CATEGORY}" and mark["count"] == entries and mark["history"] == 4
        assert mark["usual"] == pytest.approx(USUAL + 0.5)  # the median of 29, 30, 31, 32
        assert (mark["listing_day"], mark["expected_day"]) == (listing_day.isoformat(), MONDAY.isoformat())
    with session_scope(clean_db) as session:
        observed = session.execute(select(Source.observed_at).where(Source.id == source_id)).scalar_one()
    # Every listing here counts on the day it was fetched for; a stale one too, though it names another.
    assert observed.astimezone(dt.UTC) == day_start("arxiv_feed", MONDAY if problem == "stale" else listing_day)


def test_a_stale_listing_counts_today_without_its_entries_even_when_served_again_unchanged(
    clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = register_workspace(settings, SAMPLE_WORKSPACE)
    _history(settings, monkeypatch, ref.id, MONDAY)
    last_week = MONDAY - dt.timedelta(weeks=1)
    again = _fetch_and_store(settings, monkeypatch, ref.id, MONDAY, listing(last_week, USUAL - 1))  # byte-identical
    with session_scope(clean_db) as session:
        row = session.execute(select(Source).where(Source.id == again)).scalar_one()
        assert row.feed_problem is not None and row.feed_problem["problem"] == "stale"
        assert row.observed_at == day_start("arxiv_feed", MONDAY) and row.items == []
        assert any("not counted: stale" in w for w in row.warnings)
        # Last week's snapshot keeps its day and its entries.
        earlier = session.execute(select(Source).where(Source.id != again, Source.observed_at ==
                                                       day_start("arxiv_feed", last_week))).scalar_one()
        assert earlier.feed_problem is None and len(earlier.items) == USUAL - 1
    client = ReplayHttpClient({f"*rss.arxiv.org/rss/{CATEGORY}": Recorded(body=listing(last_week, USUAL - 1))})
    monkeypatch.setattr(clients, "http_client", lambda s: client)
    repoll = stage.store_feed(settings, ref.id, stage.fetch_feed(settings, "arxiv", MONDAY, CATEGORY))
    assert (repoll.status, repoll.source_id) == ("unchanged", again)


def test_a_weekday_without_history_and_a_first_snapshot(
    clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = register_workspace(settings, SAMPLE_WORKSPACE)
    first = _fetch_and_store(settings, monkeypatch, ref.id, MONDAY - dt.timedelta(weeks=5), listing(MONDAY, 2))
    assert _mark(clean_db, first) is None  # no history: two entries are not "truncated"
    _history(settings, monkeypatch, ref.id, MONDAY)
    saturday = MONDAY + dt.timedelta(days=5)
    quiet = _fetch_and_store(settings, monkeypatch, ref.id, saturday, listing(saturday, 0))
    assert _mark(clean_db, quiet) is None  # arXiv announces nothing then: a quiet day, not a broken feed

    other = register_workspace(settings, SAMPLE_WORKSPACE.parent)
    empty_first = _fetch_and_store(settings, monkeypatch, other.id, MONDAY, listing(MONDAY, 0))
    assert (_mark(clean_db, empty_first) or {}).get("problem") == "empty"
    later = MONDAY + dt.timedelta(days=1)
    stale_second = _fetch_and_store(settings, monkeypatch, other.id, later + dt.timedelta(days=7),
                                    listing(later, 5))
    assert (_mark(clean_db, stale_second) or {}).get("problem") == "stale"


def test_the_same_snapshots_in_date_order_get_the_same_marks(
    clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    days = [MONDAY - dt.timedelta(days=k) for k in range(35, -1, -1)]
    sizes = {d: (0 if d.weekday() >= 5 else 3 if d == MONDAY else USUAL) for d in days}
    marks = []
    for root in (SAMPLE_WORKSPACE, SAMPLE_WORKSPACE.parent):
        ref = register_workspace(settings, root)
        ids = [_fetch_and_store(settings, monkeypatch, ref.id, d, listing(d, sizes[d])) for d in days]
        marks.append([(_mark(clean_db, i) or {}).get("problem") for i in ids])
    assert marks[0] == marks[1]
    # Empty weekends are quiet days (never enough history of listings there to judge); MONDAY is truncated.
    assert [d for d, m in zip(days, marks[0], strict=True) if m] == [MONDAY] and marks[0][-1] == "truncated"


BRIEFING_DAY = dt.date(2026, 10, 9)  # a sample golden date: the sample itself has no feed snapshot


def test_the_density_statement_and_the_notification_name_the_problem(
    clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ref = ingest_all(settings, SAMPLE_WORKSPACE)
    _history(settings, monkeypatch, ref.id, BRIEFING_DAY)
    _fetch_and_store(settings, monkeypatch, ref.id, BRIEFING_DAY, listing(BRIEFING_DAY, 0))
    (topic,) = topics_for(settings, SAMPLE_WORKSPACE, None)[:1]
    window = window_of(topic, BRIEFING_DAY)
    assert window.start < day_start("arxiv_feed", BRIEFING_DAY) <= window.end
    wording = {"en": "arXiv cs.DC listing empty today: not counted as a quiet day",
               "zh": "arXiv cs.DC 列表今日为空：不计为平静的一天"}
    docs = {}
    for lang, words in wording.items():
        markdown, json_text = render_briefing(settings.model_copy(update={"lang": lang}), ref, topic, window)
        statement_line = next(line for line in markdown.splitlines() if words in line)
        assert statement_line.startswith(("Honesty statement", "诚实度声明"))
        doc = json.loads(json_text)
        (problem,) = doc["feed_problems"]
        assert problem["problem"] == "empty" and problem["text"] == words
        assert problem["path"] == f"https://rss.arxiv.org/rss/{CATEGORY}"
        docs[lang] = doc

    with serve_hooks() as hooks:
        told = settings.model_copy(update={"notify_webhooks": [hooks.url], "notify_backoff_seconds": 0, "lang": "en"})
        outcome = notify_published(told, LocalStore(tmp_path / "pub"), topic.name, BRIEFING_DAY, "h1",
                                   date_summary(docs["en"]),
                                   "https://example.org/page", "https://example.org/atom.xml")
    assert list(outcome.values()) == ["sent"]
    (body,) = hooks.bodies
    assert wording["en"] in body["feed_problems"] and wording["en"] in body["message"]


def test_a_healthy_snapshot_leaves_the_statement_as_it_was(
    clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = ingest_all(settings, SAMPLE_WORKSPACE)
    (topic,) = topics_for(settings, SAMPLE_WORKSPACE, None)[:1]
    window = window_of(topic, BRIEFING_DAY)
    _history(settings, monkeypatch, ref.id, BRIEFING_DAY)
    _fetch_and_store(settings, monkeypatch, ref.id, BRIEFING_DAY, listing(BRIEFING_DAY, USUAL))
    markdown, json_text = render_briefing(settings, ref, topic, window)
    assert "订阅源异常" not in markdown and "feed_problems" not in json.loads(json_text)
