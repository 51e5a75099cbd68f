"""An entry's outline as ingest parses it once and stores it (`items.outline`), and judging reads it.

It is the structure of the text alone, before any setting of the run's judgment applies: the
top-level list items of its part of the note's tree (each its own lines, the items nested in it,
its lead-in and the lead-in's group), or, for an entry without any list, its blocks. That part is
stored with it (`tree`, `blocks`, `code`, `rows`, `heads`, `labels`), so judging never reads the text
again. Judging turns it into points (`tasks.inbox.outline_reader.points_of`, which joins a group of
fragments under `[points] join_below_chars`). `dedented` is set for an entry whose every line is indented (a list item or a
digest's labelled line: `tasks.judge.points` reads what is nested in it); the tree reads such a text
as the inside of its item, so it is the outline itself.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import cached_property
from typing import Any

_SPANS = ("code", "rows", "heads", "labels")


@dataclass(frozen=True)
class OutlineItem:
    head: str  # the item's own text, plain, its wrapped lines joined back
    children: tuple[str, ...] = ()  # the deeper items nested under it, plain
    lead: str = ""  # the lead-in of its group, plain, without its trailing colon
    group: int = 0  # items under the same lead-in share a group (0: none)


@dataclass(frozen=True)
class Outline:
    items: tuple[OutlineItem, ...] = ()
    paragraphs: tuple[str, ...] = ()  # an entry without any list item: its paragraphs, plain
    dedented: Outline | None = None
    blocks: tuple[tuple[int, int], ...] = ()  # its blocks other than table rows, as line spans
    # Its list items as (start, end, own end, parent index or -1), lines of the text (`tasks.inbox.document`).
    tree: tuple[tuple[int, int, int, int], ...] = ()
    # The rest of its part of the tree, as line spans: fenced code, table rows, headings; and its
    # labelled lines as (line, where the text starts after the indent).
    code: tuple[tuple[int, int], ...] = ()
    rows: tuple[tuple[int, int], ...] = ()
    heads: tuple[tuple[int, int], ...] = ()
    labels: tuple[tuple[int, int], ...] = ()

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        # Once per object: judging looks an entry's points up by its outline once per paper it names.
        return hash((self.items, self.paragraphs, self.dedented, self.blocks, self.tree, self.code, self.rows,
                     self.heads, self.labels))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.items:
            out["items"] = [[i.head, list(i.children), i.lead, i.group] for i in self.items]
        if self.paragraphs:
            out["paragraphs"] = list(self.paragraphs)
        if self.dedented is not None:
            out["dedented"] = self.dedented.to_json()
        if self.blocks:
            out["blocks"] = [list(b) for b in self.blocks]
        if self.tree:
            out["tree"] = [list(t) for t in self.tree]
        for key in _SPANS:
            if spans := getattr(self, key):
                out[key] = [list(s) for s in spans]
        return out

    @cached_property
    def _starts(self) -> list[int]:
        return [start for start, _, _, _ in self.tree]

    def item_at(self, line: int) -> int | None:
        """The innermost list item whose own lines hold `line` of the text, or None outside every item.
        The last item starting by `line` does, unless `line` is past its end: then the first of its
        ancestors still open holds it (a block that continues an item after its nested list, such as
        a `> **待核实**` callout, is that item's), else none."""
        k = bisect.bisect_right(self._starts, line) - 1
        while k >= 0 and line >= self.tree[k][1]:
            k = self.tree[k][3]
        return k if k >= 0 else None

    def item_block(self, text: str, line: int) -> str | None:
        """The whole item holding `line`: its marker, continuation lines and nested items; a claim's
        block, which never holds another item's text. None outside every item."""
        at = self.item_at(line)
        if at is None:
            return None
        start, end, _, _ = self.tree[at]
        return "\n".join(text.split("\n")[start:end]).rstrip()

    def enclosing(self, text: str, line: int) -> list[str]:
        """The own lines of the item holding `line`, then of each item it is nested in, innermost first."""
        lines = text.split("\n")
        out = []
        at = self.item_at(line)
        while at is not None:
            start, _, own_end, parent = self.tree[at]
            out.append("\n".join(lines[start:own_end]).rstrip())
            at = parent if parent >= 0 else None
        return out

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Outline:
        dedented = value.get("dedented")
        return cls(
            tuple(OutlineItem(str(h), tuple(str(c) for c in children), str(lead), int(group))
                  for h, children, lead, group in value.get("items", ())),
            tuple(str(p) for p in value.get("paragraphs", ())),
            None if dedented is None else cls.from_json(dedented),
            tuple((int(a), int(b)) for a, b in value.get("blocks", ())),
            tuple((int(a), int(b), int(c), int(d)) for a, b, c, d in value.get("tree", ())),
            *(tuple((int(a), int(b)) for a, b in value.get(key, ())) for key in _SPANS),
        )


OWN_OUTLINE = -1  # a paper whose own joined text parses as the entry's own text reads the entry's outline


@dataclass(frozen=True)
class PaperOutlines:
    """The outlines of the joined texts that are one paper's own in an entry (`items.paper_outlines`,
    made by `tasks.inbox.own_parts.paper_outlines`): each distinct one once, and which paper or which
    sub-sections read which (an index into `outlines`, or OWN_OUTLINE)."""

    outlines: tuple[Outline, ...] = ()
    # An entry about several papers: a paper's own units joined (no pair: no unit names it).
    by_id: tuple[tuple[str, int], ...] = ()
    # A paper's own entry: the entry with the sub-sections at these offsets after it (1: the next entry).
    by_subsections: tuple[tuple[tuple[int, ...], int], ...] = ()

    @cached_property
    def _ids(self) -> dict[str, int]:
        return dict(self.by_id)

    @cached_property
    def _subsections(self) -> dict[tuple[int, ...], int]:
        return dict(self.by_subsections)

    def for_id(self, arxiv_id: str) -> int | None:
        return self._ids.get(arxiv_id)

    def for_subsections(self, offsets: tuple[int, ...]) -> int | None:
        return self._subsections.get(offsets)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"outlines": [o.to_json() for o in self.outlines]}
        if self.by_id:
            out["by_id"] = dict(self.by_id)
        if self.by_subsections:
            out["by_subsections"] = {",".join(map(str, key)): k for key, k in self.by_subsections}
        return out

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> PaperOutlines:
        return cls(
            tuple(Outline.from_json(o) for o in value.get("outlines", ())),
            tuple((str(i), int(k)) for i, k in value.get("by_id", {}).items()),
            tuple((tuple(int(o) for o in key.split(",")), int(k)) for key, k in value.get("by_subsections", {}).items()),
        )
