"""tasks.feeds.arxiv_api: recorded API answers (current and 2016 formats) parse to metadata by
canonical id with latest version; the HTTP 400 error entry becomes `error`; an empty result is no
error; an id absent from a batch is `unknown`. `ArxivLookup` batches up to 100 ids, spaces requests
>= 3 s, backs off on 429/503, never asks again for a known id unless refreshing, and never sends a
malformed id. The lookup is an `arxiv.Client` (the design card's package) answered by recorded
responses through a requests adapter; tests at the end show what the stock client lacks (backoff,
Retry-After, final 400s, truncated answers) and so why `PoliteClient` overrides its fetch step.
Sleeps are recorded by FakeClock, requests counted by ReplayHttpClient. No network except the one
opt-in live test (PREDIGEST_LIVE=1).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping
from pathlib import Path

import arxiv
import pytest

from tasks.feeds.arxiv_api import ARXIV_API_URL, ApiResult, ArxivLookup, parse_arxiv_api, title_matches
from tasks.feeds.arxiv_client import PoliteClient, replay_session
from tasks.feeds.http import (
    Answer,
    FakeClock,
    HttpResponse,
    Matcher,
    Recorded,
    ReplayHttpClient,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "feeds"
EMPTY = FIXTURES / "arxiv-api-atom-2026_id_list-0000.0000_empty-result.xml"
ERROR_400 = FIXTURES / "arxiv-api-atom-2026_id_list-abc_error-http400.xml"
ONE_MISSING = FIXTURES / "arxiv-api-atom-2026_id_list-0808.05394+1707.08567_one-missing_many-authors.xml"
HEAT_BATH = FIXTURES / "arxiv-api-atom-2026_id_list-1605.08386.xml"


def _parse(name: str) -> ApiResult:
    return parse_arxiv_api((FIXTURES / name).read_bytes())


def test_single_paper_answer() -> None:
    result = parse_arxiv_api(HEAT_BATH.read_bytes())
    assert (result.error, result.total_results, list(result.found)) == (None, 1, ["1605.08386"])
    meta = result.found["1605.08386"]
    assert meta.title == "Heat-bath random walks with Markov bases"
    assert meta.authors == ("Caprice Stanley", "Tobias Windisch")
    assert meta.categories == ("math.CO", "math.ST") and meta.primary_category == "math.CO"
    assert meta.published == meta.updated == dt.datetime(2016, 5, 26, 17, 59, 46, tzinfo=dt.UTC)
    assert (meta.latest_version, meta.doi, meta.journal_ref) == (1, None, None)
    assert meta.abstract.startswith("Graphs on lattice points are studied")


def test_old_style_ids_affiliations_and_journal_ref() -> None:
    astro = _parse("arxiv-api-atom-2026_id_list-astro-ph_0601001_old-style-id_affiliation_journal-ref.xml")
    meta = astro.found["astro-ph/0601001"]
    assert meta.authors == ("Andrew Gould", "Susan Dorsher", "B. Scott Gaudi", "Andrzej Udalski")
    assert (meta.journal_ref, meta.latest_version, meta.primary_category) == ("ActaAstron.56:1-50,2006", 1, "astro-ph")
    assert "V_max<17.5" in meta.abstract and not meta.abstract.startswith(" ")
    quant = _parse("arxiv-api-atom-2026_id_list-quant-ph_0201082v1_old-style-id.xml")
    assert list(quant.found) == ["quant-ph/0201082"]
    assert quant.found["quant-ph/0201082"].categories == ("quant-ph", "cs.PL")


def test_a_title_of_zero_is_a_title() -> None:
    result = _parse("arxiv-api-atom-2026_id_list-2104.12255v1_title-0.xml")
    assert result.found["2104.12255"].title == "0"


def test_legacy_2016_format_with_doi_and_wrapped_text() -> None:
    meta = _parse("arxiv-api-atom-2016-legacy_id_list-1111.2011v2_doi-journal-ref.xml").found["1111.2011"]
    assert meta.title == "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    assert (meta.latest_version, meta.doi) == (2, "10.1103/PhysRevB.85.115117")
    assert meta.journal_ref == "Phys. Rev. B 85, 115117 (2012)"
    assert (meta.primary_category, meta.categories) == ("cond-mat.str-el", ("cond-mat.str-el", "cond-mat.stat-mech"))
    assert meta.published == dt.datetime(2011, 11, 8, 18, 48, 36, tzinfo=dt.UTC)
    assert meta.updated == dt.datetime(2012, 4, 2, 12, 38, 54, tzinfo=dt.UTC)
    assert "\n" not in meta.abstract and meta.abstract.startswith("Theoretical description")


def test_search_pages_yield_every_entry() -> None:
    legacy = _parse("arxiv-api-atom-2016-legacy_search_query-au_del_maestro_10-results.xml")
    assert (legacy.total_results, list(legacy.found)) == (
        31,
        [
            "1201.4869", "cond-mat/0412498", "cond-mat/0603029", "1005.5383", "1303.6954",
            "1312.6177", "1412.6529", "cond-mat/0607501", "cond-mat/0702661", "0807.2873",
        ],
    )  # fmt: skip
    assert [legacy.found[i].latest_version for i in ("1303.6954", "1412.6529", "cond-mat/0702661")] == [2, 2, 2]
    testing = _parse("arxiv-api-atom-2026_search_query-testing_10-results.xml")
    assert len(testing.found) == 10 and testing.total_results == 214881
    assert testing.found["2202.12139"].doi == "10.1109/ICSTW55395.2022.00035"
    page = _parse("arxiv-api-atom-2026-04-30_search_query-cat-cs.LG-OR-cat-cs.AI_20-results.xml")
    assert len(page.found) == 20 and page.total_results == 364218
    assert list(page.found)[0] == "2604.26951" and list(page.found)[-1] == "2604.26835"


def test_http_400_error_entry_is_an_error_not_a_paper() -> None:
    result = parse_arxiv_api(ERROR_400.read_bytes())
    assert result.found == {}
    assert result.error == "arXiv API error: incorrect id format for abc"


def test_empty_result_finds_nothing_without_error() -> None:
    result = parse_arxiv_api(EMPTY.read_bytes())
    assert (result.found, result.error, result.total_results) == ({}, None, 0)


def test_missing_id_is_simply_absent() -> None:
    result = parse_arxiv_api(ONE_MISSING.read_bytes())
    assert list(result.found) == ["1707.08567"] and result.total_results == 1
    assert len(result.found["1707.08567"].authors) == 34


@pytest.mark.parametrize("body", [HEAT_BATH.read_bytes()[:900], b"", b"<html>busy</html>", b"\x00\x01"])
def test_unreadable_bodies_are_errors_not_exceptions(body: bytes) -> None:
    result = parse_arxiv_api(body)
    assert result.found == {} and result.malformed and result.error


# --- lookups ---------------------------------------------------------------------------------------


def _lookup(routes: Mapping[Matcher, Answer], max_retries: int = 4) -> tuple[ArxivLookup, ReplayHttpClient, FakeClock]:
    """A lookup over a replay client whose sleeps go to a fake clock."""
    client, clock = ReplayHttpClient(routes), FakeClock()
    return ArxivLookup(client, sleep=clock.sleep, clock=clock.monotonic, max_retries=max_retries), client, clock


def test_250_unknown_ids_take_3_spaced_requests_and_a_second_run_takes_none() -> None:
    ids = [f"2601.{n:05d}" for n in range(1, 251)]
    lookup, client, clock = _lookup({ARXIV_API_URL + "*": EMPTY})
    first = lookup.lookup(ids, known=set())
    assert (first.requests, client.count) == (3, 3)
    assert [len(params["id_list"].split(",")) for _, params in client.requests] == [100, 100, 50]
    # arxiv.Client asks for a page of `page_size` (100) results, enough for any batch.
    assert [params["max_results"] for _, params in client.requests] == ["100", "100", "100"]
    assert clock.sleeps == [3.0, 3.0] and all(s >= 3.0 for s in clock.sleeps)
    assert (first.found, first.unknown, first.errors) == ({}, set(ids), [])

    second = lookup.lookup(ids, known=first.unknown | set(first.found))
    assert (second.requests, client.count) == (0, 3)
    assert second.unknown == set() and second.found == {}


def test_known_ids_are_skipped_unless_refresh_and_duplicates_asked_once() -> None:
    lookup, client, _ = _lookup({ARXIV_API_URL + "*": HEAT_BATH})
    assert lookup.lookup(["1605.08386v1", "arXiv:1605.08386"], known={"1605.08386"}).requests == 0
    refreshed = lookup.lookup(["1605.08386v1", "1605.08386", "1605.08386v2"], known={"1605.08386"}, refresh=True)
    assert refreshed.requests == 1 and client.requests[0][1]["id_list"] == "1605.08386"
    assert refreshed.found["1605.08386"].title == "Heat-bath random walks with Markov bases"


def test_spacing_holds_across_lookup_calls() -> None:
    lookup, _, clock = _lookup({ARXIV_API_URL + "*": EMPTY})
    lookup.lookup(["2601.00001"], known=set())
    clock.advance(1.0)
    lookup.lookup(["2601.00002"], known=set())
    assert clock.sleeps == [2.0]


def test_id_missing_from_the_answer_is_unknown_and_malformed_ids_are_never_sent() -> None:
    # The recorded answer holds only 1707.08567. 0808.05394 (the id that recording asked for in vain)
    # is not even a valid id (2008 numbers have four digits), so it is reported and not sent; the
    # replay then stands in for an answer to 1707.08567 + 1707.99999, an id arXiv has never issued.
    lookup, client, _ = _lookup({ARXIV_API_URL + "*": ONE_MISSING})
    result = lookup.lookup(["0808.05394", "1707.08567", "1707.99999", "abc"], known=set())
    assert client.requests[0][1]["id_list"] == "1707.08567,1707.99999"
    assert list(result.found) == ["1707.08567"]
    assert result.unknown == {"1707.99999"}
    assert result.malformed == {"0808.05394", "abc"}
    assert (result.errors, result.requests) == ([], 1)


def test_http_400_is_recorded_and_not_retried() -> None:
    lookup, client, clock = _lookup({ARXIV_API_URL + "*": Recorded(path=ERROR_400, status=400)})
    result = lookup.lookup(["1605.08386", "2104.12255"], known=set())
    assert result.errors == [
        "arXiv API HTTP 400: arXiv API error: incorrect id format for abc [ids: 1605.08386, 2104.12255]"
    ]
    # Neither found nor unknown: a later run asks again.
    assert (result.found, result.unknown, result.requests, client.count, clock.sleeps) == ({}, set(), 1, 1, [])


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (Recorded(path=ERROR_400, status=200), "arXiv API error: incorrect id format for abc"),
        (Recorded(body=b"<html>Not Found</html>", status=404), "arXiv API HTTP 404"),
    ],
    ids=["error-entry-with-200", "html-404"],
)
def test_other_final_answers_are_errors_without_retry(answer: Recorded, error: str) -> None:
    lookup, client, clock = _lookup({ARXIV_API_URL + "*": answer})
    result = lookup.lookup(["1605.08386"], known=set())
    assert result.errors == [f"{error} [ids: 1605.08386]"]
    assert (result.found, result.unknown, client.count, clock.sleeps) == ({}, set(), 1, [])


def test_an_id_arxiv_rejects_is_set_aside_and_the_rest_asked_again() -> None:
    error_body = ERROR_400.read_bytes()

    def answer(url: str, params: Mapping[str, str]) -> HttpResponse:
        if "2101.00001" in params["id_list"]:
            # Derived from the recorded 400 body, naming the id this batch carried instead of "abc".
            return HttpResponse(400, error_body.replace(b"abc", b"2101.00001"))
        return HttpResponse(200, HEAT_BATH.read_bytes())

    lookup, client, clock = _lookup({ARXIV_API_URL + "*": answer})
    result = lookup.lookup(["1605.08386", "2101.00001"], known=set())
    assert [p["id_list"] for _, p in client.requests] == ["1605.08386,2101.00001", "1605.08386"]
    assert list(result.found) == ["1605.08386"] and result.malformed == {"2101.00001"}
    assert result.errors == ["arXiv API HTTP 400: arXiv API error: incorrect id format for 2101.00001"]
    assert (result.requests, clock.sleeps) == (2, [3.0])


def test_503_then_200_is_retried_with_growing_backoff() -> None:
    lookup, client, clock = _lookup(
        {ARXIV_API_URL + "*": [Recorded(status=503), Recorded(status=503), Recorded(path=HEAT_BATH)]}
    )
    result = lookup.lookup(["1605.08386"], known=set())
    assert list(result.found) == ["1605.08386"] and result.errors == []
    assert (result.requests, client.count) == (3, 3)
    assert clock.sleeps == [5.0, 10.0]
    assert all(b > a for a, b in zip(clock.sleeps, clock.sleeps[1:], strict=False))


def test_429_honours_retry_after_and_persistent_failure_gives_up() -> None:
    lookup, _, clock = _lookup({ARXIV_API_URL + "*": [Recorded(status=429, headers={"Retry-After": "30"}), HEAT_BATH]})
    assert list(lookup.lookup(["1605.08386"], known=set()).found) == ["1605.08386"]
    assert clock.sleeps == [30.0]

    lookup, client, clock = _lookup({ARXIV_API_URL + "*": Recorded(status=503)}, max_retries=4)
    result = lookup.lookup(["1605.08386"], known=set())
    assert (result.found, result.unknown, result.requests, client.count) == ({}, set(), 5, 5)
    assert clock.sleeps == [5.0, 10.0, 20.0, 40.0]
    assert result.errors == ["arXiv API HTTP 503 after 5 attempts [ids: 1605.08386]"]


def test_transport_failures_and_truncated_answers_are_retried() -> None:
    lookup, client, _ = _lookup(
        {ARXIV_API_URL + "*": [Recorded(fail="timed out"), Recorded(body=HEAT_BATH.read_bytes()[:500]), HEAT_BATH]}
    )
    result = lookup.lookup(["1605.08386"], known=set())
    assert list(result.found) == ["1605.08386"] and client.count == 3


@pytest.mark.parametrize(
    ("note", "arxiv", "expected"),
    [
        ("Heat-bath random walks with Markov bases", "Heat-bath random walks with Markov bases", True),
        ("heat bath random walks w/ markov bases", "Heat-bath random walks with Markov bases", True),
        ("Evolutionary optimisation of model-merging recipes", "Evolutionary Optimization of Model Merging Recipes", True),
        ("MolClaw: An Autonomous Agent", "MolClaw: An Autonomous Agent with Hierarchical Skills for Drug Molecule Evaluation", True),
        ("0", "0", True),
        ("Random walks on graphs", "Heat-bath random walks with Markov bases", False),
        ("Attention is all you need", "Heat-bath random walks with Markov bases", False),
        ("Shared Lexical Task Representations", "Source-Modality Monitoring in Vision-Language Models", False),
        ("", "Heat-bath random walks with Markov bases", False),
    ],
)
def test_title_matches(note: str, arxiv: str, expected: bool) -> None:
    assert title_matches(note, arxiv) is expected


@pytest.mark.live  # deselected unless PREDIGEST_LIVE=1 (tests/conftest.py)
def test_live_lookup_of_one_known_paper() -> None:
    result = ArxivLookup().lookup(["1605.08386"], known=set())
    assert result.errors == [] and result.found["1605.08386"].title == "Heat-bath random walks with Markov bases"


# --- the arxiv package: what PoliteClient keeps, and what the stock client cannot do ------------


def test_the_lookup_is_an_arxiv_client_with_the_measured_settings() -> None:
    lookup, _, _ = _lookup({ARXIV_API_URL + "*": EMPTY})
    assert isinstance(lookup.client, arxiv.Client) and isinstance(lookup.client, PoliteClient)
    assert (lookup.client.page_size, lookup.client.delay_seconds, lookup.client.num_retries) == (100, 3.0, 4)


def _stock(routes: Mapping[Matcher, Answer]) -> tuple[arxiv.Client, ReplayHttpClient]:
    """The package's own client, unchanged but for a session answered by recorded responses."""
    replay = ReplayHttpClient(routes)
    stock = arxiv.Client(page_size=100, delay_seconds=0.0, num_retries=3)
    stock._session = replay_session(replay)
    return stock, replay


