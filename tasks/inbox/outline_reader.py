"""An entry's text as an outline of points, read from its part of the note's one parse (no words of any language).

- A point is a top-level list item or a labelled line ("R1 …", "(2) …"), its own lines joined back;
  the items nested in it are its children. Structure comes from a `Part` (the entry's, or the text
  read once through `read_document`), never from classifying its lines again.
- A short block directly above a list is its lead-in: a group of short fragments is one point,
  otherwise each item is a point that remembers its lead-in.
- Pieces are joined as the source wrote them (`joined`), never with a "；" it did not write.
- An entry without any list: each block is a point. Table rows are read whole by `row_point`;
  fenced code is skipped.
- `units` cuts a text into the same top-level units, so a digest's entry can be read one paper at
  a time; `listed` names what a text lists.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import lru_cache

from tasks.common.arxiv_ids import find_id_spans
from tasks.common.sentences import clip_text, ends_sentence, is_cjk, join
from tasks.inbox.claims import plain
from tasks.inbox.document import ListItem, Part, read_document
from tasks.inbox.numbers import find_numbers
from tasks.inbox.part_text import PartText
from tasks.inbox.segment import sequence_starts
from tasks.model.outline import Outline, OutlineItem

MAX_POINT_CHARS = 600  # a longer "point" is a dump; it is cut (and says so with "…")
_ENDS = "；;。.,，、"
_SENTENCE_ENDS = ("。", ".", "！", "!", "？", "?")
_LEAD_CHARS = 80  # a lead-in is short: a label over its list, not a paragraph
CELL_SEP = " · "  # between a row's cells: one line of the source, never a "；" it did not write


@dataclass(frozen=True)
class Point:
    text: str
    lead: str = ""  # the lead-in of its group, plain, without its trailing colon
    group: int = 0  # points under the same lead-in share a group (0: none)


def _lead_text(block: str, heading: bool) -> str | None:
    """A lead-in's text, when a block can be one: a sub-heading, a bold line, a line ending in a colon."""
    bold = block.startswith(("**", "__")) and block.rstrip("：:").endswith(("**", "__"))
    if not (heading or bold or block.endswith(("：", ":"))):
        return None
    text = plain(block).rstrip("：: ")
    return text if 0 < len(text) <= _LEAD_CHARS else None


def _cap(text: str) -> str:
    """A point of at most MAX_POINT_CHARS, cut at a sentence end and marked "…"."""
    return clip_text(text, MAX_POINT_CHARS)


def _closed(text: str) -> bool:
    """Whether a piece ends with a mark of its own (a sentence's end, the source's "；", "，", "：")."""
    return ends_sentence(text) or text.rstrip()[-1:] in _ENDS + "：:"


def _enumerated(pieces: list[str]) -> str:
    """Pieces of one place in order: a piece with a mark of its own is followed as written
    (`sentences.join`), one without by "、" (", " between non-CJK) as in an enumeration."""
    out = ""
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue
        if out and not _closed(out):
            out += ("、" if is_cjk(out[-1]) or is_cjk(piece[0]) else ", ") + piece
        else:
            out = join([out, piece])
    return out


def joined(head: str, items: list[str]) -> str:
    """A head (a lead-in or a parent item) and the items under it as one text, as the source wrote
    them: a head that ends a sentence is followed by its items as sentences, else by "：" (": ")."""
    body = _enumerated([i for i in items if i.strip(_ENDS + " ")])
    if not head:
        return body
    if not body:
        return head
    if _closed(head):
        return join([head, body])
    return f"{head}{'：' if is_cjk(head.rstrip()[-1]) or is_cjk(body[0]) else ': '}{body}"


def stored_outline(text: str, part: Part | None = None) -> Outline:
    """What ingest stores of an entry's text (`items.outline`): its outline, its part of its note's
    document (`part`, or the text read as a document of its own for a text that is no note's entry:
    see `read_alone`) and, when every line of it is indented, the same outline as `dedented` (the
    tree already reads such a text as the inside of a list item)."""
    part = read_alone(text) if part is None else part
    outline = parse_outline(text, part)
    lines = [x for x in text.split("\n") if x.strip()]
    dedented = outline if lines and all(x[:1].isspace() for x in lines) else None
    tree = tuple((i.start, i.end, i.own_end, -1 if i.parent is None else i.parent) for i in part.items)
    return Outline(outline.items, outline.paragraphs, dedented, part.blocks, tree, part.code, part.rows, part.heads,
                   part.labels)


