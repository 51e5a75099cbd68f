"""arXiv listing feeds from rss.arxiv.org (RSS 2.0 and Atom) as FeedSnapshots, via feedparser.

Each item keeps its announce type (new / cross / replace / replace-cross), its versioned id from
the `oai:arXiv.org:<id>v<N>` guid (or, failing that, the description or link), categories, DOI
and journal reference. A snapshot's day is the announcement day in arXiv's own timezone
(US/Eastern), read from the feed; a feed with no items (arXiv skips weekends) is not an error.
Parsers and fetchers never raise for bad bytes or HTTP failures.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import re
from typing import Any
from zoneinfo import ZoneInfo

import feedparser

from tasks.feeds.http import HttpClient, TransportError
from tasks.feeds.results import (
    FeedItem,
    FeedSnapshot,
    body_sha256,
    clean_text,
    failed_snapshot,
    feed_problem,
    guarded_items,
    parse_arxiv_ref,
    split_authors,
)

ARXIV_RSS_BASE = "https://rss.arxiv.org"
ANNOUNCE_TYPES = frozenset({"new", "cross", "replace", "replace-cross"})
# arXiv announces at midnight US/Eastern; the feed's dates are that midnight.
ARXIV_TZ = ZoneInfo("America/New_York")
# The generator writes `arXiv:<id>v<N> Announce Type: <type> \nAbstract: <abstract>`.
_DESCRIPTION = re.compile(
    r"^\s*arXiv:(?P<id>\S+)\s+Announce Type:\s*(?P<type>[\w-]+)\s*(?:Abstract:\s*)?(?P<abstract>.*)\Z",
    re.DOTALL,
)


def arxiv_feed_uri(category: str, flavour: str = "rss") -> str:
    """The feed URL of a category (or `+`-joined categories), flavour `rss` or `atom`."""
    return f"{ARXIV_RSS_BASE}/{flavour}/{category}"


def parse_arxiv_feed(body: bytes, uri: str, day: dt.date | None = None) -> FeedSnapshot:
    """Parse an rss.arxiv.org RSS or Atom body; `day` is used only when the feed carries no date."""
    parsed = feedparser.parse(body, sanitize_html=False, resolve_relative_uris=False)
    problem = feed_problem(parsed)
    if problem:
        return failed_snapshot(uri, "arxiv_feed", day, body, f"unreadable arXiv feed: {problem}")
    feed_day = _announcement_day(parsed)
    items, warnings = guarded_items(parsed.entries, _item)
    return FeedSnapshot(uri, "arxiv_feed", feed_day or day, body_sha256(body), items, warnings=warnings)


def _item(entry: Any) -> FeedItem:
    description = entry.get("summary") or ""
    described = _DESCRIPTION.match(description)
    link = entry.get("link") or None
    raw_id = entry.get("id") or ""
    parsed = parse_arxiv_ref(raw_id) if raw_id else None
    if parsed is None and described:
        parsed = parse_arxiv_ref(described.group("id"))
    if parsed is None and link:
        parsed = parse_arxiv_ref(link)
    announce = (entry.get("arxiv_announce_type") or (described.group("type") if described else "")).strip()
    creator = entry.get("author") or ""
    return FeedItem(
        arxiv_id=parsed[0] if parsed else None,
        version=parsed[1] if parsed else None,
        title=clean_text(entry.get("title")),
        authors=split_authors(creator),
        summary=clean_text(described.group("abstract") if described else description),
        categories=tuple(t["term"] for t in entry.get("tags") or [] if t.get("term")),
        # An unexpected value is kept as written rather than guessed; consumers check ANNOUNCE_TYPES.
        announce_type=announce.lower() or None,
        doi=_text(entry.get("arxiv_doi")),
        journal_ref=_text(entry.get("arxiv_journal_reference") or entry.get("arxiv_journal_ref")),
        upvotes=None,
        link=link,
        raw_id=raw_id or link or "",
    )


def _text(value: Any) -> str | None:
    text = clean_text(value) if isinstance(value, str) else ""
    return text or None


def _announcement_day(parsed: Any) -> dt.date | None:
    """The listing day in US/Eastern: the channel pubDate, else an entry's published, else updated."""
    stamps = [parsed.feed.get("published")]
    stamps += [e.get("published") for e in parsed.entries[:1]]
    stamps.append(parsed.feed.get("updated"))
    for stamp in stamps:
        when = _parse_stamp(stamp)
        if when is not None:
            return when.astimezone(ARXIV_TZ).date()
    return None


def _parse_stamp(stamp: str | None) -> dt.datetime | None:
    if not stamp:
        return None
    try:
        when = dt.datetime.fromisoformat(stamp)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(stamp)
        except (TypeError, ValueError):
            return None
    # A stamp without an offset cannot be placed in a day safely.
    return when if when.tzinfo is not None else None


def fetch_arxiv_category(client: HttpClient, category: str, day: dt.date, flavour: str = "rss") -> FeedSnapshot:
    """GET today's listing for `category`; the snapshot's day is the feed's own (compare it with `day`)."""
    uri = arxiv_feed_uri(category, flavour)
    try:
        resp = client.get(uri)
    except TransportError as err:
        return failed_snapshot(uri, "arxiv_feed", day, b"", f"no response: {err}")
    if resp.status != 200:
        return failed_snapshot(uri, "arxiv_feed", day, resp.body, f"HTTP {resp.status} from {uri}")
    return parse_arxiv_feed(resp.body, uri, day)
