"""Contract: arXiv ids are checked against the calendar (tasks.common.arxiv_ids).

- A new-style id `YYMM.NNNNN` is valid only with a real month (01-12) and a YYMM not before 0704;
  whether it could exist by a briefing's date (`issued_by`) is decided by that date alone, passed
  in: its YYMM is not after the date's month. No clock is read.
- An old-style id `archive/YYMMNNN` is valid only with a real month inside 1991-08..2007-03.
- An id that fails is malformed: reported with its raw text, never repaired; a paper card whose
  own id (front matter or file name) is such an id carries it as a malformed mention.
Inputs are generated: every (year, month) pair, with the expected answer from the calendar.
"""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from tasks.cards.parse import parse_card
from tasks.common.arxiv_ids import canonicalize, find_ids, issued_by
from tasks.ingest.sources import card_items

yy = st.integers(0, 99)
mm = st.integers(0, 99)


@given(yy, mm, st.integers(10000, 99999))
def test_new_style_needs_a_real_month_from_0704(year: int, month: int, number: int) -> None:
    token = f"{year:02d}{month:02d}.{number if year >= 15 else number // 10:0{5 if year >= 15 else 4}d}"
    real = 1 <= month <= 12 and (year, month) >= (7, 4)
    assert (canonicalize(token) is not None) == real
    found = find_ids(f"see arXiv:{token} today")
    assert len(found) == 1 and found[0].malformed == (not real)


@given(yy, mm, st.integers(0, 999))
def test_old_style_needs_a_month_from_1991_08_to_2007_03(year: int, month: int, number: int) -> None:
    token = f"hep-th/{year:02d}{month:02d}{number:03d}"
    full_year = 1900 + year if year >= 90 else 2000 + year
    real = 1 <= month <= 12 and (1991, 8) <= (full_year, month) <= (2007, 3)
    assert (canonicalize(token) is not None) == real
    found = find_ids(f"an old paper arXiv:{token}")
    assert len(found) == 1 and found[0].malformed == (not real)


@given(st.integers(7, 99), st.integers(1, 12), st.dates(dt.date(2007, 4, 1), dt.date(2099, 12, 31)))
def test_issued_by_is_the_briefing_month(year: int, month: int, day: dt.date) -> None:
    canonical = f"{year:02d}{month:02d}.{'12345' if year >= 15 else '1234'}"
    if (year, month) < (7, 4):
        return
    assert canonicalize(canonical) is not None
    assert issued_by(canonical, day) == ((2000 + year, month) <= (day.year, day.month))
    assert issued_by("hep-th/9901001", day)


@given(st.integers(15, 99), st.integers(13, 99))
def test_card_with_month_13_lists_its_id_as_malformed(year: int, month: int) -> None:
    raw = f"{year:02d}{month:02d}.04631"
    for text, name in ((f"---\narxiv: {raw}\ntitle: A card\n---\nTL;DR text\n", "a-card.md"),
                       ("---\ntitle: A card\n---\nTL;DR text\n", f"0042-{year:02d}{month:02d}-04631.md")):
        card = parse_card(text, name)
        assert card.arxiv_id is None
        (item,) = card_items(card, "Asia/Shanghai")
        malformed = [m for m in item.mentions if m.malformed]
        assert [m.raw for m in malformed] == [raw] and all(m.canonical is None for m in malformed)
