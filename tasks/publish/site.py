"""Publish a briefing with its static site: its page, its topic's index page and Atom feed, and the site index.

Keys (all built by `tasks.model.keys`, under the same store as the markdown and JSON; each other
language has its own site beside the default one): `briefings/<topic>/<date>.html`,
`briefings/<topic>/index.html`, `briefings/<topic>/atom.xml`, `briefings/<topic>/site.json` (what
the index and feed need of each date) and `briefings/index.html`.
`publish_with_site` writes a briefing and its page from its rendering, then (unless `site=False`)
refreshes its topic's site; a backfill publishes with `site=False` and calls `refresh_site` once,
which writes the same bytes. Earlier dates' summaries come from site.json, or from their stored
JSON twins (`stored_summary`, the one reader of published briefings). Each object is written only
when its bytes change; callers serialise publishing across workers (the index lock).
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tasks.common.jsontext import json_text, json_value
from tasks.model.keys import (
    briefing_keys,
    site_index_key,
    site_keys,
    topic_folder,
    topic_keys,
    twin_key_parts,
)
from tasks.publish.atom import render_feed
from tasks.publish.objects import (
    JSON_CONTENT_TYPE,
    PublishedBriefing,
    put_if_changed,
    read_index,
    update_index,
    write_briefing,
)
from tasks.publish.pages import (
    OPTIONAL_SUMMARY_FIELDS,
    date_summary,
    render_page,
    render_root_index,
    render_topic_index,
)
from tasks.publish.rendered import RenderedBriefing
from tasks.publish.storage import ObjectStore, sha256_hex

log = logging.getLogger(__name__)

HTML_CONTENT_TYPE = "text/html; charset=utf-8"
ATOM_CONTENT_TYPE = "application/atom+xml; charset=utf-8"
_SUMMARY_FIELDS = frozenset(date_summary({"date": ""}))  # written by this version (an older one is rebuilt)
_SITE_LOCK = threading.Lock()  # site.json is read-modify-write, like the index


@dataclass(frozen=True)
class PublishedSite:
    """What publishing a briefing with its site stored, and which of the site's objects it had to write."""

    briefing: PublishedBriefing
    page_key: str
    feed_key: str
    topic_index_key: str
    page_written: bool
    feed_written: bool
    topic_index_written: bool
    site_index_written: bool

    @property
    def written(self) -> bool:
        """Whether anything a reader sees changed: the markdown, the JSON or the page."""
        return self.briefing.markdown_written or self.briefing.json_written or self.page_written


# The summaries of the twins this process wrote, by the sha256 of the twin's bytes: a twin is
# written from a view, and the view's summary is the summary of the twin parsed back, so a
# backfill's site refresh does not parse again the year of twins (most of a refresh) it just wrote.
_WRITTEN_KEPT = 1024
_written: OrderedDict[str, dict[str, Any]] = OrderedDict()


def _wrote(briefing: RenderedBriefing) -> None:
    digest = sha256_hex(briefing.json_text.encode("utf-8"))
    with _SITE_LOCK:
        _written[digest] = copy.deepcopy(briefing.summary)
        _written.move_to_end(digest)
        while len(_written) > _WRITTEN_KEPT:
            _written.popitem(last=False)


def stored_summary(store: ObjectStore, topic: str, date: dt.date, lang: str) -> dict[str, Any] | None:
    """The summary (`date_summary`) of the briefing of `topic` on `date` in `lang` as published,
    read from its stored JSON twin (that of a twin this process wrote is known); None when there is
    none or it is unreadable. The one place a published briefing is read back: only for dates a
    site lists that this process did not just render (published by an earlier run, or by another
    lane of a backfill)."""
    key = briefing_keys(topic, date, lang)[1]
    raw = store.get(key)
    if raw is None:
        return None
    known = _written.get(sha256_hex(raw))
    if known is not None:
        return copy.deepcopy(known)
    try:
        return date_summary(json_value(raw))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("skipping %s in the site of %s: %s", store.url_for(key), topic, exc)
        return None


