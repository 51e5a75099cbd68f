"""Feed health: is a snapshot empty, stale or truncated against that feed's own history?

A feed that answers 200 with an empty or old listing reads like a quiet day. Each snapshot is
judged from its own facts (`Facts`: entry count, listing date, the day it was fetched for) and the
same feed's snapshots of earlier days, never from the order they were stored in (`judge_feed`):
- **empty**: no entries while that weekday usually has some, or no earlier snapshot at all;
- **stale**: the listing is more than `stale_days[kind]` days older than its day (`is_stale`);
- **truncated**: under `truncated_ratio` × the median of recent healthy snapshots of that weekday.
A weekday with too little history is not judged on its count, so a quiet day never reads as a
broken feed. Thresholds are data: tasks/config/judgment.toml `[feed_health]`.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from tasks.config.judgment import Judgment
from tasks.feeds.results import FeedSnapshot, body_sha256

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
    def from_mapping(cls, values: Mapping[str, Any]) -> FeedHealthRule:
        """The rule from a `[feed_health]` table (the run's merged judgment's)."""
        table = dict(values)
        return cls(int(table["history"]), int(table["min_history"]), float(table["truncated_ratio"]),
                   {str(k): int(v) for k, v in dict(table.get("stale_days", {})).items()})

    @classmethod
    def of(cls, j: Judgment) -> FeedHealthRule:
        """The rule of the judgment `j` (its `[feed_health]`)."""
        return cls.from_mapping(j.config["feed_health"])


@dataclass(frozen=True)
class Facts:
    """What one stored snapshot says by itself (`sources.feed_facts`), and the day it counts on."""

    source_id: int
    identity: str  # its stored sha256: orders same-day snapshots without asking when they were stored
    counted_on: dt.date  # its `observed_at` as a day where the feed publishes
    count: int
    listing_day: dt.date
    expected_day: dt.date

    @property
    def judged_on(self) -> dt.date:
        """The day whose weekday and history it is measured against."""
        return max(self.listing_day, self.expected_day)


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


def local_day(kind: str, at: dt.datetime) -> dt.date:
    """The day `at` falls on where a feed of `kind` publishes."""
    return at.astimezone(ZoneInfo(FEED_TIMEZONES[kind])).date()


def stale_identity(snapshot: FeedSnapshot) -> str:
    """A stale snapshot's stored hash: its body's with the day it was fetched for."""
    return body_sha256(f"stale {snapshot.requested_day} {snapshot.fetched_body_sha256}".encode())


def is_stale(kind: str, listing_day: dt.date, expected_day: dt.date, rule: FeedHealthRule) -> bool:
    """Whether a listing dated `listing_day` is too old for the day it was fetched for."""
    stale_days = rule.stale_days.get(kind)
    return stale_days is not None and (expected_day - listing_day).days > stale_days


def snapshot_facts(snapshot: FeedSnapshot) -> dict[str, Any] | None:
    """The facts stored with a snapshot (`sources.feed_facts`); None for one that is never judged
    (an error is already a failure; a listing without a date cannot be placed in a feed's history)."""
    if snapshot.error is not None or snapshot.day is None:
        return None
    return {"count": len(snapshot.items), "listing_day": snapshot.day.isoformat(),
            "expected_day": (snapshot.requested_day or snapshot.day).isoformat()}


def _measure_order(f: Facts) -> tuple[dt.date, dt.date, int, str]:
    return f.counted_on, f.expected_day, f.count, f.identity


def judge_feed(kind: str, feed: str, snapshots: Iterable[Facts],
               rule: FeedHealthRule) -> dict[int, dict[str, Any] | None]:
    """Every snapshot of one feed -> its feed problem (with the numbers behind it) or None, judged
    day by day from the days before it.

    Judged in date order, not against marks stored when earlier snapshots were written, so "a
    snapshot that was a problem is no measure of usual" is a function of the stored set alone: a
    backfill storing a later day first ends with the marks of a date-order run (and so the same
    density statement and one notification). Truncation compares with the last `history` healthy
    snapshots of the same weekday (within `history + 1` weeks), once there are `min_history`.
    Of two snapshots counted on the same day, the day's measure is the one fetched for the latest
    day, then the fuller, then by identity: not the last stored."""
    ordered = sorted(snapshots, key=_measure_order)
    marks: dict[int, dict[str, Any] | None] = {}
    measure: dict[dt.date, Facts] = {}  # per day counted on, the snapshot that measures it
    for f in ordered:
        measure[f.counted_on] = f  # the last in `_measure_order` of its day
    for f in ordered:
        weeks = (f.judged_on - dt.timedelta(weeks=k) for k in range(1, rule.history + 2))
        # Only days before f's own: their marks are made, whatever `stale_days` allows.
        days = [measure[d] for d in weeks if d in measure and d < f.counted_on]
        counts = [m.count for m in days if marks[m.source_id] is None][: rule.history]
        first = next((o for o in ordered if o.source_id != f.source_id), None)
        any_earlier = first is not None and first.counted_on < f.judged_on
        marks[f.source_id] = _problem(kind, feed, f, counts, any_earlier, rule)
    return marks


def _problem(kind: str, feed: str, f: Facts, counts: list[int], any_earlier: bool,
             rule: FeedHealthRule) -> dict[str, Any] | None:
    judged = len(counts) >= rule.min_history
    usual = statistics.median(counts) if judged else None
    facts: dict[str, Any] = {"feed": feed, "count": f.count, "usual": usual, "history": len(counts),
                             "listing_day": f.listing_day.isoformat(), "expected_day": f.expected_day.isoformat()}
    if f.count == 0 and ((usual is not None and usual > 0) or not any_earlier):
        return {"problem": "empty", **facts}
    if is_stale(kind, f.listing_day, f.expected_day, rule):
        return {"problem": "stale", **facts}
    if usual is not None and f.count < rule.truncated_ratio * usual:
        return {"problem": "truncated", **facts}
    return None
