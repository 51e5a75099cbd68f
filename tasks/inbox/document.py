"""A note's text as CommonMark reads it, parsed once (pyromark: pulldown-cmark, GFM tables).

`read_document` is the one parse of a note body. What every later step reads comes from it: which
lines are fenced code, thematic breaks and headings (the entry split), and the list items with their
nesting, continuation lines and spans (a claim's block, a subject found by climbing). An entry keeps
its part of the tree (`Document.part`), re-based to its own text, and ingest stores it with the
entry's outline, so judging never parses again. `PartText` reads a part's top-level units (items,
labelled lines, other blocks) and their texts: what the outline is made of.

Two readings differ from CommonMark on purpose, because notes are written by people and tools that
do not know it: indented text is text, never code (only fences make code), and a `---` under a
paragraph of several lines is a break, not a setext heading (one line above it is a heading).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from typing import Any, NamedTuple, cast

import pyromark

_OPTIONS = pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_STRIKETHROUGH


class ListItem(NamedTuple):
    """One list item: lines [start, end) of its text, its own lines [start, own_end) (up to its first
    nested block list), and the index of the item it is nested in (None at the top). A named tuple:
    a note holds hundreds and each entry's part re-bases its own, so making them must be cheap."""

    start: int
    end: int
    own_end: int
    parent: int | None


