"""tasks.feeds.hf_daily: each recorded HF Daily Papers response (JSON API in the 2024 and current
schema) yields exactly its papers, in order, with canonical ids and `paper.upvotes`;
bad bytes and HTTP/transport failures give a snapshot with `error` set and no items, never an
exception. Expected values are literals read off the fixtures by eye (and by grep). No network.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

from tasks.feeds.hf_daily import (
    fetch_hf_daily,
    hf_daily_uri,
    parse_hf_daily_json,
)
from tasks.feeds.http import Recorded, ReplayHttpClient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "feeds"
LEGACY = FIXTURES / "hf-daily-papers-api_2024-03-21_legacy-schema.json"
CURRENT = FIXTURES / "hf-daily-papers-api_2026-05-18_first-3-of-50.json"


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
