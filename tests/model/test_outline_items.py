"""Contract of `Outline.item_at` (what a hedge climbs from): for any list, nested, wrapped, with
paragraphs between items, the innermost list item that holds a line (its own lines, or a block that
continues it after its nested list), found by bisection over the stored tree; the same answer as
scanning every item."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.inbox.outline_reader import stored_outline
from tasks.model.outline import Outline

_LINE = st.sampled_from(["- item", "  - nested", "    - deeper", "  wrapped on", "1. numbered", "- - both",
                         "", "text", "```", "| a | b |", "* star", "+ plus", "  > **待核实**：quoted"])


def _scanned(outline: Outline, line: int) -> int | None:
    found = None
    for k, (start, end, _, _) in enumerate(outline.tree):
        if start <= line < end:
            found = k
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=14))
def test_the_item_holding_a_line_is_the_innermost_that_holds_it(lines: list[str]) -> None:
    text = "\n".join(lines)
    outline = stored_outline(text)
    for line in range(len(lines) + 1):
        assert outline.item_at(line) == _scanned(outline, line), (text, line, outline.tree)


def test_a_block_after_an_items_nested_list_is_that_items() -> None:
    """A callout that continues an item after its nested list (4-space indent) is the item's, not nobody's."""
    text = "+ FooPrefix: 42% lower TTFT.\n    * unlike BarCache\n\n    > **待核实**：42% only with shared prompts.\n\n+ next"
    outline = stored_outline(text)
    assert outline.item_at(3) == 0 and outline.item_at(1) == 1 and outline.item_at(5) == 2
