"""Tests for tasks.knowledge.parse.

Contract: `parse_knowledge(text, tz)` reads the header (version, updated as aware UTC, citation
count), the change log (newest first, citations `before → after`), every heading as a section,
and one anchor per valid id per entry: body bullets carry `[anchored date]`, entries under the
line-initial `## References` heading are reference-only with `(cited date)`. Tables and quotes
never anchor; an entry naming ids without a date anchors nothing and warns. `anchor_status_as_of`
says which ids are anchored / reference-list-only on a day; `changelog_as_of` picks the newest
change-log row at or before a time. Only non-knowledge text raises `ParseError`.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tasks.knowledge.parse import (
    ParsedKnowledge,
    ParseError,
    anchor_status_as_of,
    changelog_as_of,
    parse_knowledge,
)

SHANGHAI = ZoneInfo("Asia/Shanghai")
DOC = Path(__file__).resolve().parents[2] / "examples/workspace/organized/knowledge/inference.md"


@pytest.fixture(scope="module")
def doc() -> ParsedKnowledge:
    return parse_knowledge(DOC.read_text(encoding="utf-8"), SHANGHAI)


def test_header(doc: ParsedKnowledge) -> None:
    assert doc.title == "inference · 知识活文档（Living Doc）"
    assert doc.version == "v310"
    assert doc.updated_at == datetime(2026, 10, 9, 12, 0, tzinfo=SHANGHAI)
    assert doc.updated_at is not None and doc.updated_at.tzinfo == UTC
    assert doc.citations == 471
    assert doc.warnings == ()


def test_backticked_references_in_header_prose_is_not_the_heading(doc: ParsedKnowledge) -> None:
    refs = [s for s in doc.sections if s.title == "References"]
    assert len(refs) == 1 and refs[0].level == 2
    assert doc.sections[-1] is refs[0]
    # Had the prose line opened the reference list, body entries would be reference-only.
    ref_ids = {a.arxiv_id for a in doc.anchors if a.reference_only}
    assert len(ref_ids) == 10 and "2610.04646" not in ref_ids
    assert all(a.section == "References" for a in doc.anchors if a.reference_only)


def test_sections(doc: ParsedKnowledge) -> None:
    by_number = {s.number: s for s in doc.sections if s.number}
    assert by_number["§1.1"].title == "框架格局" and by_number["§1.1"].level == 3
    assert by_number["§2.5"].heading == "§2.5 AI-for-Systems 闭环（旧 §1.(13)）"
    assert "SEIS" in by_number["§2.5"].text and "## " not in by_number["§2.5"].text
    sub = next(s for s in doc.sections if s.title.startswith("Router 选型安全审查"))
    assert (sub.number, sub.level) == ("", 4)


def test_subsection_anchor_names_its_parent_section(doc: ParsedKnowledge) -> None:
    router = next(a for a in doc.anchors if a.arxiv_id == "2610.02762" and "Router" in a.section)
    assert router.section == "§1.1 框架格局 › Router 选型安全审查（子节，2026-10-08 新开）"
    assert router.anchored_on == date(2026, 10, 8) and not router.reference_only


def test_anchors_as_of_oct7(doc: ParsedKnowledge) -> None:
    status = anchor_status_as_of(doc.anchors, date(2026, 10, 7))
    for arxiv_id in ("2610.03394", "2609.12551", "2610.05062"):
        assert status[arxiv_id].status == "already_anchored"
        assert status[arxiv_id].anchored_on == date(2026, 10, 6)
    assert "2610.04646" not in status  # anchored 2026-10-08, after the day asked about
    for arxiv_id in ("2610.04631", "2610.02732", "2610.03955", "2610.05842"):
        assert status[arxiv_id].status == "reference_list_only"
        assert status[arxiv_id].cited_on == date(2026, 10, 6)
        assert status[arxiv_id].sections == ("References",)
    for net_new in ("2610.06479", "2610.02762", "2610.03430", "2605.16867", "2605.01280"):
        assert net_new not in status


def test_anchors_as_of_oct9(doc: ParsedKnowledge) -> None:
    status = anchor_status_as_of(doc.anchors, date(2026, 10, 9))
    for arxiv_id in ("2610.10845", "2610.06479", "2607.09701"):
        assert (status[arxiv_id].status, status[arxiv_id].anchored_on) == ("already_anchored", date(2026, 10, 9))
    seis = status["2610.04646"]
    assert seis.anchored_on == date(2026, 10, 8)
    assert len(seis.sections) == 1 and seis.sections[0].startswith("§2.5 ")
    assert status["2511.02230"].status == "reference_list_only"
    assert status["2511.02230"].cited_on == date(2026, 9, 29)
    # 2610.02762 is anchored in two sections; both are listed in document order.
    assert [s.split(" ")[0] for s in status["2610.02762"].sections] == ["§1.1", "§4.3"]
    for absent in ("2609.23130", "2610.07219", "2609.39334", "2609.38169", "2610.12085"):
        assert absent not in status


def test_changelog(doc: ParsedKnowledge) -> None:
    assert len(doc.changelog) == 6
    assert [r.at for r in doc.changelog] == [
        datetime(2026, 10, d, 12, 0, tzinfo=SHANGHAI) for d in range(9, 3, -1)
    ]
    oct6 = next(r for r in doc.changelog if r.at == datetime(2026, 10, 6, 12, 0, tzinfo=SHANGHAI))
    assert (oct6.citations_before, oct6.citations_after) == (437, 448)
    assert "SEIS" in oct6.summary
    oct7 = changelog_as_of(doc, datetime(2026, 10, 7, 22, 20, tzinfo=SHANGHAI))
    assert oct7 is not None and oct7.at == datetime(2026, 10, 7, 4, 0, tzinfo=UTC)
    assert (oct7.citations_before, oct7.citations_after) == (None, 448)
    assert changelog_as_of(doc, datetime(2026, 10, 4, 11, 59, tzinfo=SHANGHAI)) is None
    with pytest.raises(ValueError):
        changelog_as_of(doc, datetime(2026, 10, 7, 22, 20))


def test_tables_and_name_only_watch_list_create_no_anchors(doc: ParsedKnowledge) -> None:
    assert all(not a.entry.startswith("|") for a in doc.anchors)
    assert not any("观察名单" in a.entry or "更新记录" in a.section for a in doc.anchors)
    seis_entries = [a for a in doc.anchors if "SEIS" in a.entry]
    assert {a.arxiv_id for a in seis_entries} == {"2610.04646"}  # only the real §2.5 / O563 entries


SYNTHETIC = """# demo