def _rebuild_summaries(store: ObjectStore, topic: str, lang: str, known: Collection[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for key in store.list(f"{topic_folder(topic)}/"):
        parts = twin_key_parts(key)
        if parts is None or parts[0] != topic or parts[2] != lang or parts[1] in known:
            continue
        try:
            date = dt.date.fromisoformat(parts[1])
        except ValueError:
            continue
        if briefing_keys(topic, date, lang)[1] != key:
            continue
        if (summary := stored_summary(store, topic, date, lang)) is not None:
            out[parts[1]] = summary
    return out


def read_summaries(store: ObjectStore, topic: str, lang: str, known: Collection[str] = ()) -> dict[str, dict[str, Any]]:
    """date -> summary of every briefing of `topic` published in `lang`; rebuilt from the JSON twins if need be.
    `known`: dates whose summaries the caller has and puts over these: a rebuild does not read
    their twins (a backfill's first site refresh read a year of twins twice)."""
    key = topic_keys(topic, lang)["summaries"]
    raw = store.get(key)
    if raw is not None:
        try:
            document = json.loads(raw.decode("utf-8"))
            dated = {str(s["date"]): s for s in document["dates"]}
            if any(set(s) - OPTIONAL_SUMMARY_FIELDS != _SUMMARY_FIELDS for s in dated.values()):
                raise ValueError("an entry is not a date summary")
            return dated
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("%s is unreadable (%s); rebuilding it from the JSON twins", store.url_for(key), exc)
    return _rebuild_summaries(store, topic, lang, known)


def _summaries_bytes(summaries: Mapping[str, Mapping[str, Any]]) -> bytes:
    ordered = [summaries[d] for d in sorted(summaries)]
    return (json_text({"dates": ordered}) + "\n").encode("utf-8")


def _write_site(
    store: ObjectStore, topic: str, fresh: Mapping[str, dict[str, Any]], lang: str, site_url: str | None,
) -> dict[str, bool]:
    """The topic's summaries with `fresh` (date -> summary) merged in, written as site.json, the
    topic's index page and feed, and the site index; which of the last three it had to write.
    The caller holds `_SITE_LOCK` (site.json is read-modify-write)."""
    keys = topic_keys(topic, lang)
    summaries = read_summaries(store, topic, lang, known=fresh.keys())
    summaries.update(fresh)
    put_if_changed(store, keys["summaries"], _summaries_bytes(summaries), JSON_CONTENT_TYPE)
    ordered = [summaries[d] for d in sorted(summaries)]
    written = {"topic_index": put_if_changed(store, keys["topic_index"], render_topic_index(topic, ordered, lang),
                                             HTML_CONTENT_TYPE),
               "feed": put_if_changed(store, keys["feed"], render_feed(topic, ordered, lang, site_url),
                                      ATOM_CONTENT_TYPE)}
    latest = []
    for other in sorted({e.topic for e in read_index(store)} | {topic}):
        dated = summaries if other == topic else read_summaries(store, other, lang)
        if dated:
            latest.append((other, dated[max(dated)]))
    written["site_index"] = put_if_changed(store, site_index_key(lang), render_root_index(latest, lang),
                                           HTML_CONTENT_TYPE)
    return written


def refresh_site(
    store: ObjectStore, topic: str, dates: Iterable[dt.date], lang: str, site_url: str | None = None,
) -> dict[str, bool]:
    """Refresh the topic's site once for `dates`: each date's summary taken from its stored JSON
    twin (a date with none, or an unreadable one, is left as it was), then site.json, the topic's
    index page and feed and the site index written where changed. Which of the last three it wrote."""
    with _SITE_LOCK:
        # Twins are read under the lock: a publisher writes its twin before refreshing, so whichever
        # of us refreshes last has read the newest twin.
        fresh = {}
        for date in dates:
            summary = stored_summary(store, topic, date, lang)
            if summary is not None:
                fresh[date.isoformat()] = summary
        return _write_site(store, topic, fresh, lang, site_url)


def _write_page(
    store: ObjectStore, briefing: RenderedBriefing, lang: str, site_url: str | None,
) -> tuple[dict[str, str], bool]:
    keys = site_keys(briefing.topic, briefing.date, lang)
    return keys, put_if_changed(store, keys["page"], render_page(briefing.view, lang, site_url), HTML_CONTENT_TYPE)


def publish_site(
    store: ObjectStore, briefing: RenderedBriefing, lang: str, site_url: str | None = None,
) -> tuple[dict[str, str], dict[str, bool]]:
    """Write the page of one briefing and refresh its topic's index page, feed and the site index
    with its summary."""
    keys, page = _write_page(store, briefing, lang, site_url)
    with _SITE_LOCK:
        written = _write_site(store, briefing.topic, {briefing.date.isoformat(): briefing.summary}, lang, site_url)
    return keys, {"page": page, **written}


def publish_with_site(
    store: ObjectStore, briefing: RenderedBriefing, lang: str = "zh", site_url: str | None = None, site: bool = True,
) -> PublishedSite:
    """`publish_briefing` (markdown, JSON twin, index.json), then the briefing's page and its topic's site.

    `site=False` writes the page only and leaves the topic's site (site.json, index page, feed, site
    index) as it was: the caller refreshes it later with `refresh_site` (a backfill, once for all its dates)."""
    published = write_briefing(store, briefing.topic, briefing.date, briefing.markdown, briefing.json_text, lang,
                               index=False)
    _wrote(briefing)
    if site:
        keys, written = publish_site(store, briefing, lang, site_url)
    else:
        keys, page = _write_page(store, briefing, lang, site_url)
        written = {"page": page, "topic_index": False, "feed": False, "site_index": False}
    # The index last: a publish cut short by the store (S3 retries exhausted) never leaves an entry
    # whose markdown, twin or page is missing; the re-run writes what is missing, then the entry.
    update_index(store, [published.index_entry()])
    return PublishedSite(published, keys["page"], keys["feed"], keys["topic_index"], written["page"],
                         written["feed"], written["topic_index"], written["site_index"])
