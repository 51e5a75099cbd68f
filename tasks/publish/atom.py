"""A topic's Atom feed, `briefings/<topic>/atom.xml` (`atom.en.xml` in English), built with feedgen: one
entry per published date. Each language has its own feed, entry ids and links.

Deterministic: entry ids are UUIDs derived from the briefing's key, `updated` is the briefing's
cutoff (the moment its content is as of), the feed's `updated` the latest of them, and entries are
newest first, the latest `FEED_ENTRIES` dates. Every text goes through `clean_text` first, so no input can make the XML ill-formed.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from feedgen.feed import FeedGenerator

from tasks.common.urls import safe_url
from tasks.model.keys import DEFAULT_LANG, object_key, object_name, topic_folder, topic_names, topic_site_key
from tasks.publish.pages import labels_for, render_entry_html, statement
from tasks.publish.safety import clean_text

# Fixed namespace for entry and feed ids: they must never change, or readers see every entry again.
_ID_NAMESPACE = uuid.UUID("6d1f0c52-2f0b-5b8e-9a57-2d6c1e8f4b10")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
# Entries kept in a feed: the latest dates (a reader polls daily; the topic's index page lists them all).
# Unbounded, a year of history made every publish re-render a year of entries.
FEED_ENTRIES = 100


def entry_id(topic: str, date: str, lang: str = DEFAULT_LANG) -> str:
    """The stable Atom id of one briefing in `lang` (derived from its key without the suffix)."""
    return uuid.uuid5(_ID_NAMESPACE, object_key(topic, dt.date.fromisoformat(date), lang, "")).urn


def _moment(summary: Mapping[str, Any]) -> dt.datetime:
    raw = summary.get("cutoff")
    if raw:
        moment = dt.datetime.fromisoformat(str(raw))
        return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    return dt.datetime.combine(dt.date.fromisoformat(str(summary["date"])), dt.time(), dt.UTC)


def _href(site_url: str | None, topic: str, name: str) -> str:
    """Absolute under the public site URL when one is configured, else relative to the feed itself."""
    base = safe_url(site_url)
    return f"{base.rstrip('/')}/{topic_folder(topic)}/{name}" if base else name


def render_feed(topic: str, summaries: Sequence[Mapping[str, Any]], lang: str, site_url: str | None = None) -> bytes:
    """The Atom document of a topic's briefings in `lang` (UTF-8 bytes)."""
    key_lang, names = lang, topic_names(lang)
    lang, L, _ = labels_for(lang)
    fg = FeedGenerator()
    fg.id(uuid.uuid5(_ID_NAMESPACE, topic_site_key(topic, key_lang)).urn)
    fg.title(clean_text(L["feed_title"].format(topic=topic)))
    fg.subtitle(clean_text(L["feed_subtitle"].format(topic=topic)))
    fg.language("zh-Hans" if lang == "zh" else "en")
    fg.author({"name": "predigest"})
    fg.generator("predigest")
    fg.link(href=_href(site_url, topic, names["feed"]), rel="self", type="application/atom+xml")
    fg.link(href=_href(site_url, topic, names["topic_index"]), rel="alternate", type="text/html")
    ordered = sorted(summaries, key=lambda s: str(s["date"]))[-FEED_ENTRIES:]
    fg.updated(max((_moment(s) for s in ordered), default=_EPOCH))
    for s in ordered:  # feedgen prepends: the newest entry ends up first
        date = str(s["date"])
        entry = fg.add_entry()
        entry.id(entry_id(topic, date, key_lang))
        entry.title(clean_text(L["title"].format(topic=topic, date=date)))
        entry.link(href=_href(site_url, topic, object_name(date, key_lang, ".html")), rel="alternate", type="text/html")
        entry.updated(_moment(s))
        entry.published(_moment(s))
        entry.summary(statement(s, lang))
        entry.content(clean_text(render_entry_html(s, lang)), type="html")
    data: bytes = fg.atom_str(pretty=True, encoding="UTF-8", xml_declaration=True)
    return data
