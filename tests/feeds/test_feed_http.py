"""tasks.feeds.http: every HTTP status comes back as a response (bodies included), only transport
failures raise TransportError; the real client refuses non-HTTP URLs and caps body size; the replay
client routes by glob or predicate, plays sequences in order, 404s the unrouted and counts requests;
FakeClock records sleeps instead of sleeping. Also: the fixtures are the recorded bytes. No network.
"""

from __future__ import annotations

import hashlib
import io
import re
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path
from typing import Any

import pytest

from tasks.feeds.http import (
    FakeClock,
    HttpResponse,
    Recorded,
    ReplayHttpClient,
    TransportError,
    UrllibHttpClient,
    full_url,
    user_agent,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "feeds"


def test_fixtures_match_the_sha256_recorded_in_provenance() -> None:
    listed = dict(
        (name, digest)
        for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", (FIXTURES / "PROVENANCE.md").read_text(), re.M)
    )
    on_disk = sorted(p.name for p in FIXTURES.iterdir() if p.suffix in {".xml", ".json"})
    assert sorted(listed) == on_disk and len(on_disk) == 20
    for name in on_disk:
        assert hashlib.sha256((FIXTURES / name).read_bytes()).hexdigest() == listed[name], name


def test_full_url_encodes_params_and_appends_to_an_existing_query() -> None:
    assert full_url("http://x/q") == "http://x/q"
    assert full_url("http://x/q", {"id_list": "hep-th/9901001,2101.00001"}) == (
        "http://x/q?id_list=hep-th%2F9901001%2C2101.00001"
    )
    assert full_url("http://x/q?a=1", {"b": "2"}) == "http://x/q?a=1&b=2"


def test_user_agent_names_predigest_and_the_configured_contact() -> None:
    assert user_agent() == "predigest/0.1"
    assert user_agent("team@example.org") == "predigest/0.1 (+mailto:team@example.org)"


def test_replay_routes_by_glob_and_predicate_and_counts_requests() -> None:
    client = ReplayHttpClient(
        {
            "https://rss.arxiv.org/rss/cs.AI": FIXTURES / "arxiv-rss-2026-04-27_cs.AI_3-new-items.xml",
            lambda url, params: params.get("date") == "2024-03-21": Recorded(body=b"[]"),
            "https://example.org/*": Recorded(status=503, headers={"Retry-After": "7"}),
        }
    )
    first = client.get("https://rss.arxiv.org/rss/cs.AI")
    assert first.status == 200 and first.body.startswith(b"<rss")
    assert client.get("https://huggingface.co/api/daily_papers", {"date": "2024-03-21"}).body == b"[]"
    busy = client.get("https://example.org/anything", {"q": "1"})
    assert (busy.status, busy.header("retry-after")) == (503, "7")
    missing = client.get("https://rss.arxiv.org/rss/cs.CL")
    assert missing.status == 404 and b"no route" in missing.body
    assert client.count == 4
    assert client.requests[1] == ("https://huggingface.co/api/daily_papers", {"date": "2024-03-21"})


def test_replay_plays_a_sequence_in_order_and_repeats_the_last() -> None:
    client = ReplayHttpClient({"*": [Recorded(status=503), Recorded(status=429), Recorded(body=b"ok")]})
    assert [client.get("http://x").status for _ in range(5)] == [503, 429, 200, 200, 200]


def test_replay_can_fail_like_a_dead_connection_and_build_answers_from_params() -> None:
    client = ReplayHttpClient(
        {
            "http://down/*": Recorded(fail="connection refused"),
            "http://echo": lambda url, params: HttpResponse(200, params["x"].encode()),
        }
    )
    with pytest.raises(TransportError, match="connection refused"):
        client.get("http://down/feed")
    assert client.get("http://echo", {"x": "hi"}).body == b"hi"
    assert client.count == 2


def test_fake_clock_records_sleeps_and_moves_time() -> None:
    clock = FakeClock(start=10.0)
    clock.sleep(3.0)
    clock.advance(1.5)
    assert clock.monotonic() == 14.5 and clock.sleeps == [3.0]


def test_urllib_client_refuses_local_files_without_opening_them(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read")
    with pytest.raises(TransportError, match="non-HTTP"):
        UrllibHttpClient().get(secret.as_uri())


class _FakeResponse(io.BytesIO):
    status = 200

    def __init__(self, body: bytes):
        super().__init__(body)
        self.headers = Message()
        self.headers["Content-Type"] = "application/atom+xml"


def test_urllib_client_returns_error_bodies_and_sends_its_user_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[urllib.request.Request] = []
    error_body = (FIXTURES / "arxiv-api-atom-2026_id_list-abc_error-http400.xml").read_bytes()

    def fake_urlopen(request: urllib.request.Request, timeout: float) -> Any:
        seen.append(request)
        if "abc" in request.full_url:
            raise urllib.error.HTTPError(request.full_url, 400, "Bad Request", Message(), io.BytesIO(error_body))
        return _FakeResponse(b"<feed/>")

    monkeypatch.setattr(urllib.request, "urlopen", fake_urlopen)
    client = UrllibHttpClient(contact="team@example.org", timeout=5)
    bad = client.get("http://export.arxiv.org/api/query", {"id_list": "abc"})
    assert (bad.status, bad.body) == (400, error_body)
    good = client.get("http://export.arxiv.org/api/query", {"id_list": "1605.08386"})
    assert (good.status, good.body, good.header("Content-Type")) == (200, b"<feed/>", "application/atom+xml")
    assert seen[0].get_header("User-agent") == "predigest/0.1 (+mailto:team@example.org)"


def test_urllib_client_turns_transport_failures_and_huge_bodies_into_transport_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unreachable(request: urllib.request.Request, timeout: float) -> Any:
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr(urllib.request, "urlopen", unreachable)
    with pytest.raises(TransportError, match="Name or service not known"):
        UrllibHttpClient().get("https://rss.arxiv.org/rss/cs.LG")

    monkeypatch.setattr(urllib.request, "urlopen", lambda request, timeout: _FakeResponse(b"x" * 101))
    with pytest.raises(TransportError, match="larger than 100 bytes"):
        UrllibHttpClient(max_bytes=100).get("https://rss.arxiv.org/rss/cs.LG")
