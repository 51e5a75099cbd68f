"""What an entry hedges: the parser's hedges, unknown markers, and a hedging heading's items.

An entry's hedges are the note parser's, the lines holding a hedge marker the parser does not know
(judgment.toml `[markers] hedge_extra`, outside code fences), and the items a hedging heading puts
in doubt: under "Needs verification", "未解决" or "…待核实说法" each list item or table row is a
hedge about its own subject, and an entry headed "⚠️ T2 待核实 · PreScale" is about what its heading
names (`subjects.heading_thing`: a label, a source's name or an appendix heading names nothing).
"""

from __future__ import annotations

from tasks.common.sentences import unwrap
from tasks.inbox.part_text import ITEM_MARKER
from tasks.model.window_views import EntryView
from tasks.verify.context import text_ids
from tasks.verify.markers import Markers, strip_labels
from tasks.verify.names import names_of
from tasks.verify.subjects import heading_thing

# Peels a list item's marker (and a task box) off its first line; the tree says where items are.


def _plain(text: str) -> str:
    return unwrap(text).replace("**", "").strip()


def _tables(entry: EntryView) -> list[list[int]]:
    """The entry's tables, each its lines in order (header, delimiter, body rows), as the stored
    parse found them."""
    return [list(range(a, b)) for a, b in entry.outline.rows] if entry.outline is not None else []


def _prose(entry: EntryView, n: int) -> list[bool]:
    """Which lines of the entry's text the stored parse reads as text: its blocks (paragraphs,
    headings) and its list items' own lines, fenced code left out (a fence inside a tight list
    item lies in the item's own lines)."""
    said = [False] * n
    if entry.outline is None:
        return said
    spans = [*entry.outline.blocks, *((start, own_end) for start, _, own_end, _ in entry.outline.tree)]
    for a, b in spans:
        said[a:min(b, n)] = [True] * (min(b, n) - a)
    for a, b in entry.outline.code:
        said[a:min(b, n)] = [False] * (min(b, n) - a)
    return said


def _items(entry: EntryView) -> list[str]:
    """The entry's top-level list items (the stored tree's, parent -1), each its own lines without
    its marker, wrapped lines joined and never a nested item's or the next item's text; then its
    tables' body rows (a table's first row is its header, its second the delimiter row)."""
    lines = entry.text.split("\n")
    tree = entry.outline.tree if entry.outline is not None else ()
    out = [(start, _plain(ITEM_MARKER.sub("", "\n".join(lines[start:own_end]), count=1)))
           for start, _, own_end, parent in tree if parent < 0]
    for table in _tables(entry):
        out += [(k, " | ".join(c.strip() for c in lines[k].strip().strip("|").split("|"))) for k in table[2:]]
    return [text for _, text in sorted(out) if text]


def _under_hedge_heading(entry: EntryView, m: Markers) -> list[dict[str, str]]:
    """Hedges a heading makes: under "Needs verification" / "未解决" / "三、…待核实说法" every item is
    in doubt (each about its own subject), and an entry headed "⚠️ T2 待核实 · PreScale" is about
    what its heading names."""
    segments = [seg.strip() for seg in entry.heading.split(" › ") if seg.strip()]
    marker = next((hit for hit in (m.hedge.search(seg) for seg in segments) if hit), None)
    if marker is None:
        return []
    title = strip_labels(m, entry.title or "")
    items = _items(entry)
    # "PreScale（arXiv:…）" names a thing; "值得警惕的矛盾或待核实说法" heads a list of them.
    if title and not names_of(m.judgment).names_nothing(title) and (text_ids(title) or heading_thing(m, title) is not None):
        lines = [line.strip() for line in entry.text.splitlines() if line.strip()]
        stated = [line for line in lines if m.phenomenon_label.match(strip_labels(m, line))]
        body = (stated or items or lines or [title])[0]
        return [{"marker": marker.group(0), "text": body[:400], "about": title}]
    return [{"marker": marker.group(0), "text": item[:400]} for item in items]


def entry_hedges(entry: EntryView, m: Markers) -> list[dict[str, str]]:
    """The parser's hedges, lines holding a hedge it does not know (judgment.toml `hedge_extra`),
    and the items a hedging heading puts in doubt."""
    # The heading's first: of one subject's several hedges in an entry, the first one speaks for it.
    out = _under_hedge_heading(entry, m) + [dict(h) for h in entry.hedges]
    if not m.hedge.search(entry.text):
        return out  # most entries hedge nothing: one search, not one per line
    known = " ".join(str(h.get("text", "")) for h in out)
    lines = entry.text.split("\n")
    # Code is quoted, not said: a line counts when the parse read it as text or a table row.
    said = _said(entry, lines)
    for k, line in enumerate(lines):
        marker = m.hedge.search(line) if said[k] else None
        plain = " ".join(line.replace("**", "").split()).strip(" -*>")
        if marker and plain and plain[:40] not in known and plain not in known:
            out.append({"marker": marker.group(0), "text": plain[:400]})
    return out


def _said(entry: EntryView, lines: list[str]) -> list[bool]:
    """Which lines of the entry are said rather than quoted: text and table rows in the stored parse
    (fenced code lies in neither); every line of an entry stored without a parse (a queue row)."""
    if entry.outline is None:
        return [True] * len(lines)
    said = _prose(entry, len(lines))
    for table in _tables(entry):
        for k in table:
            said[k] = True
    return said
