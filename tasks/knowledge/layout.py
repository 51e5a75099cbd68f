"""A knowledge document as its one CommonMark parse reads it (`tasks.inbox.document`).

`read_layout(lines)` (lines without their endings) gives what the document's reader
(`tasks.knowledge.parse`) and the noon merge's rewriter (`tasks.merge.merged_document`) both need,
by line index: the headings outside quotes, each with its "§N.M" number; the header line (the
first paragraph line outside lists and quotes that names `version`, `updated` or `citations`); the
tables outside quotes; and, read when asked, the list items' first lines and the entries. An entry is a list item's own text (its
marker dropped, its continuation lines joined, with the item it is nested in) or a paragraph
outside any item's own text. Fenced code, tables, quotes, rules, headings and the header line are
no entry's text; indented text is text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from tasks.common.text import clean_text
from tasks.inbox.document import Document, ListItem, read_document
from tasks.knowledge.header import names_header_field

# A section number inside a heading's text: "§1.1 框架格局", "§ 2 …".
SECTION_NUMBER = re.compile(r"^(§\s*\d+(?:\.\d+)*)\s*(.*)$")
# The marker of a list item, on the line the parse says the item starts on.
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])")


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


@dataclass(frozen=True)
class Entry:
    """One entry: its first line, its text (lines stripped, joined by a space), and the index in
    `Layout.entries` of the list item's entry it is nested in."""

    line: int
    text: str
    parent: int | None


@dataclass(frozen=True)
class Layout:
    doc: Document
    lines: Sequence[str]
    heads: tuple[Head, ...]
    header: int | None
    tables: tuple[tuple[int, int], ...]  # (first, end) of each table outside quotes

    @cached_property
    def items(self) -> dict[int, str]:
        """Each list item outside quotes, by the line it starts on: that line's text after the marker."""
        doc = self.doc
        return {i.start: _MARKER.sub("", self.lines[i.start], count=1).strip() for i in doc.items
                if not doc.quoted[i.start] and i.start not in doc.heads}

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        """The entries, in document order."""
        doc, lines, items = self.doc, self.lines, self.doc.items
        starts = [i.start for i in items]
        # Lines that are no entry's text; a line, once an entry's, is no other's (blocks may overlap).
        off = [c or q or r or not line.strip() for c, q, r, line in zip(doc.code, doc.quoted, doc.hr, lines, strict=True)]
        for line, (_, _, used) in doc.heads.items():
            off[line:line + used] = [True] * used
        for a, b in doc.tables:
            off[a:b] = [True] * (b - a)
        if self.header is not None:
            off[self.header] = True
        # An entry is keyed by its list item, (item, -1), or by its paragraph's first line, (None, line).
        groups: dict[tuple[int | None, int], list[int]] = {}
        nested_in: dict[tuple[int | None, int], int | None] = {}
        for a, b in doc.blocks:
            owner = _owner(items, starts, a)
            key: tuple[int | None, int] = (None, a)
            parent = owner
            if owner is not None and a < items[owner].own_end:  # the item's own text
                key, parent = (owner, -1), items[owner].parent
            for k in range(a, b):
                if k == self.header:  # what follows the header line is an entry of its own
                    key = (None, k + 1)
                if off[k]:
                    continue
                off[k] = True
                groups.setdefault(key, []).append(k)
                nested_in.setdefault(key, parent)
        ordered = sorted(groups, key=lambda key: groups[key][0])
        entry_of = {item: n for n, (item, line) in enumerate(ordered) if item is not None and line == -1}
        out: list[Entry] = []
        for key in ordered:
            parent = nested_in[key]
            while parent is not None and parent not in entry_of:  # an item with no text of its own
                parent = items[parent].parent
            own = groups[key]
            marker = items[key[0]].start if key[0] is not None and key[1] == -1 else -1
            text = [(_MARKER.sub("", lines[k], count=1) if k == marker else lines[k]).strip() for k in own]
            out.append(Entry(own[0], " ".join(text), None if parent is None else entry_of[parent]))
        return tuple(out)


def _owner(items: Sequence[ListItem], starts: list[int], line: int) -> int | None:
    """The innermost list item holding `line`, else None."""
    k = bisect.bisect_right(starts, line) - 1
    holder = k if k >= 0 else None
    while holder is not None and not line < items[holder].end:  # every item from `k` up starts at or before `line`
        holder = items[holder].parent
    return holder


def read_layout(lines: Sequence[str]) -> Layout:
    """The layout of a knowledge document given as its lines, without their endings."""
    # The parser takes no lone surrogate (hostile text); as U+FFFD the lines stay where they were.
    doc = read_document(clean_text("\n".join(lines)))
    heads: list[Head] = []
    for line in sorted(doc.heads):
        if doc.quoted[line]:
            continue
        level, text, used = doc.heads[line]
        num = SECTION_NUMBER.match(text)
        number, title = (re.sub(r"\s+", "", num.group(1)), num.group(2)) if num else ("", text)
        heads.append(Head(line, level, text, number, title, used))
    starts = [i.start for i in doc.items]
    header = next((k for a, b in doc.blocks for k in range(a, b)
                   if not (doc.code[k] or doc.quoted[k] or doc.hr[k] or k in doc.heads)
                   and _owner(doc.items, starts, k) is None and names_header_field(lines[k])), None)
    tables = tuple((a, b) for a, b in doc.tables if not doc.quoted[a])
    return Layout(doc, lines, tuple(heads), header, tables)
