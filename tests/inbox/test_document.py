"""Contract: a note is read as one CommonMark document (tasks.inbox.document), with the readings a
note's author means where CommonMark would differ; an entry's part of it is re-based to its text.

- Fenced code is code; indented text is text (its paragraphs are blocks), never code.
- A `---` under one line is a heading; under a paragraph of several lines it is a break.
- A one-line numbered item underlined with `---` is a heading; a line without a pipe under a table is text.
- A list item's own lines run from its marker through its continuation lines, up to its first nested list.
- A hedge's claim is its whole list item (continuation lines too, never the next item), with its line;
  so is each item under a hedging heading.
"""

from __future__ import annotations

from tasks.config.judgment import default_judgment
from tasks.inbox.document import read_document
from tasks.inbox.notes import parse_note
from tasks.inbox.outline_reader import stored_outline
from tasks.model.window_views import EntryView
from tasks.verify.hedged import entry_hedges
from tasks.verify.markers import markers_of


def test_fences_are_code_and_indented_text_is_text() -> None:
    doc = read_document("```\n# not a heading\n```\n\n    indented words\n    go on here\n")
    assert doc.code[:3] == (True, True, True) and not any(doc.code[3:])
    assert doc.heads == {}
    assert (4, 6) in doc.blocks


def test_setext_under_one_line_is_a_heading_under_several_a_break() -> None:
    doc = read_document("Title\n---\n\nline one\nline two\n---\n")
    assert doc.heads == {0: (2, "Title", 2)}
    assert doc.hr[5] and (3, 5) in doc.blocks


def test_an_underlined_numbered_line_is_a_heading() -> None:
    doc = read_document("1) Engines compared\n------\n\n- vLLM\n")
    assert doc.heads[0] == (2, "1) Engines compared", 2)
    assert not doc.hr[1] and [(i.start, i.parent) for i in doc.items] == [(3, None)]


def test_a_pipeless_line_under_a_table_is_text() -> None:
    doc = read_document("| a | b |\n|---|---|\n| 1 | 2 |\n五、摘要\n")
    assert (3, 4) in doc.blocks and (2, 3) not in doc.blocks


def test_items_keep_continuation_lines_and_nesting() -> None:
    doc = read_document("- a claim\n  wrapped on\n  - nested\n- sibling\n")
    assert [(i.start, i.end, i.own_end, i.parent) for i in doc.items] == [(0, 3, 2, None), (2, 3, 3, 0), (3, 4, 4, None)]


def test_an_entry_part_is_re_based_and_its_heading_item_left_out() -> None:
    note = "# Notes\n\n1. Kestrel 2.0\n   - released today\n     on GitHub\n2. Hydra 1.1\n   - slower\n"
    entries = parse_note(note).entries
    assert [e.title for e in entries] == ["Kestrel 2.0", "Hydra 1.1"]
    first = entries[0]
    assert [(i.start, i.own_end, i.parent) for i in first.tree.items] == [(0, 2, None)]
    assert first.text.split("\n")[0].strip() == "- released today"


def test_a_hedged_item_is_claimed_whole_with_its_line() -> None:
    note = ("# N\n\n## Kestrel 2.0\n\n- baseline: Hydra (arXiv:2610.00001), EAGLE-3\n"
            "- 待核实：P99 数字来自作者 README，\n  未复现。\n- next item\n")
    (entry,) = parse_note(note).entries
    (hedge,) = entry.hedges
    assert hedge["text"] == "待核实：P99 数字来自作者 README，未复现。"
    assert entry.text.split("\n")[hedge["line"]].startswith("- 待核实")


def test_each_item_under_a_hedging_heading_is_claimed_whole() -> None:
    """Under "Needs verification" every item is a claim: its wrapped line is part of it, the next
    item's text never is (the tree ingest stored, read by tasks.verify.hedged)."""
    note = ("# N\n\n## Needs verification\n\n- Kestrel's P99 figure comes from the author's README,\n"
            "  not reproduced on H100.\n- Hydra (arXiv:2610.00001) as the baseline, EAGLE-3 too.\n")
    (entry,) = parse_note(note).entries
    view = EntryView(1, "inbox/x/2026-11-10T1000-x.md", "note", entry.ordinal, entry.label, entry.heading_path,
                     entry.title, entry.text, tuple(entry.hedges), outline=stored_outline(entry.text, entry.tree))
    texts = [h["text"] for h in entry_hedges(view, markers_of(default_judgment()))]
    assert "Kestrel's P99 figure comes from the author's README, not reproduced on H100." in texts
    assert not any("Kestrel" in t and "Hydra" in t for t in texts)
