"""A text read with its part of its note's tree (`tasks.inbox.document.Part`): its top-level units
(list items, labelled lines, blocks outside items) and their texts as written, wraps joined back,
code and table rows skipped. `tasks.inbox.outline_reader` makes an entry's outline of it.
"""

from __future__ import annotations

import re

from tasks.common.sentences import unwrap
from tasks.inbox.document import Part, atx_text

# The marker of a line the tree says starts a list item: "- ", "12. ", "3) ", a task box. The
# tree says which lines start items; this only says where an item's text starts on its line.
ITEM_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+\[[ xX]\])?[ \t]*")


# A top-level unit of a text: (first line, line after it and what is nested in it, line after its own
# lines, its list item's index or -1 for a block, whether it is a labelled block or item, the column
# of its first line its text starts at: after a marker or a label). A tuple: there are many.
_Unit = tuple[int, int, int, int, bool, int]


class PartText:
    """A text read with its part of the tree (`tasks.inbox.outline_reader` makes its outline of it):
    which lines are skipped (code, table rows), which block is a heading, its top-level units in
    order (`_Unit`), and their texts as written, wraps joined back."""

    def __init__(self, text: str, part: Part) -> None:
        self.lines = text.split("\n")
        self.part = part
        self.skip = {k for a, b in (*part.code, *part.rows) for k in range(a, b)} if part.code or part.rows else set()
        self.heads = dict(part.heads)
        self.units = self._units()

    def _units(self) -> list[_Unit]:
        lines, items = self.lines, self.part.items
        labels = {k: self._indent(k) + col for k, col in self.part.labels
                  if k not in self.skip and k < len(lines)} if len(self.part.labels) > 1 else {}
        if len(labels) < 2:  # one line of the note's run, where an entry ends (the next paper's "R2 …"), is text
            labels = {}
        out: list[_Unit] = []
        covered: list[tuple[int, int]] = []
        for k, item in enumerate(items):
            if item.parent is None:
                m = ITEM_MARKER.match(lines[item.start])
                cut = labels.get(item.start, m.end() if m else 0)
                out.append((item.start, item.end, item.own_end, k, item.start in labels, cut))
                covered.append((item.start, item.end))
        at = 0
        for a, b in self.part.blocks:
            while at < len(covered) and covered[at][1] <= a:
                at += 1
            if at < len(covered) and covered[at][0] <= a:
                continue  # inside an item: its own lines or a nested item's
            out.append((a, b, b, -1, a in labels, labels.get(a, 0)))
        out.sort()
        return out

    def _indent(self, k: int) -> int:
        return len(self.lines[k]) - len(self.lines[k].lstrip())

    def raw(self, a: int, b: int, cut: int = 0) -> str:
        """Lines [a, b) but skipped ones, wraps joined back; the first from column `cut`."""
        if b == a + 1:
            return "" if a in self.skip else self.lines[a][cut:].strip()
        kept = [self.lines[k][cut:] if k == a else self.lines[k] for k in range(a, b) if k not in self.skip]
        return unwrap("\n".join(x for x in kept if x.strip())).strip()

    def block(self, unit: _Unit) -> str:
        """A block's text as written: a heading's without its marks."""
        start, _, own_end, _, _, cut = unit
        used = self.heads.get(start)
        if used is not None:
            line = self.lines[start]
            return atx_text(line) if used - start == 1 and line.lstrip().startswith("#") else line.strip()
        return self.raw(start, own_end, cut)

    def nested(self, k: int) -> list[str]:
        """The items nested (at any depth) in item `k`, each its own lines without its marker."""
        items = self.part.items
        out, end = [], items[k].end
        for j in range(k + 1, len(items)):
            nested = items[j]
            if nested.start >= end:
                break
            m = ITEM_MARKER.match(self.lines[nested.start])
            out.append(self.raw(nested.start, nested.own_end, m.end() if m else 0))
        return out
