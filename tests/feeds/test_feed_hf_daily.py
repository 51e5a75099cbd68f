"""tasks.feeds.hf_daily: each recorded HF Daily Papers response (JSON API in the 2024 and current
schema, two RSS forms) yields exactly its papers, in order, with canonical ids and `paper.upvotes`;
bad bytes and HTTP/transport failures give a snapshot with `error` set and no items, never an
exception. Expected values are literals read off the fixtures by eye (and by grep). No network.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

from tasks.feeds.hf_daily import (
    fetch_hf_daily,
    fetch_hf_daily_rss,
    hf_daily_uri,
    parse_hf_daily_json,
    parse_hf_daily_rss,
)
from tasks.feeds.http import Recorded, ReplayHttpClient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "feeds"
LEGACY = FIXTURES / "hf-daily-papers-api_2024-03-21_legacy-schema.json"
CURRENT = FIXTURES / "hf-daily-papers-api_2026-05-18_first-3-of-50.json"
RSS_FEEDGEN = FIXTURES / "hf-daily-papers-rss_huangboming-feed.xml_2026-08-08_30-items.xml"
RSS_TAKARA = FIXTURES / "hf-daily-papers-rss_takara-papers.takara.ai-api-feed_2026-04-30_50-items.xml"


def test_legacy_2024_schema_yields_all_18_papers_with_upvotes() -> None:
    body = LEGACY.read_bytes()
    snap = parse_hf_daily_json(body, dt.date(2024, 3, 21))
    assert snap.error is None
    assert (snap.kind, snap.day) == ("hf_daily", dt.date(2024, 3, 21))
    assert snap.uri == hf_daily_uri(dt.date(2024, 3, 21))
    assert snap.fetched_body_sha256 == hashlib.sha256(body).hexdigest()
    assert [(i.arxiv_id, i.upvotes) for i in snap.items] == [
        ("2403.13248", 47), ("2403.13372", 35), ("2403.13187", 24), ("2403.13064", 23),
        ("2403.13806", 16), ("2403.13043", 16), ("2403.13535", 15), ("2403.13447", 13),
        ("2403.13788", 9), ("2403.13044", 9), ("2403.13787", 8), ("2403.13799", 8),
        ("2403.13745", 7), ("2403.13802", 7), ("2403.13501", 7), ("2403.13524", 6),
        ("2401.13923", 6), ("2403.13793", 5),
    ]  # fmt: skip
    first = snap.items[0]
    assert first.title == "Mora: Enabling Generalist Video Generation via A Multi-Agent Framework"
    assert first.authors[:3] == ("Zhengqing Yuan", "Ruoxi Chen", "Zhaoxu Li") and len(first.authors) == 7
    # arXiv's hard line breaks in the 2024 summary are undone.
    assert "garnered significant attention" in first.summary and "\n" not in first.summary
    assert (first.version, first.raw_id, first.link) == (None, "2403.13248", "https://huggingface.co/papers/2403.13248")
    assert all(i.categories == () and i.announce_type is None and i.doi is None for i in snap.items)


def test_current_schema_yields_its_three_papers_with_upvotes() -> None:
    snap = parse_hf_daily_json(CURRENT.read_bytes(), dt.date(2026, 5, 18))
    assert snap.error is None
    assert [(i.arxiv_id, i.upvotes, len(i.authors)) for i in snap.items] == [
        ("2605.15320", 1, 6),
        ("2605.15963", 2, 11),
        ("2605.15301", 1, 13),
    ]
    assert snap.items[0].title == "FFAvatar: Few-Shot, Feed-Forward, and Generalizable Avatar Reconstruction"
    assert snap.items[0].authors[0] == "Thuan Hoang Nguyen"


def test_feedgen_rss_form_yields_30_papers_with_authors_and_upvotes() -> None:
    snap = parse_hf_daily_rss(RSS_FEEDGEN.read_bytes())
    assert snap.error is None
    assert snap.day == dt.date(2026, 8, 8)  # lastBuildDate, Sat 08 Aug 2026 00:40 +0000
    assert [i.arxiv_id for i in snap.items] == [
        "2607.28609", "2608.01049", "2608.01492", "2608.01481", "2608.01851", "2608.03451",
        "2608.05424", "2608.04956", "2608.05137", "2608.05369", "2608.05138", "2608.05248",
        "2608.05785", "2608.06216", "2608.06257", "2608.05784", "2608.05798", "2608.06146",
        "2608.05850", "2608.06352", "2608.05565", "2608.06374", "2608.06301", "2608.05802",
        "2608.06020", "2608.05631", "2608.06060", "2608.06197", "2608.05747", "2608.05987",
    ]  # fmt: skip
    assert [i.upvotes for i in snap.items] == [
        52, 0, 0, 46, 0, 19, 4, 5, 11, 14, 17, 46, 0, 2, 3, 9, 10, 10, 10, 11, 12, 15, 20, 20, 24, 24, 26, 29, 30, 67,
    ]
    first = snap.items[0]
    assert first.title.startswith("OSReward: Instituting Standardized Evaluation")
    assert first.authors[:2] == ("Qiushi Sun", "Kanzhi Cheng") and first.authors[-1] == "Lingpeng Kong"
    assert first.summary.startswith("Computer-using agents (CUAs) are advancing rapidly")
    assert "<" not in first.summary and "Upvotes" not in first.summary
    assert (first.raw_id, first.link) == ("https://arxiv.org/abs/2607.28609", "https://arxiv.org/abs/2607.28609")


def test_plain_abstract_rss_form_yields_50_papers_without_authors_or_upvotes() -> None:
    snap = parse_hf_daily_rss(RSS_TAKARA.read_bytes(), uri="https://papers.takara.ai/api/feed")
    assert snap.error is None and snap.uri == "https://papers.takara.ai/api/feed"
    assert snap.day == dt.date(2026, 4, 30)
    assert len(snap.items) == 50
    ids = [i.arxiv_id for i in snap.items]
    assert ids[:3] == ["2604.26238", "2604.26378", "2604.26269"] and ids[-1] == "2604.26444"
    assert len(set(ids)) == 50
    assert all(i.upvotes is None and i.authors == () for i in snap.items)
    assert snap.items[0].raw_id == "https://tldr.takara.ai/p/2604.26238"
    assert snap.items[0].summary.startswith("3D Gaussian Splatting (3DGS) has been widely adopted")


def test_invalid_json_and_wrong_shapes_are_snapshots_with_errors() -> None:
    day = dt.date(2024, 3, 21)
    truncated = LEGACY.read_bytes()[:4000]
    for body, message in [
        (truncated, "invalid JSON"),
        (b"\xff\xfe\x00garbage", "invalid JSON"),
        (b'{"error": "Invalid date"}', "Invalid date"),
        (b'{"papers": []}', "expected a JSON array"),
        (b'[{"title": "no paper object"}]', "entry 0 has no paper object"),
    ]:
        snap = parse_hf_daily_json(body, day)
        assert snap.items == () and snap.error is not None and message in snap.error, body[:30]
        assert snap.fetched_body_sha256 == hashlib.sha256(body).hexdigest()


def test_empty_day_is_an_empty_snapshot_not_an_error() -> None:
    snap = parse_hf_daily_json(b"[]", dt.date(2024, 3, 23))
    assert (snap.items, snap.error) == ((), None)


def test_truncated_rss_is_a_snapshot_with_an_error() -> None:
    snap = parse_hf_daily_rss(RSS_TAKARA.read_bytes()[:5000], dt.date(2026, 4, 30))
    assert snap.items == ()
    assert snap.error is not None and "unreadable HF daily RSS" in snap.error


def test_fetch_requests_the_day_and_parses_the_answer() -> None:
    client = ReplayHttpClient({"https://huggingface.co/api/daily_papers?date=2024-03-21*": LEGACY})
    snap = fetch_hf_daily(client, dt.date(2024, 3, 21))
    assert snap.error is None and len(snap.items) == 18
    assert client.requests == [("https://huggingface.co/api/daily_papers", {"date": "2024-03-21", "limit": "100"})]


def test_fetch_failures_never_raise() -> None:
    day = dt.date(2024, 3, 21)
    client = ReplayHttpClient({"*": [Recorded(status=500, body=b"oops"), Recorded(fail="timed out")]})
    http_error = fetch_hf_daily(client, day)
    assert http_error.items == () and http_error.error is not None and "HTTP 500" in http_error.error
    transport = fetch_hf_daily(client, day)
    assert transport.error == "no response: timed out" and transport.items == ()


def test_fetch_rss_form() -> None:
    url = "https://papers.takara.ai/api/feed"
    client = ReplayHttpClient({url: RSS_TAKARA})
    snap = fetch_hf_daily_rss(client, url)
    assert (snap.uri, snap.error, len(snap.items)) == (url, None, 50)
    missing = fetch_hf_daily_rss(client, "https://papers.takara.ai/api/other")
    assert missing.error is not None and "HTTP 404" in missing.error
