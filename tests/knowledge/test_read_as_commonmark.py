"""Contract: the knowledge document is read as a CommonMark reader reads it, from its one parse
(tasks.knowledge.layout over tasks.inbox.document), by its reader and by the noon merge alike.

- A `#` line inside a fenced block is code, whatever fence opened the block; a fence of another
  kind inside it does not close it.
- An underlined (setext) heading and an ATX heading indented by up to three spaces are headings,
  with their section numbers; the merge places a new entry after the heading's underline.
- A list item is one entry: its wrapped lines are its text (a continuation line that only looks
  like a numbered item is text), and an item nested in it, however far below, inherits its date.
- A table's rows, with or without a leading pipe, and a quote anchor nothing; a bullet inside a
  fence is no entry, so the merge does not take its name for one already merged.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from tasks.knowledge.parse import parse_knowledge
from tasks.merge.propose import propose
from tasks.model.noon_merge import MergeIncrement

TZ = ZoneInfo("Asia/Shanghai")
HEAD = "# inference · living doc\n\nversion: v3 · updated: 2026-10-01 12:00 · citations: 2\n\n"


def _anchors(body: str) -> dict[str, tuple[str, dt.date | None, str]]:
    parsed = parse_knowledge(HEAD + body, TZ)
    return {a.arxiv_id: (a.section, a.anchored_on, a.entry) for a in parsed.anchors}


def test_a_hash_line_in_a_tilde_fence_holding_backticks_is_code() -> None:
    parsed = parse_knowledge(HEAD + "## §1 Engines\n\n~~~\n```\n# not a heading\n- x (arXiv:2610.00009) "
                             "[anchored 2026-10-01]\n~~~\n\n- **A** (arXiv:2610.00001) [anchored 2026-10-02]\n", TZ)
    assert [s.heading for s in parsed.sections] == ["inference · living doc", "§1 Engines"]
    assert "# not a heading" in parsed.sections[1].text
    assert [(a.arxiv_id, a.section) for a in parsed.anchors] == [("2610.00001", "§1 Engines")]


def test_setext_and_indented_headings_are_sections() -> None:
    found = _anchors("§2 Scheduling\n-------------\n\n- **A** (arXiv:2610.00001) [anchored 2026-10-02]\n\n"
                     "  ### §2.1 Queues\n\n- **B** (arXiv:2610.00002) [anchored 2026-10-03]\n")
    assert found["2610.00001"][0] == "§2 Scheduling"
    assert found["2610.00002"][0] == "§2.1 Queues"


def test_nested_items_inherit_their_parents_date_across_a_paragraph() -> None:
    found = _anchors("## §1 Engines\n\n- **A** (arXiv:2610.00001): fast. [anchored 2026-10-02]\n\n"
                     "  A second paragraph of A.\n\n  - detail: compared with arXiv:2610.00002\n"
                     "    - deeper: arXiv:2610.00003\n")
    assert found["2610.00002"][1] == found["2610.00003"][1] == dt.date(2026, 10, 2)


def test_a_wrapped_line_carrying_the_id_belongs_to_its_item() -> None:
    found = _anchors("## §1 Engines\n\n- **Serve** speeds up decoding by a lot, see\n"
                     "  2) arXiv:2610.00001 for the numbers [anchored 2026-10-02]\n- **Other** [anchored 2026-10-03]\n")
    section, day, entry = found["2610.00001"]
    assert day == dt.date(2026, 10, 2)
    assert entry.startswith("**Serve**") and "Other" not in entry


def test_tables_and_quotes_anchor_nothing() -> None:
    parsed = parse_knowledge(HEAD + "## §1 Engines\n\n| id | note |\n|---|---|\n| arXiv:2610.00001 | fast |\n\n"
                             "id | note\n---|---\narXiv:2610.00002 | slow\n\n> arXiv:2610.00003 [anchored 2026-10-01]\n", TZ)
    assert parsed.anchors == () and parsed.warnings == ()


def test_the_merge_places_an_entry_after_an_underlined_heading() -> None:
    old = HEAD + "§1 Engines\n----------\n\n§2 Scheduling\n-------------\n\n- **B** (arXiv:2610.00002): b. [anchored 2026-10-01]\n"
    inc = MergeIncrement("2610.00001", "Alpha", "net_new", "Alpha is fast", "§1 Engines", "text")
    proposal = propose(old, [inc], dt.datetime(2026, 10, 10, 12, tzinfo=TZ), briefing_date=dt.date(2026, 10, 9))
    lines = proposal.document.split("\n")
    at = next(k for k, line in enumerate(lines) if "Alpha" in line)
    assert lines[at - 2:at] == ["§1 Engines", "----------"]
    anchors = {a.arxiv_id: a.section for a in parse_knowledge(proposal.document, TZ).anchors}
    assert anchors == {"2610.00001": "§1 Engines", "2610.00002": "§2 Scheduling"}


def test_a_bullet_inside_a_fence_is_no_entry_the_merge_counts_as_merged() -> None:
    old = HEAD + "## §1 Engines\n\n```\n- **Zeta**: an example entry [anchored 2026-10-01]\n```\n\n- **B** (arXiv:2610.00002): b. [anchored 2026-10-01]\n"
    inc = MergeIncrement(None, "Zeta", "engineering", "Zeta ships a scheduler", "§1 Engines", "text")
    proposal = propose(old, [inc], dt.datetime(2026, 10, 10, 12, tzinfo=TZ), briefing_date=dt.date(2026, 10, 9))
    assert [p.action for p in proposal.placements] == ["entry"]