def stored_part(outline: Outline) -> Part:
    """The part of its text's tree that `stored_outline` stored with an outline."""
    return Part(tuple(ListItem(a, b, c, None if d < 0 else d) for a, b, c, d in outline.tree), outline.blocks,
                outline.code, outline.rows, outline.heads, outline.labels)


@lru_cache(maxsize=256)
def read_alone(text: str) -> Part:
    """The tree of a text that is no note's entry (a feed's summary, a card's TL;DR, a paper's own
    joined text, a stored row re-read), read once: a text whose every line is indented reads as
    the inside of a list item, as its note read it."""
    lines = [x for x in text.split("\n") if x.strip()]
    alone = textwrap.dedent(text) if lines and all(x[:1].isspace() for x in lines) else text
    return read_document(alone, sequence_starts(alone.split("\n"))).part(range(text.count("\n") + 1))


def points_of(parsed: Outline, join_below: int = 60) -> tuple[Point, ...]:
    """An outline's points: a lead-in's group of fragments is one point (see the module docstring)."""
    if not parsed.items:
        return tuple(Point(_cap(p)) for p in parsed.paragraphs if p)
    return tuple(_points(parsed.items, join_below))


def parse_outline(text: str, part: Part | None = None) -> Outline:
    """An entry's outline, read from its tree (`part`, else `read_alone`; see the module docstring):
    what no setting changes, which ingest stores; `points_of` turns it into points."""
    if part is None:
        return _alone_outline(text)
    read = PartText(text, part)
    if not any(u[3] >= 0 or u[4] for u in read.units):
        return Outline(paragraphs=tuple(t for u in read.units if (t := plain(read.block(u)))))
    items: list[OutlineItem] = []
    lead, group, groups = "", 0, 0
    pending: str | None = None  # a lead-in waiting for the list below it
    for unit in read.units:
        start, _, own_end, item, labelled, cut = unit
        if item < 0 and not labelled:
            lead, group = "", 0  # text between lists ends the group above it
            pending = _lead_text(read.block(unit), start in read.heads)
            continue
        if pending is not None:
            groups += 1
            lead, group, pending = pending, groups, None
        head = plain(read.raw(start, own_end, cut))
        children = tuple(t for c in read.nested(item) if (t := plain(c))) if item >= 0 else ()
        if head or children:
            items.append(OutlineItem(head, children, lead, group))
    return Outline(tuple(items))


@lru_cache(maxsize=256)
def _alone_outline(text: str) -> Outline:
    return parse_outline(text, read_alone(text))


def _fragments(texts: list[str], join_below: int) -> bool:
    """Whether a lead-in's items are a list of fragments ("Orca；vLLM；…"): three or more, each short,
    none but the last ending a sentence."""
    return len(texts) >= 3 and all(len(t) <= join_below for t in texts) and not any(
        t.rstrip().endswith(_SENTENCE_ENDS) for t in texts[:-1])


def _points(items: tuple[OutlineItem, ...], join_below: int) -> list[Point]:
    points: list[Point] = []
    texts = [joined(i.head, list(i.children)) for i in items]
    # A bare lead-in item ("各引擎最优配置：" above a table) and a bare id are no points.
    kept = [(i, t) for i, t in zip(items, texts, strict=True)
            if t and not t.rstrip().endswith(("：", ":")) and not only_ids(t)]
    by_group: dict[int, list[str]] = {}
    for item, text in kept:
        by_group.setdefault(item.group, []).append(text)
    done: set[int] = set()
    for item, text in kept:
        if item.group in done:
            continue
        if item.group and _fragments(by_group[item.group], join_below):
            points.append(Point(_cap(joined(item.lead, by_group[item.group])), item.lead, item.group))
            done.add(item.group)
            continue
        points.append(Point(_cap(text), item.lead, item.group))
    return points


