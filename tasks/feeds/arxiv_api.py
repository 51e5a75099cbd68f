"""arXiv API metadata: parse `export.arxiv.org/api/query` Atom, and look ids up in polite batches.

Contract:
- `parse_arxiv_api` reads current and legacy (2016) responses. arXiv reports errors as an Atom entry
  whose id is under `arxiv.org/api/errors` (with HTTP 400): that becomes `error`. An empty result
  (totalResults 0) is no error; an id missing from a batch is simply absent from `found`.
- `ArxivLookup.lookup` asks once for every canonical id not already `known` (unless `refresh`),
  up to `batch_size` ids a request, at least `min_interval` seconds apart (arXiv's rule is one
  request per 3 s), retrying 429/5xx/transport failures with growing backoff. Asked-for ids absent
  from a successful answer are `unknown`; ids in a batch that failed are in neither set, so a later
  run asks again. Malformed ids are never sent (one would make arXiv reject the whole batch).
- `title_matches` compares a note's title with arXiv's (rapidfuzz token_set_ratio).
"""

from __future__ import annotations

import datetime as dt
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from rapidfuzz import fuzz, utils

from predigest.arxiv_ids import canonicalize
from tasks.feeds.http import HttpClient, HttpResponse, TransportError
from tasks.feeds.model import clean_text, parse_arxiv_ref

ARXIV_API_URL = "http://export.arxiv.org/api/query"
_NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# token_set_ratio scores 100 when every word of one title appears in the other, so a note that
# shortens a title ("MolClaw: An Autonomous Agent") still matches; 90 lets through spelling and
# punctuation variants (optimisation/optimization: 98, Descriptors/Descriptions: 94.5) but not a
# different paper that shares a few words ("Random walks on graphs" vs a heat-bath paper: 71).
TITLE_MATCH_THRESHOLD = 90.0


@dataclass(frozen=True)
class ArxivMetadata:
    """What arXiv says about one paper, at its latest version."""

    arxiv_id: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    categories: tuple[str, ...]
    primary_category: str | None
    published: dt.datetime | None
    updated: dt.datetime | None
    latest_version: int | None
    doi: str | None
    journal_ref: str | None


@dataclass(frozen=True)
class ApiResult:
    """One parsed API response: papers by canonical id, or the error arXiv (or the bytes) gave."""

    found: dict[str, ArxivMetadata]
    error: str | None = None
    total_results: int | None = None
    malformed: bool = False  # the bytes were not a readable Atom feed


@dataclass(frozen=True)
class LookupResult:
    """Outcome of a lookup run: found papers, ids arXiv does not know, errors, and requests made."""

    found: dict[str, ArxivMetadata]
    unknown: set[str]
    errors: list[str]
    requests: int
    malformed: set[str] = field(default_factory=set)  # not valid arXiv ids; never sent


