"""Hugging Face Daily Papers: one day's listing (JSON API or an RSS form of it) as a FeedSnapshot.

Both JSON schemas parse: the 2024 one (`paper{id, authors, title, summary, upvotes}`) and the
current one (adds ai_summary, githubRepo, organization, ...); upvotes are read at `paper.upvotes`.
RSS forms are community feeds (feedgen HTML descriptions with Authors/Upvotes/Summary paragraphs,
or plain-abstract feeds that carry neither). Parsers and fetchers never raise for bad bytes or
HTTP failures: the snapshot carries `error` and no items instead.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import re
from collections.abc import Mapping
from typing import Any

import feedparser

from tasks.common.guard import guarded
from tasks.common.limits import count_or_none, parse_count
from tasks.feeds.http import HttpClient, TransportError, full_url
from tasks.feeds.model import (
    FeedItem,
    FeedSnapshot,
    body_sha256,
    clean_item,
    clean_text,
    failed_snapshot,
    feed_problem,
    guarded_items,
    parse_arxiv_ref,
    strip_html,
)

HF_DAILY_API = "https://huggingface.co/api/daily_papers"
HF_PAPER_PAGE = "https://huggingface.co/papers/"
# The API pages its answer (50 items by default); one day rarely lists more than 100 papers.
HF_PAGE_LIMIT = 100


def hf_daily_uri(day: dt.date) -> str:
    """The request URL for one day's listing, which is also the snapshot's source URI."""
    return full_url(HF_DAILY_API, _params(day))


def _params(day: dt.date) -> dict[str, str]:
    return {"date": day.isoformat(), "limit": str(HF_PAGE_LIMIT)}


def parse_hf_daily_json(body: bytes, day: dt.date) -> FeedSnapshot:
    """Parse a `/api/daily_papers?date=` response (2024 or current schema) into a snapshot."""
    uri = hf_daily_uri(day)
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as err:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return failed_snapshot(uri, "hf_daily", day, body, f"invalid JSON from HF daily papers: {err}")
    if isinstance(data, dict) and "error" in data:
        return failed_snapshot(uri, "hf_daily", day, body, f"HF daily papers error: {data['error']}")
    if not isinstance(data, list):
        return failed_snapshot(uri, "hf_daily", day, body, f"expected a JSON array, got {type(data).__name__}")
    items: list[FeedItem] = []
    warnings: list[str] = []
    for position, entry in enumerate(data):
        # Each paper in its own guarded step: a malformed one is skipped and named, the rest stand.
        step = guarded(f"entry {position}", _json_entry, entry, warnings)
        if step.failure is not None:
            warnings.append(f"entry {position} skipped: {step.failure.error.split(': ', 1)[-1]}")
        elif step.value is not None:
            items.append(step.value)
    if data and not items:  # nothing readable at all: the response, not one entry, is bad
        return failed_snapshot(uri, "hf_daily", day, body, f"no readable paper in HF daily papers ({warnings[0].replace(' skipped:', '')})")
    return FeedSnapshot(uri, "hf_daily", day, body_sha256(body), tuple(items), warnings=tuple(warnings))


def _json_entry(entry: Any, warnings: list[str]) -> FeedItem:
    paper = entry.get("paper") if isinstance(entry, dict) else None
    if not isinstance(paper, dict):
        raise ValueError("has no paper object")
    return clean_item(_json_item(entry, paper, warnings))


def _json_item(entry: Mapping[str, Any], paper: Mapping[str, Any], warnings: list[str] | None = None) -> FeedItem:
    raw_id = str(paper.get("id") or "")[:200]
    parsed = parse_arxiv_ref(raw_id)
    authors = tuple(
        clean_text(str(a["name"])) for a in paper.get("authors") or [] if isinstance(a, dict) and a.get("name")
    )
    upvotes = count_or_none(paper.get("upvotes"), f"upvotes of {raw_id or 'an entry'}",
                            warnings if warnings is not None else [])
    return FeedItem(
        arxiv_id=parsed[0] if parsed else None,
        version=parsed[1] if parsed else None,
        # 2024 titles and summaries keep arXiv's hard line breaks; clean_text undoes them.
        title=clean_text(str(paper.get("title") or entry.get("title") or "")),
        authors=authors,
        summary=clean_text(str(paper.get("summary") or entry.get("summary") or "")),
        categories=(),
        announce_type=None,
        doi=None,
        journal_ref=None,
        upvotes=upvotes,
        link=HF_PAPER_PAGE + raw_id if raw_id else None,
        raw_id=raw_id,
    )


_LABELLED = re.compile(r"<b>\s*([A-Za-z ]+?)\s*:\s*</b>(.*?)</p>", re.IGNORECASE | re.DOTALL)


def parse_hf_daily_rss(body: bytes, day: dt.date | None = None, uri: str | None = None) -> FeedSnapshot:
    """Parse an RSS form of HF Daily Papers; `day` defaults to the channel's lastBuildDate (UTC)."""
    parsed = feedparser.parse(body, sanitize_html=False, resolve_relative_uris=False)
    uri = uri or _self_link(parsed) or ""
    problem = feed_problem(parsed)
    if problem:
        return failed_snapshot(uri, "hf_daily", day, body, f"unreadable HF daily RSS: {problem}")
    day = day or _build_day(parsed.feed.get("updated") or parsed.feed.get("published"))
    items, warnings = guarded_items(parsed.entries, _rss_item)
    return FeedSnapshot(uri, "hf_daily", day, body_sha256(body), items, warnings=warnings)


