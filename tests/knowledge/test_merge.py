"""Contract of the noon merge (tasks.merge.propose.propose) on generated knowledge documents.

Each document is built from parts, and its expected merged form from the same parts with the new
lines put where the merge rules say (the expected answer travels with the input): an entry per
NET-new paper or engineering increment at the end of its suggested section, in that section's
entry style, `[anchored <merge date>]`; a References-only id promoted leaves the list; an adjacent
paper goes to References `(cited <merge date>)`; an id already in the body under another date is
left out as "already merged on <date>"; the header's version +1, merge time and recounted
citations; a change-log row on top, the table capped at the length its heading promises. Variants:
§ numbering and plain numbering, Chinese and English headings, no change log, CRLF, BOM, a count
that is not a recount. The proposal's document and diff are exactly the expected ones, re-parsing
gives the new anchors, and proposing again on the result changes nothing.
"""

from __future__ import annotations

import datetime as dt
import difflib
from zoneinfo import ZoneInfo

import pytest

from tasks.knowledge.parse import anchor_status_as_of, changelog_as_of, parse_knowledge
from tasks.merge.merged_document import split_lines
from tasks.merge.propose import UNPLACED_HEADING, propose
from tasks.model.noon_merge import MergeIncrement, merge_time

TZ = ZoneInfo("Asia/Shanghai")
MERGE_AT = dt.datetime(2026, 10, 10, 12, 0, tzinfo=TZ)
BRIEFING = dt.date(2026, 10, 9)


def increments(sec: str) -> list[MergeIncrement]:
    return [
        MergeIncrement("2402.00010", "Delta", "net_new", "Delta speeds up decoding", f"{sec}1.1 Engines", "text",
                       ("Alpha",)),
        MergeIncrement("2401.00001", "Gamma", "net_new", "Gamma moves into the body", f"{sec}1.2 Scheduling", "hint"),
        MergeIncrement("2402.00020", "Epsilon", "adjacent", "", None, ""),
        MergeIncrement(None, "Zeta", "engineering", "Zeta ships a scheduler", f"{sec}1.2 Scheduling", "text"),
        MergeIncrement("2401.00002", "Alpha", "net_new", "Alpha again", f"{sec}1.1 Engines", "text"),
    ]


def build(*, sec: str = "§", english: bool = False, changelog: bool = True, citations: int = 4, after: int = 6,
          merged: bool = False) -> str:
    """The document, or (`merged`) what the merge of `increments(sec)` must make of it."""
    log_head = "## Change log (last 2)" if english else "## 更新记录（近 2 次）"
    cols = "| Update | Summary | Citations |" if english else "| 午间更新 | 合入内容 | 引用数 |"
    summary = ("Merged the 2026-10-09 briefing: Delta ({n}1.1), Gamma ({n}1.2), Zeta ({n}1.2); References +1 (Epsilon)"
               if english else "合入 Oct 9 E1：Delta（{n}1.1）、Gamma（{n}1.2）、Zeta（{n}1.2）；References +1（Epsilon）")
    label = (lambda n: n) if sec else (lambda n: f"{n} " + {"1.1": "Engines", "1.2": "Scheduling"}[n])
    summary = summary.replace("{n}1.1", sec + label("1.1")).replace("{n}1.2", sec + label("1.2"))
    count = f"{citations} → {after}"
    version = "version: v8 · updated: 2026-10-10 12:00" if merged else "version: v7 · updated: 2026-10-01 12:00"
    lines = [f"# {'topic' if english else '主题'} · living doc", "",
             f"{version} · citations: {after if merged else citations}", ""]
    if changelog:
        lines += [log_head, "", cols, "|---|---|---|"]
        lines += [f"| 2026-10-10 12:00 | {summary} | {count} |"] if merged else []
        lines += ["| 2026-10-01 12:00 | Beta | 2 → 3 |"]
        lines += [] if merged else ["| 2026-09-30 12:00 | Alpha | 2 |"]
        lines += [""]
    lines += [f"## {sec}1 Serving", "", f"### {sec}1.1 Engines", "",
              "- **Alpha**（arXiv:2401.00002）：fast engine。[anchored 2026-09-30]"]
    lines += ["- **Delta**（arXiv:2402.00010）：Delta speeds up decoding。[anchored 2026-10-10]"] if merged else []
    lines += ["", f"### {sec}1.2 Scheduling", "", "- **Beta** (arXiv:2401.00003): schedules. [anchored 2026-10-01]"]
    lines += ["- **Gamma** (arXiv:2401.00001): Gamma moves into the body. [anchored 2026-10-10]",
              "- **Zeta**: Zeta ships a scheduler. [anchored 2026-10-10]"] if merged else []
    lines += ["", "## References", ""]
    lines += [] if merged else ["- arXiv:2401.00001 — Gamma (cited 2026-09-29)"]
    lines += ["- arXiv:2309.00004 — Eta (cited 2026-09-29)"]
    lines += ["- arXiv:2402.00020 — Epsilon (cited 2026-10-10)"] if merged else []
    return "\n".join(lines) + "\n"


