"""A hedged line's subject where the line itself names nothing: found by climbing the note's tree.

`climbed` walks up from the hedged line: the list items it is nested in, the block it points back
to (the one just before, when it restates that block's figure), the headings above its entry's own,
the line's first coined name, the note's title; never any other sibling line. `sideways` says
when a paper an entry names lies only in a sibling item (a comparison baseline) or, for a line on
a table row, only in the table's other rows, so it is not taken for the claim's subject. `line_of` finds the line of an entry that holds a hedged text.
`row_key_ids` gives a table row's own papers: its key cells are to the row what a heading is to a body.
"""

from __future__ import annotations

import re
from functools import lru_cache

from tasks.inbox.segment import PATH_SEP
from tasks.judge.compared import row_key_ids as row_key_ids_of
from tasks.model.outline import Outline
from tasks.model.window_views import EntryView
from tasks.verify.context import Context, text_ids
from tasks.verify.markers import Markers, strip_labels, without_context
from tasks.verify.subjects import heading_thing, line_thing


def climbed(ctx: Context, entry: EntryView, text: str, line: int | None = None) -> str | None:
    """What the hedged line is about when it names nothing it leads with, found by climbing, never
    sideways: the list items it is nested in, the headings above its entry's own, the line's first
    coined name, the note's title."""
    m = ctx.markers
    if line is None:
        line = line_of(m, entry.text, text)
    tree = entry.outline or Outline()
    enclosing = tree.enclosing(entry.text, line) if line is not None else []
    if enclosing and line is not None and entry.text.split("\n")[line].strip() in enclosing[0]:
        enclosing = enclosing[1:]  # the hedged item itself (a block continuing an item is climbed from it)
    for parent in enclosing:
        own = without_context(m, parent)  # "unlike X (arXiv:…)": X is context
        ids = ctx.topical(text_ids(own))
        name = ids[0] if len(ids) == 1 else line_thing(m, own, ctx.people, coined=False)
        if name:
            return name
    if line is not None:
        name = _pointed_back(m, entry, line, ctx.people)
        if name:
            return name
    for above in reversed(entry.heading.split(PATH_SEP)[:-1]):
        ids = ctx.topical(text_ids(above))
        if len(ids) == 1:
            return ids[0]
        thing = heading_thing(m, above, ctx.people)
        if thing is not None:
            return thing
    return line_thing(m, text, ctx.people) or heading_thing(m, ctx.note_title(entry.source_id), ctx.people)


# A value with its unit ("90%", "3x", "2.4×"): the same one in two blocks is one figure talked about twice.
_AFTER_LEAD = re.compile(r"^[^：:\n]{1,20}[：:]\s*")
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?\s*[%×xX]")


def _pointed_back(m: Markers, entry: EntryView, line: int, people: frozenset[str]) -> str | None:
    """What a block that names nothing points back to: the block just before it (a quoted claim,
    say), when it restates one of that block's figures ("这个 90% 看起来是单租户测的")."""
    spans = sorted((entry.outline or Outline()).blocks)
    k = next((i for i, (a, b) in enumerate(spans) if a <= line < b), 0)
    if k == 0:
        return None
    lines = entry.text.split("\n")
    before, here = ("\n".join(lines[a:b]) for a, b in spans[k - 1:k + 1])
    if not set(_FIGURE.findall(here)) & set(_FIGURE.findall(before)):
        return None
    said = before.lstrip("> ")
    # "群里有人转述：vLLM v0.13 …": who said it leads, then what it is about.
    return line_thing(m, said, people) or line_thing(m, _AFTER_LEAD.sub("", said, count=1), people)


def line_of(m: Markers, entry_text: str, hedge_text: str) -> int | None:
    """The line of the entry's text that holds the hedged line (the parser gives its text, not its place)."""
    probe = strip_labels(m, hedge_text)[:24]
    if not probe:
        return None
    return next((k for k, line in enumerate(entry_text.split("\n"))
                 if probe in strip_labels(m, line.replace("**", ""))), None)


def sideways(m: Markers, entry: EntryView, arxiv_id: str, text: str, line: int | None) -> bool:
    """The entry names `arxiv_id` only in list items that neither hold the hedged line nor enclose
    it, or, when the line is a table row, only in other rows: a sibling's paper (a comparison
    baseline, the next row's system), not what the claim is about."""
    tree = entry.outline or Outline()
    if line is None:
        line = line_of(m, entry.text, text)
    on_row = line is not None and any(a <= line < b for a, b in tree.rows)
    if not (tree.tree or on_row) or line is None or arxiv_id in text_ids(entry.heading):
        return False
    if any(arxiv_id in text_ids(item) for item in tree.enclosing(entry.text, line)):
        return False
    if on_row and arxiv_id in text_ids(entry.text.split("\n")[line]):
        return False
    return arxiv_id not in _ids_outside_items(entry.text, tree, on_row)


@lru_cache(maxsize=256)
def _ids_outside_items(text: str, tree: Outline, rows_too: bool = False) -> frozenset[str]:
    """The ids the entry's lines outside every list item name (and outside every table row, for a
    line on a row: the other rows are its siblings): read once per entry, however many of its
    hedges and numbers ask (an entry of a thousand numbers asked it a thousand times)."""
    rows = {k for a, b in tree.rows for k in range(a, b)} if rows_too else set()
    return frozenset(i for k, x in enumerate(text.split("\n")) if tree.item_at(k) is None and k not in rows
                     for i in text_ids(x))


def row_key_ids(m: Markers, entry: EntryView, text: str, line: int | None) -> list[str]:
    """The papers a hedged table row is about: its key cells' ids (`tasks.judge.compared.row_key_ids`).
    Empty when the hedge is not on a row of the stored parse."""
    tree = entry.outline
    if line is None:
        line = line_of(m, entry.text, text)
    if tree is None or line is None or not any(a <= line < b for a, b in tree.rows):
        return []
    return row_key_ids_of(entry.text.split("\n")[line], text_ids)