version: v2 | updated: 2026-10-01T09:30 | citations: 1,204

## §1 Body

- **A**（arXiv:2610.04646v2）and 2610.07219. [anchored 2026-10-02]
  - detail naming arXiv:2610.11959 inherits the parent's date
- **B** names arXiv:2610.12415 but carries no date.
- **C** has a broken id arXiv:2610.0998 [anchored 2026-10-03]
> quoted arXiv:2610.12312 [anchored 2026-10-01]

| table | arXiv:2609.23130 [anchored 2026-10-01] |
|---|---|

## References

- arXiv:2511.02230 — Continnum (cited 2026-09-29)
- arXiv:2610.05842 — HLA without a date
"""


def test_synthetic_edge_cases() -> None:
    doc = parse_knowledge(SYNTHETIC, SHANGHAI)
    assert (doc.version, doc.citations) == ("v2", 1204)
    assert doc.updated_at == datetime(2026, 10, 1, 1, 30, tzinfo=UTC)
    by_id = {a.arxiv_id: a for a in doc.anchors}
    assert by_id["2610.04646"].raw == "arXiv:2610.04646v2"
    assert by_id["2610.07219"].anchored_on == date(2026, 10, 2)
    assert by_id["2610.11959"].anchored_on == date(2026, 10, 2)
    assert by_id["2610.12415"].anchored_on is None
    assert "2610.12312" not in by_id and "2609.23130" not in by_id  # quotes and tables never anchor
    assert by_id["2511.02230"].reference_only and by_id["2511.02230"].cited_on == date(2026, 9, 29)
    assert by_id["2610.05842"].cited_on is None
    joined = "\n".join(doc.warnings)
    assert "arXiv:2610.0998" in joined
    assert "without an [anchored date]" in joined and "2610.12415" in joined
    assert "without a (cited date)" in joined
    status = anchor_status_as_of(doc.anchors, date(2026, 12, 31))
    assert "2610.12415" not in status and "2610.05842" not in status
    assert status["2511.02230"].status == "reference_list_only"
    assert doc.changelog == ()


def test_empty_and_garbage_input() -> None:
    empty = parse_knowledge("", SHANGHAI)
    assert empty.anchors == () and empty.version is None and empty.warnings == ("empty document",)
    with pytest.raises(ParseError):
        parse_knowledge("lorem ipsum dolor\n\nsit amet 2.81–3.10×\n", SHANGHAI)