@dataclass(frozen=True)
class Part:
    """An entry's part of its note's tree, in lines of the entry's own text: its list items, its
    blocks (paragraphs and list items' own lines, table rows left out), its fenced code, its table
    rows and its headings as (first line, line after its last) spans, and its labelled lines (a
    digest's "R1 …") as (line, where the text starts after the line's indent). Ints only: storable."""

    items: tuple[ListItem, ...] = ()
    blocks: tuple[tuple[int, int], ...] = ()
    code: tuple[tuple[int, int], ...] = ()
    rows: tuple[tuple[int, int], ...] = ()
    heads: tuple[tuple[int, int], ...] = ()
    labels: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Document:
    code: tuple[bool, ...]
    hr: tuple[bool, ...]
    heads: dict[int, tuple[int, str, int]]  # {line: (level, text, lines it uses)}
    items: tuple[ListItem, ...]
    blocks: tuple[tuple[int, int], ...]  # paragraphs and items' first paragraphs, table rows left out
    quoted: tuple[bool, ...] = ()  # per line: inside a block quote
    tables: tuple[tuple[int, int], ...] = ()  # each table's lines: header, delimiter and rows with a pipe
    fences: tuple[tuple[int, int], ...] = ()  # fenced code, as spans
    rows: tuple[tuple[int, int], ...] = ()  # runs of table rows (a pipeless line under a table is text)
    labels: tuple[tuple[int, int], ...] = ()  # labelled lines that split blocks: (line, text start after the indent)

    @cached_property
    def _item_starts(self) -> list[int]:
        return [i.start for i in self.items]

    @cached_property
    def _head_spans(self) -> list[tuple[int, int]]:
        return sorted((a, a + used) for a, (_, _, used) in self.heads.items())

    def part(self, lines: Sequence[int]) -> Part:
        """The tree of an entry whose text is the note's `lines` (ascending, maybe with a gap where
        the title was), re-based to the entry text's line numbers. An item reaching outside the
        entry (the list item that is the entry's own heading) is not the entry's: its nested items
        are the entry's top level."""
        if not lines:
            return Part()
        first, last = lines[0], lines[-1]
        lo = bisect.bisect_left(self._item_starts, first)
        hi = bisect.bisect_right(self._item_starts, last)
        # Blocks are sorted and disjoint: the one before the first that starts inside may reach in
        # (a pseudo-heading, "增量 1 · …" over its text, is one paragraph to CommonMark: the block is
        # the entry's from its first line on).
        b_lo = max(bisect.bisect_left(self.blocks, (first, -1)) - 1, 0)
        b_hi = bisect.bisect_right(self.blocks, (last, len(self.code) + 1))
        stop = last + 1
        kept: dict[int, int] = {}
        items: list[ListItem] = []
        if last - first + 1 == len(lines):  # no gap (every entry but a preamble around the title)
            for k in range(lo, hi):  # only the entry's own: a note of many entries is not read per entry
                item = self.items[k]
                end = item.end if item.end < stop else stop
                own = item.own_end if item.own_end < end else end
                kept[k] = len(items)
                items.append(ListItem(item.start - first, end - first, own - first,
                                      None if item.parent is None else kept.get(item.parent)))
            blocks = {((a if a > first else first) - first, (b if b < stop else stop) - first)
                      for a, b in self.blocks[b_lo:b_hi] if a <= last and b > first}
            return Part(tuple(items), tuple(sorted(blocks)), *self._spans(first, stop, lambda k: k - first, None))

        def at(line: int) -> int:  # how many of the entry's lines come before `line`
            return bisect.bisect_left(lines, line)

        def held(line: int) -> bool:
            return first <= line <= last and lines[at(line)] == line

        for k in range(lo, hi):
            item = self.items[k]
            if not held(item.start):
                continue
            end = min(item.end, stop)
            kept[k] = len(items)
            items.append(ListItem(at(item.start), at(end), at(min(item.own_end, end)),
                                  None if item.parent is None else kept.get(item.parent)))
        blocks = {(at(max(a, first)), at(min(b, stop))) for a, b in self.blocks[b_lo:b_hi]
                  if a <= last and b > first and held(max(a, first))}
        return Part(tuple(items), tuple(sorted(blocks)), *self._spans(first, stop, at, held))

    def _spans(self, first: int, stop: int, at: Callable[[int], int], held: Callable[[int], bool] | None
               ) -> tuple[tuple[tuple[int, int], ...], ...]:
        """The fences, table rows, headings and labels of the lines [first, stop), re-based by `at`
        (`held`: whether a line is the entry's, when its lines have a gap)."""
        out: list[tuple[tuple[int, int], ...]] = []
        for spans in (self.fences, self.rows, self._head_spans):
            lo = max(bisect.bisect_left(spans, (first, -1)) - 1, 0)
            out.append(tuple((at(max(a, first)), at(min(b, stop))) for a, b in spans[lo:bisect.bisect_left(spans, (stop, -1))]
                             if b > first and (held is None or held(max(a, first)))))
        lo = bisect.bisect_left(self.labels, (first, -1))
        out.append(tuple((at(k), col) for k, col in self.labels[lo:bisect.bisect_left(self.labels, (stop, -1))]
                         if held is None or held(k)))
        return tuple(out)


