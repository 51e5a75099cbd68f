"""Publish briefings idempotently: write each object only when its bytes change, and keep an index of them all."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tasks.common.jsontext import json_text
from tasks.common.text import clean_text
from tasks.model.keys import DEFAULT_LANG, INDEX_KEY, ROOT, briefing_keys, twin_key_parts
from tasks.publish.storage import ObjectStore, sha256_hex

log = logging.getLogger(__name__)

MARKDOWN_CONTENT_TYPE = "text/markdown; charset=utf-8"
JSON_CONTENT_TYPE = "application/json"

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_INDEX_FIELDS = frozenset({"topic", "date", "markdown", "json", "content_hash"})
# The index is read-modify-write; topics published from parallel threads must not drop each other's entries.
# (Separate processes can still race; the loser's entry returns on its next publish, which re-merges it.)
_INDEX_LOCK = threading.Lock()


def briefing_content_hash(markdown: bytes, json_bytes: bytes) -> str:
    """Hex sha256 of the UTF-8 markdown bytes, one NUL byte, then the UTF-8 JSON bytes."""
    # The NUL separator keeps ("a ", "{}") and ("a", " {}") apart; valid JSON text never contains a raw NUL.
    return hashlib.sha256(markdown + b"\x00" + json_bytes).hexdigest()


def put_if_changed(store: ObjectStore, key: str, data: bytes, content_type: str) -> bool:
    """Write `data` under `key` only if the stored bytes differ; return whether it wrote."""
    # Comparing hashes lets S3 answer with a HEAD instead of a download, and skipping the write keeps
    # file mtimes and S3 LastModified stable across re-runs.
    if store.head_sha256(key) == sha256_hex(data):
        return False
    store.put(key, data, content_type)
    return True


@dataclass(frozen=True)
class IndexEntry:
    """One line of `briefings/index.json`."""

    topic: str
    date: dt.date
    markdown_key: str
    json_key: str
    content_hash: str
    lang: str = DEFAULT_LANG

    def to_dict(self) -> dict[str, str]:
        """Return the entry as stored in the index (`lang` only when not the default language)."""
        return {
            "topic": self.topic,
            "date": self.date.isoformat(),
            "markdown": self.markdown_key,
            "json": self.json_key,
            "content_hash": self.content_hash,
            **({"lang": self.lang} if self.lang != DEFAULT_LANG else {}),
        }

    @classmethod
    def from_dict(cls, raw: Any) -> IndexEntry:
        """Parse and validate a stored entry; raise ValueError if anything is off."""
        if (
            not isinstance(raw, dict)
            or set(raw) - {"lang"} != _INDEX_FIELDS
            or not all(isinstance(v, str) for v in raw.values())
        ):
            raise ValueError(f"malformed index entry {raw!r}")
        if not _ISO_DATE.fullmatch(raw["date"]) or not _SHA256_HEX.fullmatch(raw["content_hash"]):
            raise ValueError(f"malformed index entry {raw!r}")
        date = dt.date.fromisoformat(raw["date"])
        lang = raw.get("lang", DEFAULT_LANG)
        if (raw["markdown"], raw["json"]) != briefing_keys(raw["topic"], date, lang):
            raise ValueError(f"index entry keys do not match its topic, date and language: {raw!r}")
        return cls(raw["topic"], date, raw["markdown"], raw["json"], raw["content_hash"], lang)


@dataclass(frozen=True)
class PublishedBriefing:
    """What publish_briefing stored, and which objects it actually had to write."""

    topic: str
    date: dt.date
    markdown_key: str
    json_key: str
    content_hash: str
    markdown_written: bool
    json_written: bool
    lang: str = DEFAULT_LANG

    def index_entry(self) -> IndexEntry:
        """Return this briefing's index entry."""
        return IndexEntry(self.topic, self.date, self.markdown_key, self.json_key, self.content_hash, self.lang)


def parse_twin(topic: str, date: dt.date, json_text: str) -> Any:
    """The JSON twin parsed; ValueError naming the briefing when it is not JSON."""
    try:
        return json.loads(json_text)
    except ValueError as exc:
        raise ValueError(f"JSON twin of {topic} {date.isoformat()} is not valid JSON: {exc}") from exc


def publish_briefing(
    store: ObjectStore, topic: str, date: dt.date, markdown: str, json_text: str, lang: str = DEFAULT_LANG
) -> PublishedBriefing:
    """Write the briefing's markdown and JSON twin (in `lang`) where changed, then merge it into the index."""
    parse_twin(topic, date, json_text)
    return write_briefing(store, topic, date, markdown, json_text, lang)