VARIANTS = {
    "zh-section-sign": {},
    "english-headings": {"english": True},
    "plain-numbering": {"sec": ""},
    "no-change-log": {"changelog": False},
    # 4 distinct ids (2401.00001-3, 2309.00004): a count of 4 is a recount, 4 + the 2 new ids = 6; a
    # count of 40 grows by the 3 new citations (2 new ids, 1 engineering entry; Gamma was cited already).
    "count-not-a-recount": {"citations": 40, "after": 43},
}

EXPECTED_DIFF = """\
--- a/k.md
+++ b/k.md
@@ -1,25 +1,28 @@
 # 主题 · living doc
 
-version: v7 · updated: 2026-10-01 12:00 · citations: 4
+version: v8 · updated: 2026-10-10 12:00 · citations: 6
 
 ## 更新记录（近 2 次）
 
 | 午间更新 | 合入内容 | 引用数 |
 |---|---|---|
+| 2026-10-10 12:00 | 合入 Oct 9 E1：Delta（§1.1）、Gamma（§1.2）、Zeta（§1.2）；References +1（Epsilon） | 4 → 6 |
 | 2026-10-01 12:00 | Beta | 2 → 3 |
-| 2026-09-30 12:00 | Alpha | 2 |
 
 ## §1 Serving
 
 ### §1.1 Engines
 
 - **Alpha**（arXiv:2401.00002）：fast engine。[anchored 2026-09-30]
+- **Delta**（arXiv:2402.00010）：Delta speeds up decoding。[anchored 2026-10-10]
 
 ### §1.2 Scheduling
 
 - **Beta** (arXiv:2401.00003): schedules. [anchored 2026-10-01]
+- **Gamma** (arXiv:2401.00001): Gamma moves into the body. [anchored 2026-10-10]
+- **Zeta**: Zeta ships a scheduler. [anchored 2026-10-10]
 
 ## References
 
-- arXiv:2401.00001 — Gamma (cited 2026-09-29)
 - arXiv:2309.00004 — Eta (cited 2026-09-29)
+- arXiv:2402.00020 — Epsilon (cited 2026-10-10)
"""


def _pair(**variant: object) -> tuple[str, str, str]:
    return build(**variant), build(merged=True, **variant), str(variant.get("sec", "§"))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("bom", [False, True], ids=["no-bom", "bom"])
def test_proposal_is_the_expected_document_and_diff(name: str, newline: str, bom: bool) -> None:
    old, new, sec = _pair(**VARIANTS[name])
    old, new = (("\ufeff" if bom else "") + t.replace("\n", newline) for t in (old, new))
    proposal = propose(old, increments(sec), MERGE_AT, briefing_date=BRIEFING, path="k.md")
    assert proposal.document == new
    assert proposal.diff == "".join(difflib.unified_diff(split_lines(old), split_lines(new), "a/k.md", "b/k.md"))
    if (name, newline, bom) == ("zh-section-sign", "\n", False):
        assert proposal.diff == EXPECTED_DIFF
    actions = {p.key: (p.action, p.why) for p in proposal.placements}
    assert actions["2401.00002"] == ("already", "already merged on 2026-09-30")
    assert actions["2402.00020"][0] == "reference" and actions["Zeta"][0] == "entry"
    assert ("no change log table: no row added" in proposal.notes) == (name == "no-change-log")
    # Re-parsed: the new anchors carry the merge date; Gamma left References; Epsilon is cited.
    status = anchor_status_as_of(parse_knowledge(proposal.document, TZ).anchors, dt.date(2026, 10, 10))
    assert status["2402.00010"].anchored_on == status["2401.00001"].anchored_on == dt.date(2026, 10, 10)
    assert status["2401.00001"].cited_on is None and status["2401.00002"].anchored_on == dt.date(2026, 9, 30)
    assert status["2402.00020"].status == "reference_list_only"
    assert status["2402.00020"].cited_on == dt.date(2026, 10, 10)
    again = propose(proposal.document, increments(sec), MERGE_AT, briefing_date=BRIEFING, path="k.md")
    assert again.document == proposal.document and not again.changed
    assert {p.why for p in again.placements} <= {"already merged on 2026-10-10", "already merged on 2026-09-30",
                                                 "already cited on 2026-10-10"}


def test_only_and_skip_choose_increments_by_id_or_name() -> None:
    old, _, sec = _pair()
    only = propose(old, increments(sec), MERGE_AT, briefing_date=BRIEFING, only=["2402.00010", "Zeta"])
    added = [line for line in only.diff.splitlines() if line.startswith("+- ")]
    assert added == ["+- **Delta**（arXiv:2402.00010）：Delta speeds up decoding。[anchored 2026-10-10]",
                     "+- **Zeta**: Zeta ships a scheduler. [anchored 2026-10-10]"]
    skipped = propose(old, increments(sec), MERGE_AT, briefing_date=BRIEFING, skip=["Delta", "2401.00001",
                                                                                     "2402.00020", "Zeta"])
    assert not skipped.changed and skipped.document == old
    assert {p.action for p in skipped.placements} == {"skipped", "already"}