def units(text: str, part: Part | None = None) -> list[str]:
    """Top-level units of a text (`part`, else `read_alone`): an item with its continuation and nested
    items, a labelled block (without its label: "R3 " is the digest's numbering, not the paper's
    text), another block, a table row (each row alone)."""
    read = PartText(text, read_alone(text) if part is None else part)
    rows = [(k, k + 1) for a, b in read.part.rows for k in range(a, b)]
    out = []
    for a, b, cut in sorted([*((u[0], u[1], u[5] if u[4] else 0) for u in read.units),
                             *((a, b, 0) for a, b in rows)]):
        kept = [read.lines[k][cut:] if k == a else read.lines[k] for k in range(a, b) if k not in read.skip or b == a + 1]
        if unit := "\n".join(kept).strip("\n"):
            out.append(unit)
    return out


def has_number(text: str) -> bool:
    """Whether the text carries a number with a unit other than a vote count (▲, ★)."""
    return any(n["unit"] not in ("▲", "★") for n in numbers_in(text))


def numbers_in(text: str) -> list[dict[str, str]]:
    rows = text.split("\n")
    found, by_line = find_id_spans(text)
    return find_numbers(text, [False] * len(rows), found, by_line)


def only_ids(text: str) -> bool:
    """Whether the text names arXiv ids and says nothing else ("arXiv:2610.03430", "2610.1 / 2610.2")."""
    ids = find_id_spans(text)[0]
    return bool(ids) and not any(c.isalnum() for c in _without(text, ids).replace("arXiv", "").replace("arxiv", ""))


def substantive(cell: str) -> bool:
    """A cell that says something: three or more words, eight or more CJK characters, or a number
    with a unit (not a rank, a category, a name or a one-word note)."""
    words = sum(1 for w in cell.split() if any(c.isalnum() for c in w) and not _is_cjk(w[0]))
    cjk = sum(1 for c in cell if _is_cjk(c))
    return words >= 3 or cjk >= 8 or (words >= 2 and cjk >= 4) or has_number(cell)


def _is_cjk(c: str) -> bool:
    return "\u3400" <= c <= "\u9fff" or "\u3040" <= c <= "\u30ff" or "\uac00" <= c <= "\ud7af"


def row_cells(row: str) -> list[str]:
    """A table row's cells, plain; a separator row ("|---|") has none."""
    cells = [plain(c) for c in row.strip().strip("|").split("|")]
    return [] if all(not c.strip(" :-") for c in cells) else cells


def naming_cells(row: str) -> tuple[str, ...]:
    """A table row's cells that can name its paper, in order: not empty or a dash, not a rank or a
    row label, not an id (ingest stores them for a queue row without a recognised title column)."""
    return tuple(c for c in row_cells(row) if c.strip(" -—") and not rank_cell(c) and not only_ids(c))


def row_point(row: str, skip: tuple[str, ...] = ()) -> str | None:
    """A table row as one point: its cells that say something (text of some length or a number with
    a unit), joined; cells in `skip` (the paper's id, its title) and thin cells (a rank, a category,
    a one-word note such as 「沿用」) are left out. None when no cell says anything: a table cell
    alone is never a point."""
    kept = []
    for cell in row_cells(row):
        if not cell or any(cell == s or (len(cell) > 3 and cell in s) for s in skip) or not substantive(cell):
            continue
        if not only_ids(cell):
            kept.append(cell)
    return _cap(CELL_SEP.join(c.rstrip(_ENDS + " ") for c in kept)) if kept else None


def rank_cell(cell: str) -> bool:
    """A rank or a row label ("3", "#3", "R3", "(3)"): short, with a digit."""
    return len(cell) <= 5 and any(c.isdigit() for c in cell)


def listed(text: str, part: Part | None = None) -> list[str]:
    """What a text lists (`part`, else `read_alone`), one name per line: a top-level list item's or
    labelled block's first line, a table row's first cell that is more than a rank, a row label or
    an id (each table's header row and rule aside)."""
    read = PartText(text, read_alone(text) if part is None else part)
    named = [(u[0], plain(read.lines[u[0]][u[5]:])[:120]) for u in read.units if u[3] >= 0 or u[4]]
    for a, b in read.part.rows:
        for k in range(a + 1, b):  # the first row is the header; a rule row has no cells
            name = next((c for c in row_cells(read.lines[k]) if c.strip() and not rank_cell(c) and not only_ids(c)), "")
            named += [(k, name[:120])] if name else []
    return [name for _, name in sorted(named) if name]


def _without(cell: str, ids: list[tuple[str, str | None, int | None, int, int]]) -> str:
    out, at = [], 0
    for span in ids:
        out.append(cell[at : span[3]])
        at = span[4]
    return "".join(out) + cell[at:]
