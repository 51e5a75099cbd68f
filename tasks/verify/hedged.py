"""What an entry hedges: the parser's hedges, unknown markers, and a hedging heading's items.

An entry's hedges are the note parser's, the lines holding a hedge marker the parser does not know
(judgment.toml `[markers] hedge_extra`, outside code fences), and the items a hedging heading puts
in doubt: under "Needs verification", "未解决" or "…待核实说法" each list item or table row is a
hedge about its own subject, and an entry headed "⚠️ T2 待核实 · PreScale" is about what its heading
names (`subjects.heading_thing`: a label, a source's name or an appendix heading names nothing).
"""

from __future__ import annotations

import re

from tasks.common.sentences import unwrap
from tasks.model.window_views import EntryView
from tasks.verify.context import text_ids
from tasks.verify.markers import Markers, strip_labels
from tasks.verify.names import names_of
from tasks.verify.subjects import heading_thing

_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)、])\s+(?:\[[ xX]?\]\s*)?(.+)$")
_RULE = re.compile(r"^\|?[\s:|-]+\|?$")


def _items(entry: EntryView) -> list[str]:
    """List items at the margin and table body rows of an entry (a table's first row is its header).
    An item is its whole own text, wrapped continuation lines too (the tree ingest stored), never
    a line of the next item."""
    own_end = {start: end for start, _, end, _ in entry.outline.tree} if entry.outline is not None else {}
    lines = entry.text.split("\n")
    out: list[str] = []
    header = True
    for k, line in enumerate(lines):
        item = _ITEM.match(line)
        if item:
            rest = [x.strip() for x in lines[k + 1:own_end.get(k, k + 1)] if x.strip()]
            out.append(unwrap("\n".join([item.group(1), *rest])).replace("**", "").strip())
        elif line.lstrip().startswith("|") and not _RULE.match(line.strip()):
            if not header:
                out.append(" | ".join(c.strip() for c in line.strip().strip("|").split("|")))
            header = False
    return [i for i in out if i]


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
    fenced = False
    for line in entry.text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced  # code is quoted, not said
        marker = None if fenced else m.hedge.search(line)
        plain = " ".join(line.replace("**", "").split()).strip(" -*>")
        if marker and plain and plain[:40] not in known and plain not in known:
            out.append({"marker": marker.group(0), "text": plain[:400]})
    return out
