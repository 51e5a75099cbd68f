"""Row-shaped results of the feed clients (snapshots and their items) and the helpers they share."""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from tasks.common.arxiv_ids import canonicalize, find_ids
from tasks.common.guard import guarded
from tasks.common.text import clean_text as clean_text_chars
from tasks.common.text import has_bad_chars

FeedKind = Literal["hf_daily", "arxiv_feed"]


@dataclass(frozen=True)
class FeedItem:
    """One entry of a feed snapshot; `arxiv_id` is canonical, or None when the entry names no valid id."""

    arxiv_id: str | None
    version: int | None
    title: str
    authors: tuple[str, ...]
    summary: str
    categories: tuple[str, ...]
    announce_type: str | None  # arXiv listings only: new | cross | replace | replace-cross
    doi: str | None
    journal_ref: str | None
    upvotes: int | None  # HF Daily only
    link: str | None
    raw_id: str  # the identifier exactly as the feed wrote it (guid, paper.id or link)


@dataclass(frozen=True)
class FeedSnapshot:
    """One fetched feed response: a source row (uri + body hash) and its items in feed order."""

    uri: str
    kind: FeedKind
    day: dt.date | None
    fetched_body_sha256: str
    items: tuple[FeedItem, ...]
    error: str | None = None
    warnings: tuple[str, ...] = ()  # entries skipped or values dropped (the rest of the snapshot stands)
    requested_day: dt.date | None = None  # the day it was fetched for; `day` is the listing's own


def clean_item(item: FeedItem) -> FeedItem:
    """`item` with every string safe to store (no NUL, no lone surrogate: JSON escapes can carry both)."""
    changes: dict[str, Any] = {}
    for name in ("arxiv_id", "title", "summary", "announce_type", "doi", "journal_ref", "link", "raw_id"):
        value = getattr(item, name)
        if isinstance(value, str) and has_bad_chars(value):
            changes[name] = clean_text_chars(value)
    for name in ("authors", "categories"):
        values = getattr(item, name)
        if any(has_bad_chars(v) for v in values):
            changes[name] = tuple(clean_text_chars(v) for v in values)
    return replace(item, **changes) if changes else item


def guarded_items(entries: Iterable[Any], parse: Callable[[Any], FeedItem]) -> tuple[tuple[FeedItem, ...], tuple[str, ...]]:
    """Each feed entry parsed in its own guarded step: the items that parsed (cleaned), and a
    warning naming each entry that did not."""
    items: list[FeedItem] = []
    warnings: list[str] = []
    for position, entry in enumerate(entries):
        step = guarded(f"entry {position}", parse, entry)
        if step.value is not None:
            items.append(clean_item(step.value))
        elif step.failure is not None:
            warnings.append(f"entry {position} skipped: {step.failure.error}")
    return tuple(items), tuple(warnings)


def body_sha256(body: bytes) -> str:
    """Hex sha256 of a response body, the content half of a source's identity."""
    return hashlib.sha256(body).hexdigest()


def failed_snapshot(uri: str, kind: FeedKind, day: dt.date | None, body: bytes, error: str) -> FeedSnapshot:
    """A snapshot that records why a response could not be read; it has no items."""
    return FeedSnapshot(uri, kind, day, body_sha256(body), (), error)


# feedparser flags these but still parses the document correctly.
_HARMLESS_BOZO = frozenset({"CharacterEncodingOverride", "NonXMLContentType"})


def feed_problem(parsed: Any) -> str | None:
    """Why a feedparser result is not a usable feed, or None when it is."""
    exc = parsed.get("bozo_exception")
    if parsed.get("bozo") and exc is not None and type(exc).__name__ not in _HARMLESS_BOZO:
        return f"{type(exc).__name__}: {exc}"
    if not parsed.get("version"):
        return "not an RSS or Atom document"
    return None


_OAI_PREFIX = re.compile(r"^\s*oai:arxiv\.org:", re.IGNORECASE)


def parse_arxiv_ref(raw: str) -> tuple[str, int | None] | None:
    """(canonical id, version) from a guid, abs/pdf link, mirror link or bare id; None if none is valid."""
    text = raw.strip()
    if not text:
        return None
    stripped = _OAI_PREFIX.sub("", text)
    direct = canonicalize(stripped)
    if direct is not None:
        return direct
    for match in find_ids(text):
        if match.canonical is not None:
            return match.canonical, match.version
    # Mirrors such as tldr.takara.ai/p/<id> put the id after a slash, where find_ids (rightly, for prose)
    # refuses to see a bare id; an old-style id spans the last two path segments.
    segments = [s for s in text.split("?")[0].split("#")[0].split("/") if s]
    for tail in (segments[-1:], segments[-2:]):
        if tail and (parsed := canonicalize("/".join(tail))) is not None:
            return parsed
    return None


_TAG = re.compile(r"<[^>]+>")


def clean_text(text: str | None) -> str:
    """Collapse hard line wraps and runs of spaces; blank lines stay as paragraph breaks."""
    if not text:
        return ""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())


def strip_html(fragment: str) -> str:
    """Plain text of a small HTML fragment (tags dropped, entities decoded); it is never rendered."""
    return clean_text(html.unescape(_TAG.sub(" ", fragment)))


def split_authors(creator: str) -> tuple[str, ...]:
    """Split arXiv's comma-joined `dc:creator`, keeping commas inside parenthesised affiliations."""
    names: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in creator:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            names.append("".join(current))
            current = []
        else:
            current.append(ch)
    names.append("".join(current))
    # The affiliation is not part of the name; arxiv-feed appends it as " (Affiliation)".
    cleaned = (" ".join(re.sub(r"\s*\([^()]*\)\s*$", "", n).split()) for n in names)
    return tuple(n for n in cleaned if n)
