"""A knowledge document as its one CommonMark parse reads it (`tasks.inbox.document`).

`read_layout(text)` (newlines "\n") gives what the document's reader
(`tasks.knowledge.parse`) and the noon merge's rewriter (`tasks.merge.merged_document`) both need,
by line index: the headings outside quotes, each with its "§N.M" number; the header line (the
first paragraph line outside lists and quotes that names `version`, `updated` or `citations`); the
tables outside quotes; and, read when asked, the list items' first lines and the entries. An entry
is a list item's own text (its marker dropped, its continuation lines joined, with the item it is
nested in) or a paragraph outside any item's own text. Fenced code, tables, quotes, rules, headings
and the header line are no entry's text; indented text is text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import NamedTuple

from tasks.common.text import clean_text
from tasks.inbox.document import Document, ListItem, read_document
from tasks.inbox.part_text import ITEM_MARKER
from tasks.knowledge.header import names_header_field

# A section number inside a heading's text: "§1.1 框架格局", "§ 2 …".
SECTION_NUMBER = re.compile(r"^(§\s*\d+(?:\.\d+)*)\s*(.*)$")


@dataclass(frozen=True)
class Head:
    """One heading: its line, level, text as written (without its marks), and that text split into
    its section number ("§1.1", spaces removed; "" when it has none) and the rest."""

    line: int
    level: int
    text: str
    number: str
    title: str
    used: int  # lines it takes: 2 for an underlined (setext) heading


class Entry(NamedTuple):  # a tuple: a long document has thousands
    """One entry: its first line, its text (lines stripped, joined by a space), and the index in
    `Layout.entries` of the list item's entry it is nested in."""

    line: int
    text: str
    parent: int | None
    listed: bool = False  # a list item's own text (else a paragraph)


@dataclass(frozen=True)
class Layout:
    """What `read_layout` read, with the parse it read it from."""

    doc: Document
    lines: tuple[str, ...]
    heads: tuple[Head, ...]
    header: int | None
    tables: tuple[tuple[int, int], ...]  # (first, end) of each table outside quotes

    @cached_property
    def items(self) -> dict[int, str]:
        """Each list item outside quotes, by the line it starts on: that line's text after the marker."""
        doc = self.doc
        return {i.start: ITEM_MARKER.sub("", self.lines[i.start], count=1).strip() for i in doc.items
                if not doc.quoted[i.start] and i.start not in doc.heads}

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        """The entries, in document order."""
        doc, lines = self.doc, self.lines
        starts = [i.start for i in doc.items]
        ends = [i.end for i in doc.items]
        own_ends = [i.own_end for i in doc.items]
        parents = [-1 if i.parent is None else i.parent for i in doc.items]
        # Lines that are no entry's text; a line, once an entry's, is no other's (blocks may overlap).
        off = [c or q or r or not line.strip() for c, q, r, line in zip(doc.code, doc.quoted, doc.hr, lines, strict=True)]
        for line, (_, _, used) in doc.heads.items():
            off[line:line + used] = [True] * used
        for a, b in doc.tables:
            off[a:b] = [True] * (b - a)
        header = -1 if self.header is None else self.header
        if header >= 0:
            off[header] = True
        # An entry's key: its list item's index, or -1 - its first line for a paragraph; the item
        # it is nested in (-1: none).
        groups: dict[int, list[int]] = {}
        nested_in: dict[int, int] = {}
        for a, b in doc.blocks:
            owner = bisect.bisect_right(starts, a) - 1
            while owner >= 0 and a >= ends[owner]:  # every item from here up starts at or before `a`
                owner = parents[owner]
            key, parent = -1 - a, owner
            if owner >= 0 and a < own_ends[owner]:  # the item's own text
                key, parent = owner, parents[owner]
            for k in range(a, b):
                if k == header:  # what follows the header line is an entry of its own
                    key = -2 - k
                if off[k]:
                    continue
                off[k] = True
                group = groups.get(key)
                if group is None:
                    groups[key], nested_in[key] = [k], parent
                else:
                    group.append(k)
        ordered = sorted(groups, key=lambda key: groups[key][0])
        entry_of = {key: n for n, key in enumerate(ordered) if key >= 0}
        out: list[Entry] = []
        for key in ordered:
            parent = nested_in[key]
            while parent >= 0 and parent not in entry_of:  # an item with no text of its own
                parent = parents[parent]
            own = groups[key]
            first = lines[own[0]]
            if key >= 0 and own[0] == starts[key]:
                first = first[ITEM_MARKER.match(first).end():]  # type: ignore[union-attr]  # an item's line has a marker
            text = first.strip() if len(own) == 1 else " ".join([first.strip(), *(lines[k].strip() for k in own[1:])])
            out.append(Entry(own[0], text, entry_of[parent] if parent >= 0 else None, key >= 0))
        return tuple(out)


def _owner(items: Sequence[ListItem], starts: list[int], line: int) -> int | None:
    """The innermost list item holding `line`, else None."""
    k = bisect.bisect_right(starts, line) - 1
    holder = k if k >= 0 else None
    while holder is not None and not line < items[holder].end:  # every item from `k` up starts at or before `line`
        holder = items[holder].parent
    return holder


# The noon merge reads a document twice, through its reader (the anchors) and its rewriter (the
# lines), as does every date of a backfill: the text is parsed once. Safe to share: frozen, and a
# pure function of the text it is keyed by.
@lru_cache(maxsize=4)
def read_layout(text: str) -> Layout:
    """The layout of a knowledge document's text, its newlines "\n"."""
    lines = text.split("\n")
    try:
        doc = read_document(text)
    except UnicodeEncodeError:  # a lone surrogate (hostile text): as U+FFFD the lines stay where they were
        doc = read_document(clean_text(text))
    heads: list[Head] = []
    for line in sorted(doc.heads):
        if doc.quoted[line]:
            continue
        level, head_text, used = doc.heads[line]
        num = SECTION_NUMBER.match(head_text)
        number, title = (re.sub(r"\s+", "", num.group(1)), num.group(2)) if num else ("", head_text)
        heads.append(Head(line, level, head_text, number, title, used))
    starts = [i.start for i in doc.items]
    header = next((k for a, b in doc.blocks for k in range(a, b)
                   if not (doc.code[k] or doc.quoted[k] or doc.hr[k] or k in doc.heads)
                   and _owner(doc.items, starts, k) is None and names_header_field(lines[k])), None)
    tables = tuple((a, b) for a, b in doc.tables if not doc.quoted[a])
    return Layout(doc, tuple(lines), tuple(heads), header, tables)