def test_the_stock_client_retries_429_and_503_at_once_without_backoff_or_retry_after() -> None:
    answers = [Recorded(status=503), Recorded(status=429, headers={"Retry-After": "30"}), HEAT_BATH]
    stock, replay = _stock({"*": answers})
    began = time.monotonic()
    (paper,) = stock.results(arxiv.Search(id_list=["1605.08386"]))
    assert paper.title == "Heat-bath random walks with Markov bases" and replay.count == 3
    assert time.monotonic() - began < 2.0  # retried at its 0 s spacing: no backoff, Retry-After ignored
    # PoliteClient on the same answers waits 5 s, then the 30 s arXiv asked for.
    lookup, _, clock = _lookup({"*": answers})
    assert list(lookup.lookup(["1605.08386"], known=set()).found) == ["1605.08386"]
    assert clock.sleeps == [5.0, 30.0]


def test_the_stock_client_retries_a_final_400_and_loses_arxivs_reason() -> None:
    stock, replay = _stock({"*": Recorded(path=ERROR_400, status=400)})
    with pytest.raises(arxiv.HTTPError) as raised:
        list(stock.results(arxiv.Search(id_list=["1605.08386"])))
    assert replay.count == 4 and "incorrect id format" not in str(raised.value)  # 1 + num_retries


