"""Contract: a note's date comes from what it says, never from its mtime (tasks.ingest.dating).

- Order: the file name (`YYYY-MM-DD[T|-]HHMM…` or the date alone, after any leading dashes,
  spaces, underscores or dots), else the front matter (`date`, `created`, `created_at`, `日期`),
  else the content header (a first heading or `Date:` line). The first that carries a date decides.
- A date that cannot exist (Feb 30, month 13, hour 25 is only a slug), or before 1990, makes the
  note undated; so does no date at all. An undated note is stored with `time_basis` "undated".
- In a briefing (real PostgreSQL): an undated file is in no window whatever its mtime (set inside
  the window here), is not among the checked sources, and is listed as undated with its path and
  why, in the JSON twin (`undated`) and the markdown alike; so is a file seen by the cutoff whose
  date lies more than a day after it (year 9999).
Names, dates and texts are generated, each with the answer it must give.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from tasks.config.settings import Settings
from tasks.ingest.dating import note_date
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tests.helpers import ingest_all, sample_copy

TZ = ZoneInfo("Asia/Shanghai")
leading = st.sampled_from(["", "-", "--", " ", "_", ". ", "- "])
seps = st.sampled_from(["-", " ", "_", "T"])
slug = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)


def _real(y: int, mo: int, d: int) -> dt.date | None:
    try:
        day = dt.date(y, mo, d)
    except ValueError:
        return None
    return day if y >= 1990 else None


@given(leading, st.integers(1, 9999), st.integers(0, 19), st.integers(0, 39), seps, st.integers(0, 23),
       st.integers(0, 59), slug)
def test_name_dates_with_any_leading_separator(lead: str, y: int, mo: int, d: int, sep: str, h: int, mi: int,
                                               rest: str) -> None:
    name = f"{lead}{y:04d}-{mo:02d}-{d:02d}{sep}{h:02d}{mi:02d}-{rest}.md"
    found = note_date(name, "# no date here\n", TZ)
    day = _real(y, mo, d)
    if day is None:
        assert (found.at, found.basis) == (None, "undated") and found.problem
    else:
        assert found.basis == "filename"
        assert found.at == dt.datetime(y, mo, d, h, mi, tzinfo=TZ).astimezone(dt.UTC)


@given(st.integers(1, 9999), st.integers(0, 19), st.integers(0, 39), st.sampled_from(["date", "created", "日期"]),
       st.booleans())
def test_front_matter_then_header_date_an_undated_name(y: int, mo: int, d: int, key: str, in_header: bool) -> None:
    written = f"{y:04d}-{mo:02d}-{d:02d}"
    text = f"# Notes of {written}\n\nbody\n" if in_header else f"---\n{key}: {written}\n---\n# Notes\n"
    found = note_date("team-notes.md", text, TZ)
    day = _real(y, mo, d)
    if day is None:
        assert (found.at, found.basis) == (None, "undated")
    else:
        assert (found.at, found.basis) == (dt.datetime.combine(day, dt.time(), TZ).astimezone(dt.UTC), "header")
    # The name comes first: a dated name wins over whatever the text says.
    assert note_date("2026-10-07-x.md", text, TZ).at == dt.datetime(2026, 10, 7, tzinfo=TZ).astimezone(dt.UTC)


@given(st.text(max_size=80))
def test_no_date_anywhere_is_undated(text: str) -> None:
    found = note_date("meeting-notes.md", "plain words " + text.replace("\n", " "), TZ)
    assert (found.at, found.basis) == (None, "undated")


NOTE = "## 1. KV cache eviction for vLLM serving (arXiv:2609.31111)\n\n- throughput 1.8× on H100\n"
UNDATED = {
    "inbox/amy/2026-02-30-1000-amy-feb30.md": "does not exist",
    "inbox/amy/2026-13-09-1000-amy-month13.md": "does not exist",
    "inbox/amy/0001-10-09-1000-amy-year1.md": "before 1990",
    "inbox/amy/amy-no-date-vllm.md": "no date",
    "inbox/amy/9999-10-09-1000-amy-year9999.md": "after the cutoff",
}
DATED = ["inbox/amy/-2026-10-09-1000-amy-dash.md", "inbox/amy/ 2026-10-09 1010 amy spaced.md",
         "inbox/amy/undated-name-but-front-matter.md"]


def test_undated_files_are_listed_never_windowed(tmp_path: Path, settings: Settings) -> None:
    root, _ = sample_copy(tmp_path)
    (root / "inbox" / "amy").mkdir()
    in_window = dt.datetime(2026, 10, 9, 12, 0, tzinfo=TZ).timestamp()
    for rel in [*UNDATED, *DATED]:
        text = ("---\ndate: 2026-10-09 11:00\n---\n" if "front-matter" in rel else "") + NOTE
        (root / rel).write_text(text, encoding="utf-8")
        os.utime(root / rel, (in_window, in_window))  # an mtime inside the evening's window
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, ["inference"])
    markdown, text = render_briefing(settings, ref, topic, window_of(topic, dt.date(2026, 10, 9)))
    doc = json.loads(text)
    checked = {s["path"] for s in doc["sources"]}
    assert not checked & set(UNDATED)
    assert set(DATED) <= checked
    undated = {u["path"]: u["reason"] for u in doc["undated"]}
    assert set(undated) == set(UNDATED) and doc["undated_count"] == len(UNDATED)
    for path, why in UNDATED.items():
        assert why in undated[path], (path, undated[path])
        assert path in markdown
    assert not [m for m in doc["malformed"] if m["path"] in UNDATED]
