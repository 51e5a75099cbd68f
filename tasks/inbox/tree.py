"""A note's text as CommonMark reads it (markdown-it-py): its list items, their nesting and spans.

A claim is one block: the whole list item from its marker on, with its continuation lines, and never
text of another item. What the item is about is found by climbing: its own text, then the items it
is nested in; a sibling item is never read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark").enable("table")


@dataclass(frozen=True)
class Item:
    """One list item: lines [start, end) of the text, its own lines [start, own_end) (up to its
    first nested list), and the index of the item it is nested in."""

    start: int
    end: int
    own_end: int
    parent: int | None


@lru_cache(maxsize=4096)
def list_items(text: str) -> tuple[Item, ...]:
    """Every list item of `text`, in document order."""
    items: list[Item] = []
    open_items: list[int] = []  # indices of the items being read, innermost last
    for token in _MD.parse(text):
        if token.type == "list_item_open" and token.map is not None:
            parent = open_items[-1] if open_items else None
            items.append(Item(token.map[0], token.map[1], token.map[1], parent))
            open_items.append(len(items) - 1)
        elif token.type == "list_item_close" and open_items:
            open_items.pop()
        elif token.type in ("bullet_list_open", "ordered_list_open") and open_items and token.map is not None:
            holder = items[open_items[-1]]
            if holder.own_end == holder.end:  # its first nested list ends its own text
                items[open_items[-1]] = Item(holder.start, holder.end, token.map[0], holder.parent)
    return tuple(items)


def item_at(text: str, line: int) -> int | None:
    """The index of the innermost item whose own lines hold `line`, or None outside every item."""
    found = None
    for k, item in enumerate(list_items(text)):
        if item.start <= line < item.own_end:
            found = k
    return found


def own_text(text: str, item: Item) -> str:
    """The item's own lines, its marker and continuation lines included, nested items left out."""
    return "\n".join(text.split("\n")[item.start:item.own_end]).rstrip()


def item_block(text: str, line: int) -> str | None:
    """The whole item holding `line` (its marker, continuation lines and nested items), or None
    outside every item: a claim's block, which never holds another item's text."""
    at = item_at(text, line)
    if at is None:
        return None
    item = list_items(text)[at]
    return "\n".join(text.split("\n")[item.start:item.end]).rstrip()


def enclosing(text: str, line: int) -> list[str]:
    """The own text of the item holding `line`, then of each item it is nested in, innermost first."""
    items = list_items(text)
    at = item_at(text, line)
    out = []
    while at is not None:
        out.append(own_text(text, items[at]))
        at = items[at].parent
    return out
