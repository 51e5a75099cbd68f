"""Contract of tasks.inbox.filenames.parse_note_name.

A note name gives the note's local wall-clock time (naive), whether a time was written, the author
(always the inbox directory passed in) and the slug (without a repeated author). The three shapes
`DATE[T|-]HHMM-author-slug.md`, `DATE[T|-]HHMM-slug.md` and `DATE-slug.md` (00:00, has_time False)
are accepted; an impossible time degrades to "no time", a name without a valid date or `.md` is None.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tasks.inbox.filenames import NoteName, parse_note_name

ROOT = Path(__file__).resolve().parents[2]


def workspace() -> Path:
    """The sample workspace: the repo's examples copy, else ../shared/corpus/workspace."""
    for candidate in (ROOT / "examples" / "workspace", ROOT.parent / "shared" / "corpus" / "workspace"):
        if (candidate / "inbox").is_dir():
            return candidate
    pytest.skip("sample workspace not found")


@pytest.mark.parametrize(
    ("name", "author", "expected"),
    [
        (  # time with "-", author repeated in the name
            "2026-10-07-1450-jay-engineering-screening-oct07-r7.md", "jay",
            NoteName(dt.datetime(2026, 10, 7, 14, 50), True, "jay", "engineering-screening-oct07-r7"),
        ),
        (  # time with "T"
            "2026-10-09T1450-jay-inference-systems-deep-dive.md", "jay",
            NoteName(dt.datetime(2026, 10, 9, 14, 50), True, "jay", "inference-systems-deep-dive"),
        ),
        (  # time without the author in the name
            "2026-10-06-0900-hf-daily-2026-10-06.md", "tom",
            NoteName(dt.datetime(2026, 10, 6, 9, 0), True, "tom", "hf-daily-2026-10-06"),
        ),
        (  # no time: midnight, has_time False
            "2026-10-07-llm-infra-e1prep.md", "spark",
            NoteName(dt.datetime(2026, 10, 7, 0, 0), False, "spark", "llm-infra-e1prep"),
        ),
    ],
)
def test_three_name_shapes(name: str, author: str, expected: NoteName) -> None:
    assert parse_note_name(name, author) == expected


def test_every_sample_note_name_parses_with_its_directory_as_author() -> None:
    notes = sorted((workspace() / "inbox").rglob("*.md"))
    assert len(notes) >= 20
    for path in notes:
        parsed = parse_note_name(path.name, path.parent.name)
        assert parsed is not None, path.name
        assert parsed.author == path.parent.name
        assert parsed.local_time.tzinfo is None
        assert parsed.local_time.date().isoformat() == path.name[:10]
        assert parsed.slug and not parsed.slug.startswith(f"{path.parent.name}-")


def test_author_in_the_name_is_kept_when_no_directory_is_given() -> None:
    parsed = parse_note_name("2026-10-07-1050-jay-engineering-oct07-r3.md", None)
    assert parsed == NoteName(dt.datetime(2026, 10, 7, 10, 50), True, None, "jay-engineering-oct07-r3")


def test_a_different_author_prefix_is_not_stripped() -> None:
    parsed = parse_note_name("2026-10-08-1420-jay-engineering-nixl.md", "lena")
    assert parsed is not None and parsed.slug == "jay-engineering-nixl" and parsed.author == "lena"


@pytest.mark.parametrize("name", ["2026-10-07-2599-jay-x.md", "2026-10-07T2460-jay-x.md", "2026-10-07-2400-jay-x.md"])
def test_impossible_time_counts_as_no_time(name: str) -> None:
    parsed = parse_note_name(name, "jay")
    assert parsed is not None
    assert parsed.has_time is False
    assert parsed.local_time == dt.datetime(2026, 10, 7)
    assert parsed.slug.endswith("jay-x")  # the digits stay in the slug rather than vanish


@pytest.mark.parametrize(
    "name", ["README.md", "2026-13-01-x.md", "2026-02-30-x.md", "2026-10-07-1450-jay-x.txt", ".DS_Store", ""]
)
def test_names_without_a_valid_date_or_md_suffix_are_none(name: str) -> None:
    assert parse_note_name(name, "jay") is None


def test_spaces_non_ascii_case_and_paths() -> None:
    assert parse_note_name("2026-10-07T1450-jay-深度 笔记 v2.MD", "jay") == NoteName(
        dt.datetime(2026, 10, 7, 14, 50), True, "jay", "深度 笔记 v2"
    )
    assert parse_note_name("2026-10-07 2250 lena first read.md", "lena") == NoteName(
        dt.datetime(2026, 10, 7, 22, 50), True, "lena", "first read"
    )
    parsed = parse_note_name("inbox/jay/2026-10-09t0905-jay-x.md", "jay")
    assert parsed is not None and parsed.local_time == dt.datetime(2026, 10, 9, 9, 5) and parsed.slug == "x"
