"""An entry's text as an outline of points, read from its structure alone (no words of any language).

- A point is a top-level list item or a labelled line ("R1 …", "(2) …"), wrapped lines joined back;
  deeper items nest under the point above them.
- A short line directly above a list is its lead-in: a group of short fragments is one point,
  otherwise each item is a point that remembers its lead-in.
- Pieces are joined as the source wrote them (`joined`), never with a "；" it did not write.
- An entry without any list: each paragraph is a point. Table rows are read whole by `row_point`;
  fenced code is skipped.
- `units` cuts a text into the same top-level units, so a digest's entry can be read one paper at
  a time.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, replace
from functools import lru_cache

from tasks.common.arxiv_ids import find_id_spans
from tasks.common.sentences import clip_text, ends_sentence, is_cjk, join, unwrap
from tasks.inbox.claims import plain
from tasks.inbox.document import Part, read_document
from tasks.inbox.numbers import find_numbers
from tasks.inbox.segment import ITEM, is_hr, is_table, sequence_starts
from tasks.model.outline import Outline, OutlineItem

MAX_POINT_CHARS = 600  # a longer "point" is a dump; it is cut (and says so with "…")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r" {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$")
_ENDS = "；;。.,，、"
_SENTENCE_ENDS = ("。", ".", "！", "!", "？", "?")
_LEAD_CHARS = 80  # a lead-in is one short line
CELL_SEP = " · "  # between a row's cells: one line of the source, never a "；" it did not write


@dataclass(frozen=True)
class Point:
    text: str
    lead: str = ""  # the lead-in of its group, plain, without its trailing colon
    group: int = 0  # points under the same lead-in share a group (0: none)


@dataclass
class _Item:
    indent: int
    parts: list[str]
    children: list[str]
    lead: str
    group: int


def _code_flags(lines: list[str]) -> list[bool]:
    flags, fence = [], ""
    for line in lines:
        m = _FENCE.match(line)
        if fence:
            flags.append(True)
            if line.strip().startswith(fence) and not line.strip().lstrip(fence[0]):
                fence = ""
        elif m:
            flags.append(True)
            fence = m.group(1)
        else:
            flags.append(False)
    return flags


def _lead_text(line: str) -> str | None:
    """A lead-in's text, when the line can be one: a sub-heading, a bold line, a line ending in a colon."""
    heading = _ATX.match(line)
    text = heading.group(1) if heading else line.strip()
    bold = text.startswith(("**", "__")) and text.rstrip("：:").endswith(("**", "__"))
    if not (heading or bold or text.endswith(("：", ":"))):
        return None
    text = plain(text).rstrip("：: ")
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
    document (blocks' line spans and list items; `part`, or the text read as a document of its own
    for a text that is no note's entry) and, when every line of it is indented, the outline of the
    text dedented."""
    lines = [x for x in text.split("\n") if x.strip()]
    dedented = parse_outline(textwrap.dedent(text)) if lines and all(x[:1].isspace() for x in lines) else None
    if part is None:  # read as the note read it: an indented entry is the inside of a list item
        alone = textwrap.dedent(text) if dedented is not None else text
        part = read_document(alone, frozenset(sequence_starts(alone.split("\n")))).part(range(text.count("\n") + 1))
    tree = tuple((i.start, i.end, i.own_end, -1 if i.parent is None else i.parent) for i in part.items)
    return replace(parse_outline(text), dedented=dedented, blocks=part.blocks, tree=tree)


def points_of(parsed: Outline, join_below: int = 60) -> tuple[Point, ...]:
    """An outline's points: a lead-in's group of fragments is one point (see the module docstring)."""
    if not parsed.items:
        return tuple(Point(_cap(p)) for p in parsed.paragraphs if p)
    return tuple(_points(parsed.items, join_below))


@lru_cache(maxsize=256)
def parse_outline(text: str) -> Outline:
    """An entry's outline, read from its structure (see the module docstring): what no setting
    changes, which ingest stores; `points_of` turns it into points."""
    lines = text.split("\n")
    code = _code_flags(lines)
    labelled = sequence_starts(lines, code)
    marks = [None if code[k] or is_table(line) else ITEM.match(line) for k, line in enumerate(lines)]
    indents = [len(m.group(1)) for m in marks if m] + [0 for k in labelled]
    top = min(indents) if indents else 0
    items: list[_Item] = []
    lead, group, groups, open_item = "", 0, 0, False
    pending: str | None = None  # a lead-in waiting for the list below it
    for k, line in enumerate(lines):
        if code[k] or is_table(line) or is_hr(line) or not line.strip():
            open_item = False  # a blank line, a rule or a table ends an item's wrapped lines
            continue
        m = marks[k]
        if k in labelled or m:
            indent = 0 if k in labelled or not m else len(m.group(1))
            body = line[labelled[k][1]:] if k in labelled else line[m.end():] if m else line
            if pending is not None:
                groups += 1
                lead, group, pending = pending, groups, None
            if indent > top + 1 and items:
                items[-1].children.append(plain(body))
            else:
                items.append(_Item(indent, [body], [], lead, group))
            open_item = True
            continue
        if open_item and len(line) - len(line.lstrip()) > top:
            target = items[-1]
            if target.children:  # the wrapped line of a nested item
                target.children[-1] = plain(unwrap(f"{target.children[-1]}\n{line}"))
            else:
                target.parts.append(line)
            continue
        open_item = False
        lead, group = "", 0  # text between lists ends the group above it
        pending = _lead_text(line)
    if not items:
        return Outline(paragraphs=tuple(_merge_paragraphs(lines, code)))
    return Outline(tuple(OutlineItem(plain(unwrap("\n".join(i.parts))), tuple(i.children), i.lead, i.group)
                         for i in items))


def _merge_paragraphs(lines: list[str], code: list[bool]) -> list[str]:
    out: list[list[str]] = [[]]
    for k, line in enumerate(lines):
        if code[k] or is_table(line) or is_hr(line) or not line.strip():
            out.append([])
        else:
            out[-1].append(line.strip())
    return [plain(unwrap("\n".join(p))) for p in out if p]


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


def units(text: str) -> list[str]:
    """Top-level units of a text: an item with its continuation and nested items, a labelled line with
    its continuation (without its label: "R3 " is the digest's numbering, not the paper's text), a
    paragraph, a table row (each row alone)."""
    lines = text.split("\n")
    code = _code_flags(lines)
    labelled = sequence_starts(lines, code)
    indents = [len(m.group(1)) for k, line in enumerate(lines) if not code[k] and (m := ITEM.match(line))]
    top = min(indents) if indents else 0
    out: list[list[str]] = []
    for k, line in enumerate(lines):
        if not line.strip() or is_hr(line):
            out.append([])
            continue
        m = None if code[k] else ITEM.match(line)
        starts = k in labelled or is_table(line) or (m is not None and len(m.group(1)) <= top + 1)
        if starts or not out or not out[-1] or is_table(out[-1][-1]):
            out.append([line[labelled[k][1]:] if k in labelled else line])
        else:
            out[-1].append(line)
    return ["\n".join(u) for u in out if u]


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


def listed(text: str) -> list[str]:
    """What a text lists, one name per line: a top-level list item's or labelled line's text, a
    table row's first cell that is more than a rank, a row label or an id (each table's header row
    and rule aside)."""
    lines = text.split("\n")
    code = _code_flags(lines)
    labelled = sequence_starts(lines, code)
    out: list[str] = []
    in_table = False
    for k, line in enumerate(lines):
        if code[k] or not is_table(line):
            in_table = False
        if code[k]:
            continue
        if is_table(line):
            cells = row_cells(line)
            if in_table and cells:
                name = next((c for c in cells if c.strip() and not rank_cell(c) and not only_ids(c)), "")
                out += [name[:120]] if name else []
            in_table = True  # the first row is the header; a rule row has no cells
            continue
        m = ITEM.match(line)
        body = line[labelled[k][1]:] if k in labelled else line[m.end():] if m and len(m.group(1)) <= 1 else ""
        if body.strip():
            out.append(plain(body)[:120])
    return out


def _without(cell: str, ids: list[tuple[str, str | None, int | None, int, int]]) -> str:
    out, at = [], 0
    for span in ids:
        out.append(cell[at : span[3]])
        at = span[4]
    return "".join(out) + cell[at:]
