"""An entry's outline as ingest parses it once and stores it (`items.outline`), and judging reads it.

It is the structure of the text alone, before any setting of the run's judgment applies: the list
items at the entry's top indent (each its own text, the deeper items nested under it, its lead-in
and the lead-in's group), or, for an entry without any list, its paragraphs. Judging turns it into
points (`tasks.inbox.outline.points_of`, which joins a group of fragments under `[points]
join_below_chars`). `dedented` is the outline of the text dedented, for an entry whose every line
is indented (a list item or a digest's labelled line: `tasks.judge.points` reads what is nested in it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.items:
            out["items"] = [[i.head, list(i.children), i.lead, i.group] for i in self.items]
        if self.paragraphs:
            out["paragraphs"] = list(self.paragraphs)
        if self.dedented is not None:
            out["dedented"] = self.dedented.to_json()
        return out

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Outline:
        dedented = value.get("dedented")
        return cls(
            tuple(OutlineItem(str(h), tuple(str(c) for c in children), str(lead), int(group))
                  for h, children, lead, group in value.get("items", ())),
            tuple(str(p) for p in value.get("paragraphs", ())),
            None if dedented is None else cls.from_json(dedented),
        )
