"""Feed health: is a snapshot empty, stale or truncated against that feed's own history?

A feed that answers 200 with an empty or old listing reads like a quiet day. Each snapshot is
judged when it is stored, from stored snapshots only, so a backfill that stores the same snapshots
in date order marks the same ones:
- **empty**: no entries, while the feed's snapshots of the same weekday usually have some; or no
  entries in the feed's first-ever snapshot (nothing says a quiet day is usual for it);
- **stale**: the listing's own date is more than `stale_days[kind]` days before the day it was
  fetched for;
- **truncated**: fewer entries than `truncated_ratio` × the median of the feed's last `history`
  snapshots of the same weekday, when it has at least `min_history` of them.
A weekday with too little history is not judged on its count (arXiv announces nothing on
Friday and Saturday evenings, US/Eastern), so a quiet day never reads as a broken feed.
Thresholds are data: predigest/judgment.toml `[feed_health]`.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from db.models import Item, Source
from predigest.judgment import default_judgment
from tasks.feeds.model import FeedSnapshot, body_sha256

# The day a snapshot belongs to starts at midnight where the feed publishes it: HF Daily dates are
# UTC days; arXiv announcement days are US/Eastern. Both land inside that date's evening window.
FEED_TIMEZONES = {"hf_daily": "UTC", "arxiv_feed": "America/New_York"}


@dataclass(frozen=True)
class FeedHealthRule:
    history: int
    min_history: int
    truncated_ratio: float
    stale_days: Mapping[str, int]

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None = None) -> FeedHealthRule:
        """The rule from a `[feed_health]` table (default: the packaged one)."""
        table = dict(values if values is not None else default_judgment().config.get("feed_health", {}))
        return cls(int(table["history"]), int(table["min_history"]), float(table["truncated_ratio"]),
                   {str(k): int(v) for k, v in dict(table.get("stale_days", {})).items()})


def feed_key(uri: str) -> str:
    """What stays the same across a feed's snapshots: its URI without the query (HF names the day there)."""
    return uri.split("?", 1)[0]


def feed_name(uri: str, kind: str) -> str:
    """How the briefing names a feed: "arXiv cs.DC", "HF Daily"."""
    if kind == "arxiv_feed":
        return f"arXiv {feed_key(uri).rstrip('/').rsplit('/', 1)[-1]}"
    return "HF Daily"


def day_start(kind: str, day: dt.date) -> dt.datetime:
    """The start of `day` where a feed of `kind` publishes it, in UTC."""
    return dt.datetime.combine(day, dt.time(0, 0), tzinfo=ZoneInfo(FEED_TIMEZONES[kind])).astimezone(dt.UTC)


def stale_identity(snapshot: FeedSnapshot) -> str:
    """A stale snapshot's stored hash: its body's with the day it was fetched for."""
    return body_sha256(f"stale {snapshot.requested_day} {snapshot.fetched_body_sha256}".encode())


def weekday_counts(session: Session, workspace_id: int, snapshot: FeedSnapshot, day: dt.date,
                   rule: FeedHealthRule) -> tuple[list[int], bool]:
    """Entry counts of the feed's last `rule.history` healthy snapshots on `day`'s weekday before
    `day` (one per day, the last stored), and whether the feed has any earlier snapshot at all."""
    key, tz = feed_key(snapshot.uri), ZoneInfo(FEED_TIMEZONES[snapshot.kind])
    start = day_start(snapshot.kind, day)
    same_feed = [Source.workspace_id == workspace_id, Source.kind == snapshot.kind,
                 or_(Source.path == key, Source.path.startswith(key + "?", autoescape=True)),
                 Source.observed_at < start, Source.error.is_(None)]
    any_earlier = session.execute(select(select(Source.id).where(*same_feed).exists())).scalar_one()
    rows = session.execute(
        select(Source.id, Source.observed_at, Source.feed_problem, func.count(Item.id))
        .outerjoin(Item, Item.source_id == Source.id)
        .where(*same_feed, Source.observed_at >= start - dt.timedelta(weeks=rule.history + 1))
        .group_by(Source.id).order_by(Source.observed_at.desc(), Source.id.desc())
    ).all()
    by_day: dict[dt.date, tuple[int, Any]] = {}
    for _, observed, problem, count in rows:
        local = observed.astimezone(tz).date()
        if local.weekday() == day.weekday():
            by_day.setdefault(local, (int(count), problem))  # the last stored of that day
    # A snapshot already marked as a problem is no measure of what is usual.
    counts = [count for _, (count, problem) in sorted(by_day.items(), reverse=True) if problem is None]
    return counts[: rule.history], bool(any_earlier)


def judge_snapshot(session: Session, workspace_id: int, snapshot: FeedSnapshot,
                   rule: FeedHealthRule | None = None) -> dict[str, Any] | None:
    """The snapshot's feed problem (what, with the numbers behind it), or None when it looks healthy.
    A snapshot with an error is already a failure and is not judged again."""
    if snapshot.error is not None or snapshot.day is None:
        return None
    rule = rule or FeedHealthRule.from_mapping()
    expected = snapshot.requested_day or snapshot.day
    day = max(snapshot.day, expected)
    counts, any_earlier = weekday_counts(session, workspace_id, snapshot, day, rule)
    judged = len(counts) >= rule.min_history
    usual = statistics.median(counts) if judged else None
    count = len(snapshot.items)
    facts: dict[str, Any] = {"feed": feed_name(snapshot.uri, snapshot.kind), "count": count,
                             "usual": usual, "history": len(counts), "listing_day": snapshot.day.isoformat(),
                             "expected_day": expected.isoformat()}
    stale_days = rule.stale_days.get(snapshot.kind)
    if count == 0 and ((usual is not None and usual > 0) or not any_earlier):
        return {"problem": "empty", **facts}
    if stale_days is not None and (expected - snapshot.day).days > stale_days:
        return {"problem": "stale", **facts}
    if usual is not None and count < rule.truncated_ratio * usual:
        return {"problem": "truncated", **facts}
    return None