def parse_arxiv_api(body: bytes) -> ApiResult:
    """Parse an arXiv API Atom response; never raises for bad bytes."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError as err:
        return ApiResult({}, f"malformed arXiv API response: {err}", malformed=True)
    if root.tag != f"{{{_NS['atom']}}}feed":
        return ApiResult({}, f"not an Atom feed: root element {root.tag!r}", malformed=True)
    total = _int(root.findtext("opensearch:totalResults", namespaces=_NS))
    found: dict[str, ArxivMetadata] = {}
    errors: list[str] = []
    for entry in root.iterfind("atom:entry", _NS):
        entry_id = (entry.findtext("atom:id", default="", namespaces=_NS)).strip()
        if "/api/errors" in entry_id:
            # Match on the id, not the title: a real paper may well be titled "Error".
            message = clean_text(entry.findtext("atom:summary", namespaces=_NS)) or entry_id
            errors.append(f"arXiv API error: {message}")
            continue
        meta = _metadata(entry, entry_id)
        if meta is not None:
            found[meta.arxiv_id] = meta
    return ApiResult(found, "; ".join(errors) or None, total)


def _metadata(entry: ET.Element, entry_id: str) -> ArxivMetadata | None:
    parsed = parse_arxiv_ref(entry_id)
    if parsed is None:
        return None
    primary = entry.find("arxiv:primary_category", _NS)
    return ArxivMetadata(
        arxiv_id=parsed[0],
        # The default only covers a missing element: a title of "0" is a real title (arxiv.py #71).
        title=clean_text(entry.findtext("atom:title", default="", namespaces=_NS)),
        authors=tuple(
            clean_text(a.findtext("atom:name", default="", namespaces=_NS))
            for a in entry.iterfind("atom:author", _NS)
        ),
        abstract=clean_text(entry.findtext("atom:summary", default="", namespaces=_NS)),
        categories=tuple(c.get("term", "") for c in entry.iterfind("atom:category", _NS) if c.get("term")),
        primary_category=primary.get("term") if primary is not None else None,
        published=_when(entry.findtext("atom:published", namespaces=_NS)),
        updated=_when(entry.findtext("atom:updated", namespaces=_NS)),
        latest_version=parsed[1],
        doi=clean_text(entry.findtext("arxiv:doi", namespaces=_NS)) or None,
        journal_ref=clean_text(entry.findtext("arxiv:journal_ref", namespaces=_NS)) or None,
    )


def _int(text: str | None) -> int | None:
    try:
        return int(text.strip()) if text else None
    except ValueError:
        return None


def _when(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return when.astimezone(dt.UTC) if when.tzinfo else when.replace(tzinfo=dt.UTC)


def title_matches(note_title: str, arxiv_title: str, threshold: float = TITLE_MATCH_THRESHOLD) -> bool:
    """Whether a title written in a note names the paper arXiv titles `arxiv_title` (case/punctuation-blind)."""
    score = fuzz.token_set_ratio(note_title, arxiv_title, processor=utils.default_process)
    return score >= threshold


class ArxivLookup:
    """Batched, rate-limited, retrying arXiv metadata lookups over an `HttpClient`."""

    def __init__(
        self,
        client: HttpClient,
        sleep: Callable[[float], None] = time.sleep,
        min_interval: float = 3.0,
        batch_size: int = 100,
        max_retries: int = 4,
        clock: Callable[[], float] = time.monotonic,
        backoff_base: float = 5.0,
        max_backoff: float = 120.0,
        url: str = ARXIV_API_URL,
    ):
        if not 1 <= batch_size <= 2000:  # arXiv returns at most 2000 results per request
            raise ValueError(f"batch_size must be 1..2000, got {batch_size}")
        self.client, self.sleep, self.clock = client, sleep, clock
        self.min_interval, self.batch_size, self.max_retries = min_interval, batch_size, max_retries
        self.backoff_base, self.max_backoff, self.url = backoff_base, max_backoff, url
        # Spacing holds across lookup() calls on one instance: share the instance within a run.
        self._last_request: float | None = None

    def lookup(self, ids: Iterable[str], known: set[str], refresh: bool = False) -> LookupResult:
        """Look up every id not in `known` (all of them when `refresh`); each id at most once per call."""
        known_canonical = {_canonical_or_raw(k) for k in known}
        wanted: dict[str, None] = {}  # ordered set: batches follow the order ids were mentioned
        result = LookupResult({}, set(), [], 0, set())
        for raw in ids:
            parsed = canonicalize(raw)
            if parsed is None:
                result.malformed.add(raw)
            elif refresh or parsed[0] not in known_canonical:
                wanted[parsed[0]] = None
        todo = list(wanted)
        requests = sum(
            self._lookup_batch(todo[start : start + self.batch_size], result)
            for start in range(0, len(todo), self.batch_size)
        )
        return replace(result, requests=requests)

    def _lookup_batch(self, batch: list[str], into: LookupResult) -> int:
        """Resolve one batch into `into`'s collections; returns the number of requests made."""
        requests = 0
        while batch:
            api, error, made = self._request(batch)
            requests += made
            if api is not None:
                into.found.update({i: api.found[i] for i in batch if i in api.found})
                into.unknown.update(i for i in batch if i not in api.found)
                break
            # arXiv rejects a whole batch for one id it cannot parse: set that id aside and ask again.
            rejected = _rejected_id(error or "")
            if rejected is not None and rejected in batch:
                into.malformed.add(rejected)
                into.errors.append(error or "")
                batch = [i for i in batch if i != rejected]
                continue
            into.errors.append(f"{error} [ids: {', '.join(batch)}]")
            break
        return requests

    def _request(self, batch: list[str]) -> tuple[ApiResult | None, str | None, int]:
        """One batch with retries: (result, None, requests) on success, else (None, error, requests)."""
        # Without max_results arXiv answers at most 10 entries, whatever the id_list length.
        params = {"id_list": ",".join(batch), "max_results": str(len(batch))}
        error = "no attempt made"
        for attempt in range(self.max_retries + 1):
            self._wait_turn()
            retry_after: float | None = None
            try:
                resp = self.client.get(self.url, params)
            except TransportError as err:
                error = f"arXiv API unreachable: {err}"
            else:
                if resp.status in RETRY_STATUSES:
                    error, retry_after = f"arXiv API HTTP {resp.status}", _retry_after(resp)
                else:
                    api = parse_arxiv_api(resp.body)
                    if resp.status == 200 and api.error is None:
                        return api, None, attempt + 1
                    if resp.status != 200:
                        # Final: arXiv explains a 400 in an Atom error entry; other bodies say nothing useful.
                        detail = f": {api.error}" if api.error and not api.malformed else ""
                        return None, f"arXiv API HTTP {resp.status}{detail}", attempt + 1
                    if not api.malformed:
                        return None, api.error, attempt + 1
                    error = api.error or ""  # a truncated 200 is a transfer accident worth retrying
            if attempt < self.max_retries:
                delay = max(self.backoff_base * 2**attempt, retry_after or 0.0)
                self.sleep(min(delay, self.max_backoff))
        return None, f"{error} after {self.max_retries + 1} attempts", self.max_retries + 1

    def _wait_turn(self) -> None:
        now = self.clock()
        if self._last_request is not None:
            wait = self.min_interval - (now - self._last_request)
            if wait > 0:
                self.sleep(wait)
                now = self.clock()
        self._last_request = now


def _canonical_or_raw(raw: str) -> str:
    parsed = canonicalize(raw)
    return parsed[0] if parsed else raw


def _rejected_id(error: str) -> str | None:
    match = re.search(r"incorrect id format for (\S+)", error)
    return match.group(1) if match else None


def _retry_after(resp: HttpResponse) -> float | None:
    value = resp.header("retry-after")
    try:
        return float(value) if value else None
    except ValueError:
        return None  # an HTTP-date Retry-After; the exponential backoff stands in for it