def test_an_entry_with_no_section_goes_under_a_marked_section_and_the_proposal_says_why() -> None:
    old = "version: 3 · updated: 2026-10-01 · citations: 1\n\n## Notes\n\n- **Old** (arXiv:2401.00002): x. [anchored 2026-09-01]"
    inc = MergeIncrement("2402.00010", "Delta", "net_new", "Delta is new", "§9 Nowhere", "text")
    proposal = propose(old, [inc], MERGE_AT, briefing_date=BRIEFING)
    assert proposal.document == (
        "version: 4 · updated: 2026-10-10 12:00 · citations: 2\n\n## Notes\n\n"
        "- **Old** (arXiv:2401.00002): x. [anchored 2026-09-01]\n\n"
        f"{UNPLACED_HEADING}\n\n- **Delta** (arXiv:2402.00010): Delta is new. [anchored 2026-10-10]\n")
    assert proposal.diff.endswith("\\ No newline at end of file\n" + "+- **Old** (arXiv:2401.00002): x. "
                                  "[anchored 2026-09-01]\n+\n+" + UNPLACED_HEADING + "\n+\n"
                                  "+- **Delta** (arXiv:2402.00010): Delta is new. [anchored 2026-10-10]\n")
    assert any("no section '§9 Nowhere' in the document" in note for note in proposal.notes)
    assert "no change log table: no row added" in proposal.notes


def test_a_statement_naming_another_paper_is_left_out() -> None:
    """Another id in the new entry would anchor that paper too, on a date nobody merged it."""
    old, _, sec = _pair()
    inc = MergeIncrement("2402.00010", "Delta", "net_new", "beats arXiv:2401.00009 by 2×", f"{sec}1.1 Engines")
    proposal = propose(old, [inc], MERGE_AT, briefing_date=BRIEFING)
    assert "+- **Delta**（arXiv:2402.00010） [anchored 2026-10-10]\n" in proposal.diff
    assert "2401.00009" not in proposal.document


def test_merge_time_is_the_next_noon_after_the_cutoff() -> None:
    evening = dt.datetime(2026, 10, 9, 22, 20, tzinfo=TZ)
    assert merge_time(evening, "Asia/Shanghai") == MERGE_AT
    assert merge_time(evening, "Asia/Shanghai", "23:00") == dt.datetime(2026, 10, 9, 23, 0, tzinfo=TZ)
    assert merge_time(dt.datetime(2026, 10, 9, 12, 0, tzinfo=TZ), "Asia/Shanghai") == MERGE_AT
    with pytest.raises(ValueError, match="HH:MM"):
        merge_time(evening, "Asia/Shanghai", "noon")


def test_the_version_in_force_at_a_cutoff_still_reads_from_an_edited_change_log() -> None:
    """A change log with a version column gets the new version; as of an earlier cutoff the
    document still reads as the version it was then (tasks.knowledge.parse.changelog_as_of)."""
    old = build().replace("| 午间更新 | 合入内容 | 引用数 |", "| 午间更新 | 版本 | 合入内容 | 引用数 |").replace(
        "|---|---|---|", "|---|---|---|---|").replace("| 2026-10-01 12:00 | Beta", "| 2026-10-01 12:00 | v7 | Beta")
    proposal = propose(old, increments("§"), MERGE_AT, briefing_date=BRIEFING)
    parsed = parse_knowledge(proposal.document, TZ)
    assert (parsed.version, parsed.citations, parsed.updated_at) == ("v8", 6, MERGE_AT.astimezone(dt.UTC))
    top = parsed.changelog[0]
    assert (top.version, top.citations_before, top.citations_after, top.at) == ("v8", 4, 6,
                                                                                 MERGE_AT.astimezone(dt.UTC))
    evening = dt.datetime(2026, 10, 9, 22, 20, tzinfo=TZ)
    before = changelog_as_of(parsed, evening)
    assert before is not None and (before.version, before.citations_after) == ("v7", 3)


def test_an_adjacent_paper_after_a_promoted_last_reference_is_kept() -> None:
    old = ("version: v1 · updated: 2026-10-01 12:00 · citations: 2\n\n## §1 Body\n\n"
           "- **Old**（arXiv:2401.00002）：x。[anchored 2026-09-01]\n\n## References\n\n"
           "- arXiv:2401.00001 — Gamma (cited 2026-09-29)\n")
    incs = [MergeIncrement("2401.00001", "Gamma", "net_new", "", "§1 Body"),
            MergeIncrement("2402.00020", "Epsilon", "adjacent")]
    proposal = propose(old, incs, MERGE_AT, briefing_date=BRIEFING)
    assert proposal.document == (
        "version: v2 · updated: 2026-10-10 12:00 · citations: 3\n\n## §1 Body\n\n"
        "- **Old**（arXiv:2401.00002）：x。[anchored 2026-09-01]\n"
        "- **Gamma**（arXiv:2401.00001） [anchored 2026-10-10]\n\n## References\n\n"
        "- arXiv:2402.00020 — Epsilon (cited 2026-10-10)\n")
