"""arXiv API metadata through the design card's `arxiv` package: read answers, look ids up in polite batches.

- `parse_arxiv_api` reads current and legacy responses with the package's parser after a strict
  well-formedness check; arXiv's error entry becomes `error`, an empty result is no error.
- `ArxivLookup.lookup` asks once for every canonical id not already `known` (unless `refresh`), in
  batches of `batch_size` through `PoliteClient`. Ids absent from a successful answer are `unknown`;
  ids of a failed batch are in neither set, so a later run asks again. Malformed ids are never
  sent, and an id arXiv rejects anyway is set aside and the rest asked again.
- Tests and benchmarks pass an `HttpClient` double (`replay_session`): no network.
- `title_matches` compares a note's title with arXiv's (rapidfuzz token_set_ratio).
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import arxiv
from rapidfuzz import fuzz, utils

from tasks.common.arxiv_ids import canonicalize
from tasks.feeds.arxiv_client import ARXIV_API_URL, PoliteClient, read_feed, replay_session
from tasks.feeds.http import HttpClient
from tasks.feeds.results import clean_text, parse_arxiv_ref

__all__ = ["ARXIV_API_URL", "ApiResult", "ArxivLookup", "ArxivMetadata", "LookupResult", "parse_arxiv_api",
           "title_matches"]
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
    read = read_feed(body)
    if read.feed is None:
        return ApiResult({}, read.problem, malformed=True)
    found = {meta.arxiv_id: meta for meta in map(_metadata, read.feed.results) if meta is not None}
    return ApiResult(found, read.api_error, read.feed.header.total_results)


def _metadata(result: arxiv.Result) -> ArxivMetadata | None:
    parsed = parse_arxiv_ref(result.entry_id)
    if parsed is None:
        return None
    return ArxivMetadata(
        arxiv_id=parsed[0],
        title=clean_text(result.title),  # a title of "0" is a real title (arxiv.py #71)
        authors=tuple(clean_text(author.name) for author in result.authors),
        abstract=clean_text(result.summary),
        categories=tuple(c for c in result.categories if c),
        primary_category=result.primary_category or None,
        published=result.published,
        updated=result.updated,
        latest_version=parsed[1],
        doi=clean_text(result.doi) or None,
        journal_ref=clean_text(result.journal_ref) or None,
    )


def title_matches(note_title: str, arxiv_title: str, threshold: float = TITLE_MATCH_THRESHOLD) -> bool:
    """Whether a title written in a note names the paper arXiv titles `arxiv_title` (case/punctuation-blind)."""
    score = fuzz.token_set_ratio(note_title, arxiv_title, processor=utils.default_process)
    return score >= threshold


class ArxivLookup:
    """Batched, rate-limited, retrying arXiv metadata lookups with `arxiv.Client` (`PoliteClient`)."""

    def __init__(
        self,
        http: HttpClient | None = None,
        sleep: Callable[[float], None] = time.sleep,
        min_interval: float = 3.0,
        batch_size: int = 100,
        max_retries: int = 4,
        clock: Callable[[], float] = time.monotonic,
        backoff_base: float = 5.0,
        max_backoff: float = 120.0,
        url: str = ARXIV_API_URL,
        contact: str | None = None,
    ):
        """`http` replaces the network with a double (recorded responses); None sends real requests."""
        if not 1 <= batch_size <= 2000:  # arXiv returns at most 2000 results per request
            raise ValueError(f"batch_size must be 1..2000, got {batch_size}")
        # One client per lookup instance: its spacing holds across lookup() calls, so share it within a run.
        self.client = PoliteClient(
            page_size=batch_size, delay_seconds=min_interval, num_retries=max_retries,
            session=replay_session(http) if http is not None else None, sleep=sleep, clock=clock,
            backoff_base=backoff_base, max_backoff=max_backoff, url=url, contact=contact,
        )
        self.batch_size = batch_size

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
        before = self.client.requests
        for start in range(0, len(todo), self.batch_size):
            self._lookup_batch(todo[start : start + self.batch_size], result)
        return replace(result, requests=self.client.requests - before)

    def _lookup_batch(self, batch: list[str], into: LookupResult) -> None:
        """Resolve one batch into `into`'s collections."""
        while batch:
            try:
                answers = list(self.client.results(arxiv.Search(id_list=batch, max_results=len(batch))))
            except arxiv.ArxivError as err:
                error = err.message
            else:
                found = {meta.arxiv_id: meta for meta in map(_metadata, answers) if meta is not None}
                into.found.update({i: found[i] for i in batch if i in found})
                into.unknown.update(i for i in batch if i not in found)
                return
            # arXiv rejects a whole batch for one id it cannot parse: set that id aside and ask again.
            rejected = _rejected_id(error)
            if rejected is not None and rejected in batch:
                into.malformed.add(rejected)
                into.errors.append(error)
                batch = [i for i in batch if i != rejected]
                continue
            into.errors.append(f"{error} [ids: {', '.join(batch)}]")
            return


def _canonical_or_raw(raw: str) -> str:
    parsed = canonicalize(raw)
    return parsed[0] if parsed else raw


def _rejected_id(error: str) -> str | None:
    match = re.search(r"incorrect id format for (\S+)", error)
    return match.group(1) if match else None