def read_document(body: str, labels: Mapping[int, tuple[str, int]] | None = None) -> Document:
    """The document of a note body (newlines normalised to "\\n"); never raises for any text.
    `labels`: lines that start a block of their own inside a paragraph (a digest's labelled run,
    "R1 … R2 …", which CommonMark reads as one paragraph), as `segment.sequence_starts` finds them."""
    lines = body.split("\n")
    split_at = frozenset(labels or ())
    # Byte offset of each line's start (pyromark's ranges are in bytes of the UTF-8 text).
    starts = list(accumulate((len(x) + 1 for x in body.encode("utf-8", "surrogatepass").split(b"\n")), initial=0))

    def line_of(offset: int) -> int:
        return bisect.bisect_right(starts, offset) - 1

    def end_line(offset: int) -> int:  # the line after the one holding the byte before `offset`
        return line_of(max(offset - 1, 0)) + 1

    n = len(lines)
    code, hr = [False] * n, [False] * n
    heads: dict[int, tuple[int, str, int]] = {}
    # Items as [start, end, own end, parent] while they are read and corrected: each becomes one
    # ListItem at the end (a note holds hundreds; building frozen objects per correction was a cost).
    found: list[list[Any]] = []
    blocks: list[tuple[int, int]] = []
    quoted = [False] * n
    tables: list[tuple[int, int]] = []
    fences: list[tuple[int, int]] = []
    rows: list[tuple[int, int]] = []
    open_items: list[int] = []
    heading_at: tuple[int, int, int] = (0, 0, 0)
    in_table = 0
    # Most events are text and inline markup: only block starts and ends and rules are read, and
    # only those have their byte range turned into lines.
    # The events' types are read as plain values: which keys an event has says what it is.
    events = cast(Iterator[tuple[Any, dict[str, int]]], pyromark.events_with_range(body, options=_OPTIONS))
    for event, span in events:
        if event.__class__ is str:
            if event == "Rule":
                hr[line_of(span["start"])] = True
            continue
        if "Start" in event:
            tag = event["Start"]
            if tag.__class__ is str:
                if tag == "Item":
                    a, b = line_of(span["start"]), end_line(span["end"])
                    found.append([a, b, b, open_items[-1] if open_items else None])
                    open_items.append(len(found) - 1)
                elif tag == "Paragraph" and not in_table:
                    blocks.append((line_of(span["start"]), end_line(span["end"])))
                continue
            kind = next(iter(tag))
            if kind == "List":
                if open_items and found[open_items[-1]][2] == found[open_items[-1]][1]:
                    holder = found[open_items[-1]]  # its first nested list ends its own lines
                    holder[2] = max(line_of(span["start"]), holder[0] + 1)
            elif kind == "Heading":
                heading_at = (line_of(span["start"]), end_line(span["end"]), int(tag["Heading"]["level"][1:]))
            elif kind == "CodeBlock":
                a, b = line_of(span["start"]), end_line(span["end"])
                if isinstance(tag["CodeBlock"], dict) and "Fenced" in tag["CodeBlock"]:
                    code[a:b] = [True] * (b - a)
                    fences.append((a, b))
                else:  # indented text is text: its paragraphs are blocks
                    _text_runs(lines, a, b, blocks, lambda _: True)
            elif kind == "Table":
                in_table += 1
                # GFM reads a line without a pipe right under a table as one more row; to its
                # reader it is text (a heading-like line, a paragraph).
                a, b = line_of(span["start"]), end_line(span["end"])
                _text_runs(lines, a, b, blocks, lambda line: "|" not in line)
                tables.append((a, next((k for k in range(a, b) if "|" not in lines[k]), b)))
                _text_runs(lines, a, b, rows, lambda line: "|" in line)
            elif kind == "BlockQuote":
                a, b = line_of(span["start"]), end_line(span["end"])
                quoted[a:b] = [True] * (b - a)
        elif "End" in event:
            closed = event["End"]
            if closed == "Item":
                if open_items:
                    open_items.pop()
            elif closed == "Table":
                in_table -= 1
            elif closed.__class__ is dict and "Heading" in closed:
                _heading(heads, hr, blocks, lines, heading_at)
    _underlined_items(found, heads, hr, lines)
    items = _kept_items(found, lines)
    blocks = [(a, _trimmed(lines, a, b)) for a, b in blocks]
    _tight_items(items, blocks, lines)
    if split_at:
        blocks = _split(blocks, split_at)
    labelled = tuple(sorted((k, col - (len(lines[k]) - len(lines[k].lstrip()))) for k, (_, col) in (labels or {}).items()))
    return Document(tuple(code), tuple(hr), heads, tuple(items), tuple(sorted(set(blocks))), tuple(quoted),
                    tuple(tables), tuple(fences), tuple(sorted(rows)), labelled)


