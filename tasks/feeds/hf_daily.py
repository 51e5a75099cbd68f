"""Hugging Face Daily Papers: one day's listing (JSON API or an RSS form of it) as a FeedSnapshot.

Both JSON schemas parse: the 2024 one (`paper{id, authors, title, summary, upvotes}`) and the
current one (adds ai_summary, githubRepo, organization, ...); upvotes are read at `paper.upvotes`.
RSS forms are community feeds (feedgen HTML descriptions with Authors/Upvotes/Summary paragraphs,
or plain-abstract feeds that carry neither). Parsers and fetchers never raise for bad bytes or
HTTP failures: the snapshot carries `error` and no items instead.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

from tasks.common.guard import guarded
from tasks.common.limits import count_or_none
from tasks.feeds.http import HttpClient, TransportError, full_url
from tasks.feeds.results import (
    FeedItem,
    FeedSnapshot,
    body_sha256,
    clean_item,
    clean_text,
    failed_snapshot,
    parse_arxiv_ref,
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
