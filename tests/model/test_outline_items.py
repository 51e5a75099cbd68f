"""Contract of `Outline.item_at` (what a hedge climbs from): for any list, nested, wrapped, with
paragraphs between items, the innermost list item whose own lines hold a line, found by bisection
over the stored tree; the same answer as scanning every item."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.inbox.outline_reader import stored_outline
from tasks.model.outline import Outline

_LINE = st.sampled_from(["- item", "  - nested", "    - deeper", "  wrapped on", "1. numbered", "- - both",
                         "", "text", "```", "| a | b |", "* star"])


def _scanned(outline: Outline, line: int) -> int | None:
    found = None
    for k, (start, _, own_end, _) in enumerate(outline.tree):
        if start <= line < own_end:
            found = k
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=14))
def test_the_item_holding_a_line_is_the_innermost_whose_own_lines_hold_it(lines: list[str]) -> None:
    text = "\n".join(lines)
    outline = stored_outline(text)
    for line in range(len(lines) + 1):
        assert outline.item_at(line) == _scanned(outline, line), (text, line, outline.tree)
