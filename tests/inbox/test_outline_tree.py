"""Contract: an entry's outline is read from its part of the note's one parse (tasks.inbox.document),
never by classifying its lines again (tasks.inbox.outline_reader).

- The same entry gives the same outline however it is written: `-`, `*` or `1.` markers, wrapped
  items (indented or lazy continuation lines), nested items at any indent CommonMark nests them,
  the whole entry indented under a list item, a table or a fence inside an item (both skipped).
- A point is a top-level item's own lines; its children are the items nested in it, at any depth;
  a lead-in is the block directly above the list; an entry without a list is its blocks.
- Building the stored outline from an entry's part calls the parser zero times; a text that is no
  note's entry is read once. The part is stored with the outline, and `listed` reads it back.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tasks.inbox.notes import parse_note
from tasks.inbox.outline_reader import listed, parse_outline, read_alone, stored_outline, stored_part, units
from tasks.model.outline import Outline, OutlineItem

EXPECTED = (
    OutlineItem("Kestrel is 2.1x faster on H100 at batch 64.", ("measured with vLLM 0.9 over 3 runs",), "Results", 1),
    OutlineItem("Hydra holds P99 under 80 ms.", (), "Results", 1),
)
STYLES = {
    "dash, wrapped": "**Results:**\n- Kestrel is 2.1x faster\n  on H100 at batch 64.\n  - measured with vLLM 0.9\n"
                     "    over 3 runs\n- Hydra holds P99 under 80 ms.\n\nSome closing words.",
    "star, nested deeper": "**Results:**\n* Kestrel is 2.1x faster on H100\n  at batch 64.\n"
                           "    * measured with vLLM 0.9 over 3 runs\n* Hydra holds P99 under 80 ms.\n\nSome closing words.",
    "numbered, lazy wrap": "**Results:**\n1. Kestrel is 2.1x faster on H100 at batch 64.\n"
                           "   - measured with vLLM 0.9 over 3 runs\n2. Hydra holds P99\nunder 80 ms.\n\nSome closing words.",
    "table and fence inside": "**Results:**\n- Kestrel is 2.1x faster on H100 at batch 64.\n  | run | tok/s |\n"
                              "  |---|---|\n  | 1 | 2 |\n  - measured with vLLM 0.9 over 3 runs\n"
                              "- Hydra holds P99 under 80 ms.\n  ```\n  - not an item\n  ```\n\nSome closing words.",
}
# A paper's own text joined with its sub-sections (`own_parts.with_subsections`) has headings inside:
# a heading right above a list is its lead-in.
UNDER_HEADING = ("#### Results\n\n- Kestrel is 2.1x faster on H100 at batch 64.\n  - measured with vLLM 0.9 over 3 runs\n"
                 "- Hydra holds P99 under 80 ms.\n\nSome closing words.")


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_style_gives_the_outline_the_tree_says(style: str) -> None:
    assert parse_outline(STYLES[style]).items == EXPECTED
    note = f"# Notes\n\n## Kestrel 2.0\n\n{STYLES[style]}\n"
    (entry,) = parse_note(note).entries
    assert stored_outline(entry.text, entry.tree).items == EXPECTED


def test_a_heading_right_above_a_list_is_its_lead_in() -> None:
    assert parse_outline(UNDER_HEADING).items == EXPECTED


def test_an_entry_indented_under_its_item_reads_its_nested_list_as_its_top() -> None:
    body = STYLES["dash, wrapped"].replace("\n\nSome closing words.", "")
    note = "# Notes\n\n1. Kestrel 2.0\n" + "\n".join("   " + x for x in body.split("\n")) + "\n"
    (entry,) = parse_note(note).entries
    assert entry.title == "Kestrel 2.0"
    outline = stored_outline(entry.text, entry.tree)
    assert outline.items == EXPECTED
    assert outline.dedented is not None and outline.dedented.items == EXPECTED
    assert parse_outline(entry.text).items == EXPECTED  # read alone, it reads as its note read it


def test_an_item_s_paragraphs_are_its_own_and_deeper_items_are_children() -> None:
    text = "- first point\n\n  its second paragraph.\n  - child\n    - grandchild\n- second point\n\nAfter the list."
    assert parse_outline(text).items == (
        OutlineItem("first point its second paragraph.", ("child", "grandchild")), OutlineItem("second point"))


def test_without_a_list_each_block_is_a_paragraph_and_code_and_tables_are_skipped() -> None:
    text = "First block,\nwrapped.\n\n```\ncode line\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSecond block."
    assert parse_outline(text) == Outline(paragraphs=("First block, wrapped.", "Second block."))


def test_a_labelled_run_is_points_without_its_labels() -> None:
    text = "R1 FooServe（arXiv:2610.01234）— 2.1× on H100\nR2 BarCache — 30% less KV\n  on long prompts"
    assert [i.head for i in parse_outline(text).items] == [
        "FooServe（arXiv:2610.01234）— 2.1× on H100", "BarCache — 30% less KV on long prompts"]
    assert units(text) == ["FooServe（arXiv:2610.01234）— 2.1× on H100", "BarCache — 30% less KV\n  on long prompts"]


def test_the_stored_outline_is_built_from_the_part_without_parsing(parsed: Counter[str]) -> None:
    note = f"# Notes\n\n## Kestrel 2.0\n\n{STYLES['table and fence inside']}\n\n## Hydra\n\n{STYLES['dash, wrapped']}\n"
    entries = parse_note(note).entries
    assert sum(parsed.values()) == 1  # the note, once
    outlines = [stored_outline(e.text, e.tree) for e in entries]
    assert sum(parsed.values()) == 1  # no entry read again
    assert [o.items for o in outlines] == [EXPECTED, EXPECTED]
    alone = "a text that is no note's entry:\n- one\n- two"
    stored_outline(alone)
    parse_outline(alone)
    units(alone)
    listed(alone)
    assert parsed[alone] == 1  # read once, however many readers ask


def test_the_part_is_stored_with_the_outline_and_listed_reads_it_back() -> None:
    text = "R1 FooServe\nR2 BarCache\n\n| # | name |\n|---|---|\n| 1 | BazKV |\n\n- QuxLM\n  - nested, not listed\n"
    part = read_alone(text)
    stored = Outline.from_json(json.loads(json.dumps(stored_outline(text).to_json())))
    assert stored_part(stored) == part
    assert listed(text, stored_part(stored)) == listed(text) == ["FooServe", "BarCache", "BazKV", "QuxLM"]
