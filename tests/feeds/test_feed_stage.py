"""Contract of the feed stages and the poll-feeds flow: recorded responses are stored as sources with
one item per paper (upvotes, announce types, categories kept), re-polling writes nothing, a broken
feed is recorded with its error while the others complete, and arXiv metadata is looked up once."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from db.engine import session_scope
from db.models import Item, Mention, Paper, Source
from tasks.config.settings import Settings
from tasks.feeds import clients, stage
from tasks.feeds.arxiv_api import ArxivLookup
from tasks.feeds.http import FakeClock, Recorded, ReplayHttpClient
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.workspace import register_workspace
from tests.helpers import SAMPLE_WORKSPACE, ingest_all, point_flows_at

FEEDS = Path(__file__).resolve().parents[1] / "fixtures" / "feeds"
HF_JSON = FEEDS / "hf-daily-papers-api_2026-05-18_first-3-of-50.json"
ARXIV_RSS = FEEDS / "arxiv-rss-2026-04-27_cs.LG_3-new-items.xml"
EMPTY_API = FEEDS / "arxiv-api-atom-2026_id_list-0000.0000_empty-result.xml"


def _replay(monkeypatch: pytest.MonkeyPatch, routes: dict) -> ReplayHttpClient:  # type: ignore[type-arg]
    client = ReplayHttpClient(routes)
    monkeypatch.setattr(clients, "http_client", lambda settings: client)
    return client


def _counts(engine: Engine) -> tuple[int, int, int]:
    with engine.connect() as conn:
        return tuple(conn.execute(select(func.count()).select_from(t)).scalar_one() for t in (Source, Item, Mention))  # type: ignore[return-value]


def test_snapshots_are_stored_once_with_feed_fields(
    clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    _replay(monkeypatch, {"*huggingface.co/api/daily_papers*": HF_JSON, "*rss.arxiv.org/rss/cs.LG*": ARXIV_RSS})
    ref = register_workspace(settings, SAMPLE_WORKSPACE)
    day = dt.date(2026, 5, 18)
    hf = stage.store_feed(settings, ref.id, stage.fetch_feed(settings, "hf_daily", day))
    # Fetched for the listing's own day: fetched three weeks later, it is stale and its entries are not stored.
    rss = stage.store_feed(settings, ref.id, stage.fetch_feed(settings, "arxiv", dt.date(2026, 4, 27), "cs.LG"))
    assert (hf.status, hf.error, rss.status, rss.error) == ("new", None, "new", None)
    with session_scope(clean_db) as session:
        kinds = dict(session.execute(select(Source.path, Source.kind)).tuples().all())
        assert sorted(kinds.values()) == ["arxiv_feed", "hf_daily"]
        hf_items = session.execute(select(Item).join(Source).where(Source.kind == "hf_daily")).scalars().all()
        assert len(hf_items) == 3 and all(isinstance(i.extra["upvotes"], int) for i in hf_items)
        rss_items = session.execute(select(Item).join(Source).where(Source.kind == "arxiv_feed")).scalars().all()
        assert len(rss_items) == 3 and all(i.extra["announce_type"] == "new" for i in rss_items)
        assert all("cs.LG" in i.extra["categories"] for i in rss_items)
    before = _counts(clean_db)
    again = stage.store_feed(settings, ref.id, stage.fetch_feed(settings, "hf_daily", day))
    assert again.status == "unchanged" and _counts(clean_db) == before


def test_poll_flow_records_a_broken_feed_and_completes(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flows.feeds import poll_feeds

    point_flows_at(monkeypatch, settings)
    _replay(monkeypatch, {
        "*huggingface.co/api/daily_papers*": Recorded(body=b"{not json", status=200),
        "*rss.arxiv.org/rss/cs.LG*": ARXIV_RSS,
        "*rss.arxiv.org/rss/cs.CL*": Recorded(status=503, body=b"busy"),
    })
    outcomes = asyncio.run(poll_feeds(date=dt.date(2026, 4, 27), categories=["cs.LG", "cs.CL"],
                                      workspace=str(SAMPLE_WORKSPACE)))
    by_path = {o.path.split("/")[-1].split("?")[0]: o for o in outcomes}
    assert by_path["cs.LG"].error is None
    assert by_path["daily_papers"].error and by_path["cs.CL"].error
    with session_scope(clean_db) as session:
        errors = session.execute(select(Source.path, Source.error).where(Source.error.is_not(None))).all()
    assert len(errors) == 2


def test_papers_are_looked_up_once(clean_db: Engine, settings: Settings) -> None:
    ref = ingest_all(settings, SAMPLE_WORKSPACE)
    client = ReplayHttpClient({"*export.arxiv.org/api/query*": EMPTY_API})
    clock = FakeClock()
    lookup = ArxivLookup(client, sleep=clock.sleep, clock=clock.monotonic)
    first = stage.lookup_papers(settings, ref.id, lookup=lookup)
    assert first.asked > 50 and first.requests == -(-first.asked // 100)  # ceil: one request per 100 ids
    assert first.unknown == first.asked  # the recorded answer knows none of them
    with session_scope(clean_db) as session:
        assert session.execute(select(func.count()).select_from(Paper)).scalar_one() == first.asked
    second = stage.lookup_papers(settings, ref.id, lookup=lookup)
    assert (second.asked, second.requests) == (0, 0)
    assert all(s >= 3.0 for s in clock.sleeps)


def test_feed_items_need_the_topic_in_title_or_several_terms(clean_db: Engine, settings: Settings) -> None:
    """A listing item whose abstract mentions the topic once is checked but not an increment: one
    term is below the weight a topic needs to own a paper (judgment.toml `min_owner`)."""
    from tasks.judge.evidence import judge_ownership
    from tasks.judge.relevance import Verdict
    from tasks.model.window_views import MentionView, WindowData

    (topic,) = topics_for(settings, SAMPLE_WORKSPACE, ["inference"])
    now = dt.datetime(2026, 10, 9, tzinfo=dt.UTC)

    def mention(context: str) -> MentionView:
        return MentionView(1, "https://rss.arxiv.org/rss/cs.LG", "arxiv_feed", 0, None, "t", "t", "2610.00001",
                           "oai:arXiv.org:2610.00001", False, context, now)

    data = WindowData(window_of(topic, now.date()))

    def verdict(context: str) -> Any:
        return judge_ownership("2610.00001", [mention(context)], {}, data, topic)

    passing = verdict("Graph Learning for Molecules\nWe use variational inference.")
    titled = verdict("Fast vLLM Serving\nA system.")
    dense = verdict("A System\nWe cut TTFT and raise throughput with KV cache reuse.")
    assert (passing.verdict, titled.verdict, dense.verdict) == (Verdict.NONE, Verdict.RELEVANT, Verdict.RELEVANT)