def _heading(heads: dict[int, tuple[int, str, int]], hr: list[bool], blocks: list[tuple[int, int]],
             lines: list[str], at: tuple[int, int, int]) -> None:
    a, b, level = at
    underline = lines[b - 1].strip() if b - a >= 2 else ""
    setext = bool(underline) and underline[0] in "=-" and underline == underline[0] * len(underline)
    if not setext:
        heads[a] = (level, atx_text(lines[a]), 1)
        blocks.append((a, a + 1))
    elif b - a == 2:
        blocks.append((a, b))
        heads[a] = (level, lines[a].strip(), 2)
    else:  # several lines then `---`: a paragraph, then a break (`===` under it stays text)
        blocks.append((a, b - 1))
        hr[b - 1] = underline[0] == "-" and len(underline) >= 3


def atx_text(line: str) -> str:
    """An ATX heading's text as written (emphasis and links kept): without its opening and closing `#`s."""
    rest = line.lstrip(" ").lstrip("#")
    text = rest.strip()
    closed = text.rstrip("#")
    if closed != text and (not closed or closed[-1] in " \t"):
        text = closed.rstrip()
    return text


def _underlined_items(items: list[list[Any]], heads: dict[int, tuple[int, str, int]], hr: list[bool],
                      lines: list[str]) -> None:
    """A one-line numbered item underlined with `---` or `===` ("1) Engines" over "-----") is a heading
    to its reader, though CommonMark reads a list item and a break: the note's author numbered a heading.
    `items`: [start, end, own end, parent] each."""
    for k, (a, _, _, parent) in enumerate(items):
        under = lines[a + 1].strip() if a + 1 < len(lines) else ""
        if (parent is None and len(under) >= 2 and under[0] in "=-" and under == under[0] * len(under)
                and lines[a].lstrip()[:1].isdigit() and (a == 0 or not lines[a - 1].strip() or hr[a - 1])):
            heads[a] = (1 if under[0] == "=" else 2, lines[a].strip(), 2)
            hr[a + 1] = False
            items[k] = [a, a, a, None]  # no longer an item: nothing lies in it


def _text_runs(lines: list[str], a: int, b: int, blocks: list[tuple[int, int]], keep: Callable[[str], bool]) -> None:
    """Each run of non-blank lines in [a, b) that `keep` accepts, as a block."""
    run = None
    for k in range(a, b + 1):
        text = k < b and keep(lines[k]) and bool(lines[k].strip())
        if text and run is None:
            run = k
        elif not text and run is not None:
            blocks.append((run, k))
            run = None


def _trimmed(lines: list[str], a: int, b: int) -> int:
    """`b` without the blank lines that end [a, b): a block ends at its last line of text."""
    while b > a + 1 and not lines[b - 1].strip():
        b -= 1
    return b


def _kept_items(items: list[list[Any]], lines: list[str]) -> list[ListItem]:
    """The items ([start, end, own end, parent] each) that still hold a line, their parents renumbered
    (an emptied one's children climb to its parent), their ends without trailing blank lines."""
    new: dict[int, int | None] = {}
    out: list[ListItem] = []
    for k, (start, end, own_end, was_in) in enumerate(items):
        parent = new.get(was_in) if was_in is not None else None
        if start == end:
            new[k] = parent
            continue
        new[k] = len(out)
        out.append(ListItem(start, _trimmed(lines, start, end), _trimmed(lines, start, own_end), parent))
    return out


def _tight_items(items: list[ListItem], blocks: list[tuple[int, int]], lines: list[str]) -> None:
    """A tight list item's text is no paragraph to CommonMark: its own lines are its block."""
    has_para = {a for a, _ in blocks}
    for item in items:
        first = next((k for k in range(item.start, item.own_end) if lines[k].strip()), None)
        if first is not None and first not in has_para:
            blocks.append((item.start, item.own_end))


def _split(blocks: list[tuple[int, int]], at: frozenset[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in blocks:
        cuts = [a, *sorted(k for k in at if a < k < b), b]
        out.extend(zip(cuts, cuts[1:], strict=False))
    return out