def write_briefing(
    store: ObjectStore,
    topic: str,
    date: dt.date,
    markdown: str,
    json_text: str,
    lang: str = DEFAULT_LANG,
    index: bool = True,
) -> PublishedBriefing:
    """`publish_briefing` for a caller whose twin is JSON already (rendered from its view); `index=False`
    leaves the index to the caller, who merges the entry once everything it points at is stored."""
    markdown_key, json_key = briefing_keys(topic, date, lang)
    markdown_bytes = markdown.encode("utf-8")
    json_bytes = json_text.encode("utf-8")
    # Markdown first: an index rebuild discovers briefings by their .json key, so the JSON twin marks completion.
    markdown_written = put_if_changed(store, markdown_key, markdown_bytes, MARKDOWN_CONTENT_TYPE)
    json_written = put_if_changed(store, json_key, json_bytes, JSON_CONTENT_TYPE)
    published = PublishedBriefing(
        topic=topic,
        date=date,
        markdown_key=markdown_key,
        json_key=json_key,
        content_hash=briefing_content_hash(markdown_bytes, json_bytes),
        markdown_written=markdown_written,
        json_written=json_written,
        lang=lang,
    )
    if index:
        update_index(store, [published.index_entry()])
    return published


def render_index(entries: Iterable[IndexEntry], failed: Mapping[tuple[str, dt.date], str] | None = None) -> bytes:
    """Serialise entries deterministically, sorted by (date, topic), so identical content gives identical bytes.

    `failed`: (topic, date) -> error of briefings that could not be assembled, listed under "failed"
    (only when there are any, so an index without failures is what it always was)."""
    ordered = sorted(entries, key=lambda e: (e.date, e.topic, e.lang != DEFAULT_LANG, e.lang))
    document: dict[str, Any] = {"briefings": [e.to_dict() for e in ordered]}
    if failed:
        document["failed"] = [{"topic": clean_text(topic, 200), "date": date.isoformat(), "error": clean_text(error, 500)}
                              for (topic, date), error in sorted(failed.items(), key=lambda kv: (kv[0][1], kv[0][0]))]
    text = json_text(document)
    return (text + "\n").encode("utf-8")


def read_failures(store: ObjectStore) -> dict[tuple[str, dt.date], str]:
    """The index's "failed" list as (topic, date) -> error; a missing or unreadable list is empty."""
    raw = store.get(INDEX_KEY)
    try:
        listed = json.loads(raw.decode("utf-8")).get("failed", []) if raw is not None else []
        return {(str(f["topic"]), dt.date.fromisoformat(f["date"])): str(f["error"]) for f in listed}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}


def parse_index(raw: bytes) -> list[IndexEntry]:
    """Parse index bytes; raise ValueError if they are not a well-formed index."""
    document = json.loads(raw.decode("utf-8"))
    if not isinstance(document, dict) or not isinstance(document.get("briefings"), list):
        raise ValueError('index is not an object with a "briefings" list')
    return [IndexEntry.from_dict(item) for item in document["briefings"]]


def scan_briefings(store: ObjectStore) -> list[IndexEntry]:
    """Rebuild index entries from the stored `briefings/<topic>/<date>.json` objects and their markdown twins."""
    entries = []
    for key in store.list(f"{ROOT}/"):
        parts = twin_key_parts(key)
        if parts is None:
            continue
        topic, day, lang = parts
        try:
            date = dt.date.fromisoformat(day)
            markdown_key, json_key = briefing_keys(topic, date, lang)
        except ValueError:
            log.warning("skipping %s while rebuilding the index: not a briefing key", store.url_for(key))
            continue
        json_bytes = store.get(json_key)
        markdown_bytes = store.get(markdown_key)
        if json_bytes is None or markdown_bytes is None:
            log.warning(
                "skipping %s while rebuilding the index: its markdown twin is missing", store.url_for(key)
            )
            continue
        content_hash = briefing_content_hash(markdown_bytes, json_bytes)
        entries.append(IndexEntry(topic, date, markdown_key, json_key, content_hash, lang))
    return entries


def read_index(store: ObjectStore) -> list[IndexEntry]:
    """Return the index entries; a missing or corrupt index is rebuilt from the stored briefings instead."""
    raw = store.get(INDEX_KEY)
    if raw is None:
        return scan_briefings(store)
    try:
        return parse_index(raw)
    except ValueError as exc:  # includes JSONDecodeError and UnicodeDecodeError
        log.warning(
            "index %s is corrupt (%s); rebuilding it from stored briefings", store.url_for(INDEX_KEY), exc
        )
        return scan_briefings(store)


def update_index(
    store: ObjectStore, entries: Iterable[IndexEntry], failed: Mapping[tuple[str, dt.date], str] | None = None
) -> bool:
    """Merge `entries` into the index, replacing any with the same (topic, date, language), and record `failed`
    briefings (a published one is no longer failed); return whether it rewrote the index."""
    with _INDEX_LOCK:
        merged = {(e.topic, e.date, e.lang): e for e in read_index(store)}
        published = {(e.topic, e.date, e.lang): e for e in entries}
        merged.update(published)
        failures = read_failures(store)
        for topic, date, _ in published:
            failures.pop((topic, date), None)
        failures.update(failed or {})
        return put_if_changed(store, INDEX_KEY, render_index(merged.values(), failures), JSON_CONTENT_TYPE)