def _rss_item(entry: Any) -> FeedItem:
    link = entry.get("link") or None
    raw_id = entry.get("id") or link or ""
    parsed = parse_arxiv_ref(raw_id) or (parse_arxiv_ref(link) if link else None)
    description = entry.get("summary") or ""
    fields = {label.lower(): value for label, value in _LABELLED.findall(description)}
    upvotes = fields.get("upvotes", "").strip()
    authors = strip_html(fields["authors"]).split(",") if "authors" in fields else []
    summary = fields.get("summary", description if not fields else "")
    return FeedItem(
        arxiv_id=parsed[0] if parsed else None,
        version=parsed[1] if parsed else None,
        title=clean_text(entry.get("title")),
        authors=tuple(a.strip() for a in authors if a.strip()),
        summary=strip_html(summary),
        categories=(),
        announce_type=None,
        doi=None,
        journal_ref=None,
        upvotes=parse_count(upvotes, "upvotes", []) if upvotes.isascii() and upvotes.isdigit() else None,
        link=link,
        raw_id=raw_id,
    )


def _self_link(parsed: Any) -> str | None:
    for link in parsed.feed.get("links") or []:
        if link.get("rel") == "self" and link.get("href"):
            return str(link["href"])
    href = parsed.feed.get("link")
    return str(href) if href else None


def _build_day(stamp: str | None) -> dt.date | None:
    if not stamp:
        return None
    try:
        when = email.utils.parsedate_to_datetime(stamp)
    except (TypeError, ValueError):
        return None
    return when.astimezone(dt.UTC).date() if when.tzinfo else when.date()


def fetch_hf_daily(client: HttpClient, day: dt.date) -> FeedSnapshot:
    """GET one day's listing from the JSON API; failures come back as a snapshot with `error`."""
    uri = hf_daily_uri(day)
    try:
        resp = client.get(HF_DAILY_API, _params(day))
    except TransportError as err:
        return failed_snapshot(uri, "hf_daily", day, b"", f"no response: {err}")
    if resp.status != 200:
        return failed_snapshot(uri, "hf_daily", day, resp.body, f"HTTP {resp.status} from {uri}")
    return parse_hf_daily_json(resp.body, day)


def fetch_hf_daily_rss(client: HttpClient, url: str, day: dt.date | None = None) -> FeedSnapshot:
    """GET an RSS form of HF Daily Papers at `url`; failures come back as a snapshot with `error`."""
    try:
        resp = client.get(url)
    except TransportError as err:
        return failed_snapshot(url, "hf_daily", day, b"", f"no response: {err}")
    if resp.status != 200:
        return failed_snapshot(url, "hf_daily", day, resp.body, f"HTTP {resp.status} from {url}")
    return parse_hf_daily_rss(resp.body, day, uri=url)
