"""The one HTTP seam of the feed clients: a tiny GET protocol, a urllib client, and replay doubles for tests.

Contract: `HttpClient.get` returns an `HttpResponse` for every HTTP status (4xx/5xx bodies included,
because arXiv explains errors in the body) and raises `TransportError` only when no response arrived.
`ReplayHttpClient` answers from recorded files and counts requests; `FakeClock` stands in for
`time.monotonic`/`time.sleep` so rate limiting and backoff are tested by the sleeps they ask for.
"""

from __future__ import annotations

import fnmatch
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any, Protocol

USER_AGENT_BASE = f"predigest/{version('predigest').rsplit('.', 1)[0]}"
# Feeds are small (an arXiv listing caps at 2000 entries); anything far larger is not a feed.
DEFAULT_MAX_BYTES = 32 * 1024 * 1024


class TransportError(Exception):
    """No HTTP response: connection refused, DNS failure, timeout, oversized or unreadable body."""


@dataclass(frozen=True)
class HttpResponse:
    """Status, raw body and headers (names lower-cased) of one GET."""

    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)

    def header(self, name: str) -> str | None:
        """A header value by case-insensitive name."""
        return self.headers.get(name.lower())


class HttpClient(Protocol):
    """Anything that can GET a URL with query parameters."""

    def get(self, url: str, params: Mapping[str, str] | None = None) -> HttpResponse: ...


def full_url(url: str, params: Mapping[str, str] | None = None) -> str:
    """`url` with `params` url-encoded onto its query string."""
    if not params:
        return url
    return url + ("&" if "?" in url else "?") + urllib.parse.urlencode(list(params.items()))


def user_agent(contact: str | None = None) -> str:
    """`predigest/0.1 (+mailto:<contact>)`; arXiv asks API users to say who they are."""
    return f"{USER_AGENT_BASE} (+mailto:{contact})" if contact else USER_AGENT_BASE


class UrllibHttpClient:
    """The real client: stdlib urllib, a timeout, a size cap, http(s) only."""

    def __init__(self, contact: str | None = None, timeout: float = 30.0, max_bytes: int = DEFAULT_MAX_BYTES):
        self.user_agent = user_agent(contact)
        self.timeout = timeout
        self.max_bytes = max_bytes

    def get(self, url: str, params: Mapping[str, str] | None = None) -> HttpResponse:
        """GET `url`; any HTTP status is returned, only transport failures raise `TransportError`."""
        target = full_url(url, params)
        # urllib would also open file:// and ftp:// URLs; a feed URL must never read local files.
        if urllib.parse.urlsplit(target).scheme not in ("http", "https"):
            raise TransportError(f"refusing non-HTTP URL {target!r}")
        request = urllib.request.Request(target, headers={"User-Agent": self.user_agent, "Accept": "*/*"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as resp:
                return HttpResponse(resp.status, self._read(resp), _lower(resp.headers.items()))
        except urllib.error.HTTPError as err:
            try:
                body = self._read(err)
            finally:
                err.close()
            return HttpResponse(err.code, body, _lower(err.headers.items() if err.headers else []))
        except (urllib.error.URLError, TimeoutError, OSError, ValueError) as err:
            raise TransportError(f"GET {target}: {err}") from err

    def _read(self, resp: _Readable) -> bytes:
        # Read one byte past the cap so an oversized body is detected without reading all of it.
        body = resp.read(self.max_bytes + 1)
        if len(body) > self.max_bytes:
            raise TransportError(f"response larger than {self.max_bytes} bytes")
        return body


class _Readable(Protocol):
    def read(self, amt: int, /) -> bytes: ...


def _lower(items: Iterable[tuple[str, Any]]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in items}


# --- replay doubles for tests ----------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    """A canned answer: a recorded file (or literal bytes) with a status, or a transport failure."""

    path: Path | None = None
    body: bytes = b""
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    fail: str | None = None  # raise TransportError(fail) instead of answering

    def respond(self) -> HttpResponse:
        """The recorded response (read from `path` now, so a missing file fails loudly)."""
        if self.fail is not None:
            raise TransportError(self.fail)
        body = self.path.read_bytes() if self.path is not None else self.body
        return HttpResponse(self.status, body, {k.lower(): v for k, v in self.headers.items()})


Matcher = str | Callable[[str, Mapping[str, str]], bool]
Responder = Callable[[str, Mapping[str, str]], HttpResponse]
Answer = Recorded | Path | Sequence[Recorded | Path] | Responder


class ReplayHttpClient:
    """Answers GETs from routes and records every request; unmatched requests get a 404.

    A route key is a glob matched against the URL with or without its query, or a predicate over
    (url, params). Its answer is a `Recorded`, a file path, a sequence played in order (the last
    one repeats), or a function building the response from (url, params).
    """

    def __init__(self, routes: Mapping[Matcher, Answer]):
        self.routes = list(routes.items())
        self.requests: list[tuple[str, dict[str, str]]] = []
        self._played: dict[int, int] = {}

    @property
    def count(self) -> int:
        """How many requests were made."""
        return len(self.requests)

    def get(self, url: str, params: Mapping[str, str] | None = None) -> HttpResponse:
        """Record the request, then answer from the first matching route."""
        args = dict(params or {})
        self.requests.append((url, args))
        target = full_url(url, args)
        for index, (matcher, answer) in enumerate(self.routes):
            if isinstance(matcher, str):
                hit = fnmatch.fnmatchcase(url, matcher) or fnmatch.fnmatchcase(target, matcher)
            else:
                hit = matcher(url, args)
            if hit:
                return self._answer(index, answer, url, args)
        return HttpResponse(404, f"replay: no route for {target}".encode())

    def _answer(self, index: int, answer: Answer, url: str, args: Mapping[str, str]) -> HttpResponse:
        if isinstance(answer, Recorded):
            return answer.respond()
        if isinstance(answer, Path):
            return Recorded(path=answer).respond()
        if isinstance(answer, Sequence):
            played = self._played.get(index, 0)
            self._played[index] = played + 1
            step = answer[min(played, len(answer) - 1)]
            return step.respond() if isinstance(step, Recorded) else Recorded(path=step).respond()
        return answer(url, args)


class FakeClock:
    """A monotonic clock that only moves when slept on; `sleeps` lists every requested sleep."""

    def __init__(self, start: float = 1000.0):
        self.now = start
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        """Current fake time in seconds."""
        return self.now

    def sleep(self, seconds: float) -> None:
        """Record the sleep and advance time by it, instantly."""
        self.sleeps.append(seconds)
        self.now += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        """Let time pass without a sleep (work done elsewhere)."""
        self.now += seconds
