"""Contract: a card's body is read as a CommonMark reader reads it, from its one parse
(tasks.inbox.document): the TL;DR under a heading (ATX or underlined) is the block below it, a list
whole; a bold `**TL;DR**` label alone on its line introduces the next block; a `#` line inside a
fence is no heading, so neither the TL;DR nor the title comes from code.
"""

from __future__ import annotations

from tasks.cards.parse import parse_card

FRONT = "---\narxiv: 2610.00001\nprimary: inference\ncreated: 2026-10-01\n---\n"


def test_a_tldr_heading_and_a_bold_label_give_the_same_text() -> None:
    heading = parse_card(FRONT + "# Paper\n\n## TL;DR\n\nFaster decoding,\nwith less memory.\n\n## Method\n\nMore.\n")
    label = parse_card(FRONT + "# Paper\n\n**TL;DR**\n\nFaster decoding,\nwith less memory.\n\n## Method\n\nMore.\n")
    assert heading.tldr == label.tldr == "Faster decoding, with less memory."


def test_an_underlined_tldr_heading_is_a_heading() -> None:
    parsed = parse_card(FRONT + "TL;DR\n-----\nFaster decoding.\n")
    assert parsed.tldr == "Faster decoding."


def test_a_list_under_a_tldr_heading_is_the_whole_list() -> None:
    parsed = parse_card(FRONT + "### TL;DR\n\n- faster decoding\n- less memory\n  on long inputs\n\nAfter.\n")
    assert parsed.tldr == "- faster decoding - less memory on long inputs"


def test_a_hash_line_in_a_fence_is_neither_title_nor_tldr_heading() -> None:
    parsed = parse_card("---\narxiv: 2610.00001\n---\n~~~\n```\n# TL;DR\n~~~\n\nThe first paragraph.\n\n# Real title\n")
    assert parsed.tldr == "The first paragraph."
    assert parsed.title == "Real title"
