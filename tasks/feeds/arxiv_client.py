"""The design card's `arxiv` package (arxiv.Client), made as polite and as testable as predigest measures it.

- `PoliteClient` is an `arxiv.Client` (its URLs, paging, `delay_seconds` and `num_retries` stand)
  that overrides only `_parse_feed`, the one fetch step, where the stock client falls short
  (docs/judgment.md, "arXiv metadata"). Here an `id_list` search of at most `page_size` ids is one
  page; requests are spaced on an injectable clock, with backoff `backoff_base * 2**n` (capped at
  `max_backoff`, at least Retry-After) on 429/5xx, transport failures and malformed feeds. A
  non-retryable status or an arXiv error entry raises `ArxivRejected` with arXiv's message;
  retries exhausted raise `ArxivUnavailable`. `requests` counts every request sent.
- `replay_session(http)` is a `requests.Session` answering from an `HttpClient` double
  (`tasks.feeds.http.ReplayHttpClient`): no network.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import arxiv
import requests
from arxiv import _feed as arxiv_feed
from lxml import etree
from requests.adapters import HTTPAdapter
from urllib3 import HTTPResponse

from tasks.feeds.http import HttpClient, TransportError, user_agent
from tasks.feeds.results import clean_text

ARXIV_API_URL = "https://export.arxiv.org/api/query"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_ATOM = "http://www.w3.org/2005/Atom"
_NS = {"atom": _ATOM}


class ArxivRejected(arxiv.ArxivError):
    """A final answer: arXiv refused the request (HTTP 400 and the like, or an error entry)."""


class ArxivUnavailable(arxiv.ArxivError):
    """No usable answer after every retry."""


@dataclass(frozen=True)
class FeedRead:
    """A response body read strictly: the package's parse of it, or why it is not an Atom feed."""

    feed: arxiv.ParsedFeed | None
    problem: str | None = None  # not a well-formed Atom feed (truncated, HTML, empty)
    api_error: str | None = None  # arXiv's error entry, e.g. "arXiv API error: incorrect id format for abc"


def read_feed(body: bytes) -> FeedRead:
    """Check `body` is a well-formed Atom feed, then parse it with the arxiv package's parser."""
    # Strict first: the package's parser recovers from broken XML, which hides a cut-off answer.
    try:
        root = etree.fromstring(body, parser=etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError as err:
        return FeedRead(None, f"malformed arXiv API response: {err}")
    if root is None or root.tag != f"{{{_ATOM}}}feed":
        return FeedRead(None, f"not an Atom feed: root element {getattr(root, 'tag', None)!r}")
    errors = []
    for entry in root.iterfind("atom:entry", _NS):
        entry_id = (entry.findtext("atom:id", default="", namespaces=_NS)).strip()
        if "/api/errors" in entry_id:  # the id marks it, not the title: a paper may be titled "Error"
            errors.append(f"arXiv API error: {clean_text(entry.findtext('atom:summary', namespaces=_NS)) or entry_id}")
    return FeedRead(arxiv_feed.parse(body), None, "; ".join(errors) or None)


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None  # an HTTP-date Retry-After; the exponential backoff stands in for it


class PoliteClient(arxiv.Client):
    """arxiv.Client with backoff, a timeout, strict reading and an injectable clock (see the module)."""

    def __init__(
        self,
        page_size: int = 100,
        delay_seconds: float = 3.0,
        num_retries: int = 4,
        *,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        backoff_base: float = 5.0,
        max_backoff: float = 120.0,
        url: str = ARXIV_API_URL,
        contact: str | None = None,
        timeout: float = 30.0,
    ):
        super().__init__(page_size=page_size, delay_seconds=delay_seconds, num_retries=num_retries)
        if session is not None:
            self._session = session
        self.query_url_format = url + "?{}"
        self.sleep, self.clock = sleep, clock
        self.backoff_base, self.max_backoff, self.timeout = backoff_base, max_backoff, timeout
        self.user_agent = user_agent(contact)
        self.requests = 0
        self._last_request: float | None = None  # spacing holds across searches on one client

    def _results(self, search: arxiv.Search, offset: int = 0) -> Iterator[arxiv.Result]:
        if search.id_list and not search.query and len(search.id_list) <= self.page_size:
            # The first page holds an answer for every listed id: a second could only repeat it.
            yield from self._parse_feed(self._format_url(search, offset, self.page_size), first_page=True).results
            return
        yield from super()._results(search, offset)

    def _parse_feed(self, url: str, first_page: bool = True, _try_index: int = 0) -> arxiv.ParsedFeed:
        error = "no attempt made"
        for attempt in range(self.num_retries + 1):
            self._wait_turn()
            retry_after: float | None = None
            self.requests += 1
            try:
                resp = self._session.get(url, headers={"User-Agent": self.user_agent}, timeout=self.timeout)
            except requests.RequestException as err:
                error = f"arXiv API unreachable: {err}"
            else:
                if resp.status_code in RETRY_STATUSES:
                    error = f"arXiv API HTTP {resp.status_code}"
                    retry_after = _retry_after(resp.headers.get("retry-after"))
                else:
                    read = read_feed(resp.content)
                    if resp.status_code != 200:
                        # arXiv explains a 400 in an error entry; other bodies say nothing useful.
                        detail = f": {read.api_error}" if read.api_error else ""
                        raise ArxivRejected(url, attempt, f"arXiv API HTTP {resp.status_code}{detail}")
                    if read.api_error:
                        raise ArxivRejected(url, attempt, read.api_error)
                    if read.feed is not None and (read.feed.results or first_page):
                        return read.feed
                    # A cut-off 200, or an empty later page: transfer accidents worth retrying.
                    error = read.problem or "page of results was unexpectedly empty"
            if attempt < self.num_retries:
                self.sleep(min(max(self.backoff_base * 2**attempt, retry_after or 0.0), self.max_backoff))
        raise ArxivUnavailable(url, self.num_retries, f"{error} after {self.num_retries + 1} attempts")

    def _wait_turn(self) -> None:
        now = self.clock()
        if self._last_request is not None:
            wait = self.delay_seconds - (now - self._last_request)
            if wait > 0:
                self.sleep(wait)
                now = self.clock()
        self._last_request = now


class HttpClientAdapter(HTTPAdapter):
    """A `requests` transport that answers from an `HttpClient` (a replay of recorded responses)."""

    def __init__(self, http: HttpClient):
        super().__init__()
        self.http = http

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        parts = urlsplit(request.url or "")
        base = urlunsplit(parts._replace(query=""))
        try:
            answer = self.http.get(base, dict(parse_qsl(parts.query, keep_blank_values=True)))
        except TransportError as err:
            raise requests.ConnectionError(str(err), request=request) from err
        raw = HTTPResponse(body=io.BytesIO(answer.body), headers=dict(answer.headers), status=answer.status,
                           preload_content=False, decode_content=False)
        return self.build_response(request, raw)


def replay_session(http: HttpClient) -> requests.Session:
    """A requests.Session whose every http(s) request is answered by `http`."""
    session = requests.Session()
    for prefix in ("http://", "https://"):
        session.mount(prefix, HttpClientAdapter(http))
    return session