def test_the_stock_client_reads_a_truncated_answer_as_a_paper_arxiv_does_not_know() -> None:
    stock, replay = _stock({"*": Recorded(body=HEAT_BATH.read_bytes()[:900])})
    assert list(stock.results(arxiv.Search(id_list=["1605.08386"]))) == [] and replay.count == 1
    # PoliteClient retries it, then gives up with the id in neither set (asked again next run).
    lookup, client, _ = _lookup({"*": Recorded(body=HEAT_BATH.read_bytes()[:900])}, max_retries=2)
    result = lookup.lookup(["1605.08386"], known=set())
    assert (result.found, result.unknown, client.count) == ({}, set(), 3)
    assert result.errors[0].startswith("malformed arXiv API response")


def test_a_transport_failure_reaches_the_client_as_a_requests_error() -> None:
    import requests

    session = replay_session(ReplayHttpClient({"*": Recorded(fail="connection refused")}))
    with pytest.raises(requests.ConnectionError):
        session.get(ARXIV_API_URL, params={"id_list": "1605.08386"})


def test_the_stock_client_pages_on_when_an_answer_counts_more_than_it_lists() -> None:
    # The recorded answer for two ids lists one; declaring totalResults 2 (as an answer counting an
    # id it has no entry for would) makes the stock client ask a second page for the same batch.
    body = ONE_MISSING.read_bytes().replace(b"<opensearch:totalResults>1<", b"<opensearch:totalResults>2<")
    assert body != ONE_MISSING.read_bytes()
    stock, replay = _stock({"*": Recorded(body=body)})
    assert len(list(stock.results(arxiv.Search(id_list=["1707.08567", "1707.99999"])))) == 2  # the same paper twice
    assert replay.count == 2
    lookup, client, _ = _lookup({"*": Recorded(body=body)})
    result = lookup.lookup(["1707.08567", "1707.99999"], known=set())
    assert (list(result.found), result.unknown, client.count) == (["1707.08567"], {"1707.99999"}, 1)
