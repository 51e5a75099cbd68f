"""tasks.feeds.arxiv_rss: each recorded rss.arxiv.org listing (RSS 2.0 and Atom) yields exactly its
entries with canonical id, version (from the oai guid), announce type, categories, DOI and journal
reference; the snapshot's day is the announcement day (US/Eastern). Truncated or non-feed bytes and
HTTP/transport failures give a snapshot with `error` and no items, never an exception. No network.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tasks.feeds.arxiv_rss import ANNOUNCE_TYPES, arxiv_feed_uri, fetch_arxiv_category, parse_arxiv_feed
from tasks.feeds.http import Recorded, ReplayHttpClient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "feeds"
MULTI = FIXTURES / "arxiv-rss-2026-09-24_cs.LG+cs.AI+cs.CL+stat.ML_new-cross-replace.xml"
ATOM = FIXTURES / "arxiv-rss-atom-2026-09-25_cs.LG_new-cross-replace_abstracts-trimmed.xml"

# (file, day, [(id, version, announce type, categories)]) read off each fixture by eye.
LISTINGS = [
    (
        "arxiv-rss-2026-04-27_cs.AI_3-new-items.xml",
        dt.date(2026, 4, 27),
        [
            ("2604.21935", 1, "new", ("cs.AI", "cs.LG")),
            ("2604.21936", 1, "new", ("cs.AI", "cs.CV", "cs.MA")),
            ("2604.21937", 1, "new", ("cs.AI", "cs.MA")),
        ],
    ),
    (
        "arxiv-rss-2026-04-27_cs.CL_3-new-items.xml",
        dt.date(2026, 4, 27),
        [
            ("2604.22002", 1, "new", ("cs.CL",)),
            ("2604.22027", 1, "new", ("cs.CL", "cs.AI", "cs.LG")),
            ("2604.22038", 1, "new", ("cs.CL",)),
        ],
    ),
    (
        "arxiv-rss-2026-04-27_cs.LG_3-new-items.xml",
        dt.date(2026, 4, 27),
        [
            ("2604.21952", 1, "new", ("cs.LG", "cs.AI", "cs.AR", "cs.NE", "cs.RO")),
            ("2604.21953", 1, "new", ("cs.LG", "cs.CY")),
            ("2604.21956", 1, "new", ("cs.LG",)),
        ],
    ),
    (
        MULTI.name,
        dt.date(2026, 9, 24),
        [
            ("2609.26811", 1, "new", ("cs.LG",)),
            ("2609.26820", 1, "new", ("cs.LG", "cs.AI")),
            ("2205.06398", 2, "cross", ("stat.ME", "stat.AP", "stat.ML")),
            ("2009.13987", 3, "replace", ("cs.LG", "math.MG", "stat.ML")),
        ],
    ),
    (
        ATOM.name,
        dt.date(2026, 9, 25),
        [
            ("2609.28553", 1, "new", ("cs.LG", "cs.AI")),
            ("2402.10149", 3, "cross", ("hep-ph", "cs.LG", "hep-ex")),
            ("2401.08875", 3, "replace", ("cs.LG", "cs.AI", "stat.ME")),
        ],
    ),
]


@pytest.mark.parametrize(("name", "day", "expected"), LISTINGS, ids=[entry[0][:40] for entry in LISTINGS])
def test_each_listing_yields_exactly_its_entries(
    name: str, day: dt.date, expected: list[tuple[str, int, str, tuple[str, ...]]]
) -> None:
    snap = parse_arxiv_feed((FIXTURES / name).read_bytes(), "https://rss.arxiv.org/rss/x")
    assert snap.error is None and snap.kind == "arxiv_feed"
    assert snap.day == day
    assert [(i.arxiv_id, i.version, i.announce_type, i.categories) for i in snap.items] == expected
    for item in snap.items:
        assert item.raw_id == f"oai:arXiv.org:{item.arxiv_id}v{item.version}"
        assert item.link == f"https://arxiv.org/abs/{item.arxiv_id}"
        assert item.announce_type in ANNOUNCE_TYPES and item.upvotes is None
        assert item.title and item.authors and item.summary
        assert not item.summary.startswith("arXiv:") and "Announce Type" not in item.summary


def test_doi_and_journal_reference_in_both_flavours() -> None:
    rss = parse_arxiv_feed(MULTI.read_bytes(), "u").items
    assert [(i.doi, i.journal_ref) for i in rss] == [
        (None, None),
        (None, None),
        ("10.1093/bioinformatics/btac431", None),
        (None, None),
    ]
    atom = parse_arxiv_feed(ATOM.read_bytes(), "u").items
    assert [(i.doi, i.journal_ref) for i in atom] == [
        (
            "10.1109/MAPR72750.2026.11685822",
            "2026 International Conference on Multimedia Analysis and Pattern Recognition (MAPR)",
        ),
        ("10.1103/PhysRevD.111.032004", None),
        (None, None),
    ]


def test_text_fields_are_read_as_written() -> None:
    cs_lg = parse_arxiv_feed((FIXTURES / "arxiv-rss-2026-04-27_cs.LG_3-new-items.xml").read_bytes(), "u")
    assert "visual resolution & stride" in cs_lg.items[0].summary  # the entity &amp; decoded once
    cs_ai = parse_arxiv_feed((FIXTURES / "arxiv-rss-2026-04-27_cs.AI_3-new-items.xml").read_bytes(), "u")
    assert r"\textbf{adaptability}" in cs_ai.items[1].summary  # LaTeX kept verbatim
    assert cs_ai.items[0].summary.startswith("Although language models demonstrate")
    cs_cl = parse_arxiv_feed((FIXTURES / "arxiv-rss-2026-04-27_cs.CL_3-new-items.xml").read_bytes(), "u")
    # "Ratna Kandala,  Deepti": the double space is a separator before a mononym, not part of a name.
    assert cs_cl.items[0].authors == ("Anamta Khan", "Ratna Kandala", "Deepti", "Sheza Munir", "Joyojeet Pal")
    assert cs_cl.items[0].title.startswith("When Cow Urine Cures Constipation on YouTube")


def test_replace_cross_and_a_missing_announce_element_fall_back_to_the_description() -> None:
    # Derived from the recorded multi-category feed: the `replace` item relabelled `replace-cross`
    # (the spec's fourth type, absent from the recordings), and every arxiv:announce_type removed.
    body = MULTI.read_bytes().replace(b"Announce Type: replace ", b"Announce Type: replace-cross ")
    body = body.replace(b"<arxiv:announce_type>replace</arxiv:announce_type>", b"")
    items = parse_arxiv_feed(body, "u").items
    assert [i.announce_type for i in items] == ["new", "new", "cross", "replace-cross"]


def test_guidless_items_take_id_and_version_from_the_description() -> None:
    body = MULTI.read_bytes().replace(b'<guid isPermaLink="false">oai:arXiv.org:2009.13987v3</guid>', b"")
    item = parse_arxiv_feed(body, "u").items[3]
    assert (item.arxiv_id, item.version) == ("2009.13987", 3)


def test_an_empty_listing_is_not_an_error() -> None:
    # Derived from a recording: the channel kept, its items removed (arXiv announces nothing on weekends).
    text = (FIXTURES / "arxiv-rss-2026-04-27_cs.AI_3-new-items.xml").read_text()
    body = (text[: text.index("<item>")] + "</channel>\n</rss>").encode()
    snap = parse_arxiv_feed(body, "u")
    assert (snap.items, snap.error, snap.day) == ((), None, dt.date(2026, 4, 27))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (MULTI.read_bytes()[:4000], "unreadable arXiv feed: SAXParseException"),
        (b"", "not an RSS or Atom document"),
        (b"<html><body>Service Unavailable</body></html>", "not an RSS or Atom document"),
    ],
    ids=["truncated", "empty", "html"],
)
def test_unreadable_bodies_are_snapshots_with_errors(body: bytes, message: str) -> None:
    snap = parse_arxiv_feed(body, "https://rss.arxiv.org/rss/cs.LG", dt.date(2026, 9, 24))
    assert snap.items == () and snap.error is not None and message in snap.error
    assert snap.day == dt.date(2026, 9, 24)


def test_fetch_category_uses_the_feed_url_and_the_feed_day() -> None:
    client = ReplayHttpClient(
        {"https://rss.arxiv.org/rss/cs.AI": FIXTURES / "arxiv-rss-2026-04-27_cs.AI_3-new-items.xml"}
    )
    snap = fetch_arxiv_category(client, "cs.AI", dt.date(2026, 4, 27))
    assert (snap.uri, snap.day, snap.error, len(snap.items)) == (
        arxiv_feed_uri("cs.AI"),
        dt.date(2026, 4, 27),
        None,
        3,
    )
    assert client.count == 1


def test_fetch_category_failures_never_raise() -> None:
    client = ReplayHttpClient({"*/cs.AI": Recorded(status=503), "*/cs.LG": Recorded(fail="reset by peer")})
    busy = fetch_arxiv_category(client, "cs.AI", dt.date(2026, 4, 27))
    assert busy.items == () and busy.error == "HTTP 503 from https://rss.arxiv.org/rss/cs.AI"
    down = fetch_arxiv_category(client, "cs.LG", dt.date(2026, 4, 27))
    assert down.error == "no response: reset by peer" and down.day == dt.date(2026, 4, 27)
