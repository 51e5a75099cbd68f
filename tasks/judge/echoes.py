"""An earlier briefing inside a note, recognised by its shape rather than by words it happens to use.

A briefing has a summary block of labelled fields ("增量条数：…", "最高价值条目：…", "Most valuable: …")
and numbered sections ("一、检查过的来源清单" … "五、摘要", "## 1. Sources checked" …). Both are
worded by the renderer (`tasks/config/labels.toml`, read through tasks.config.wording), so the
field names and section titles here are derived from that wording, never listed again.

- A block (consecutive non-blank lines: one paragraph, or one list) naming two or more summary
  fields is a pasted summary: `trim_summaries` cuts it from an entry (hedges, numbers, ids and
  outline points inside it go with it), so it raises no pending item and no increment while the
  rest of the note still counts; `without_summaries` blanks them in any other text read from a note.
- A note whose headings carry three or more of the briefing's section titles is laid out as a
  briefing: an echo as a whole (`laid_out`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from functools import lru_cache

from tasks.config.wording import label_tables
from tasks.inbox.own_parts import ids_named
from tasks.inbox.segment import PATH_SEP
from tasks.model.outline import Outline
from tasks.model.window_views import EntryView

MIN_FIELDS = 2  # summary fields in one block that make it a pasted summary
MIN_SECTIONS = 3  # briefing section titles among a note's headings that make it laid out as one

# A section heading's numbering ("一、", "（三）", "2.", "§4") and a trailing count ("（8 条）", "(3)").
_NUMBERING = re.compile(r"^[#\s]*(?:[（(]?[一二三四五六七八九十]+[、.．)）]|\d+[.、)）]|§\s*\d+)?\s*")
_COUNT = re.compile(r"\s*[（(][^（）()]*[)）]\s*$")
_FIELD_END = re.compile(r"[{（(：:]")


def _core(heading: str) -> str:
    """A heading without its numbering, its trailing count and markdown emphasis, folded."""
    plain = _NUMBERING.sub("", heading.replace("**", "").strip(), count=1)
    return " ".join(_COUNT.sub("", plain).split()).casefold()


@lru_cache(maxsize=1)
def _shape() -> tuple[re.Pattern[str], frozenset[str]]:
    """(a pattern finding summary fields, the section titles), from every language's wording."""
    fields: set[str] = set()
    titles: set[str] = set()
    for table in label_tables().values():
        for key, value in table.items():
            if not isinstance(value, str):
                continue
            if key.startswith("sum_") and not key.endswith("_why"):
                label = _FIELD_END.split(value, maxsplit=1)[0].strip()
                if label:
                    fields.add(label)
            elif re.fullmatch(r"s\d", key):
                titles.add(_core(value.split("{")[0].rstrip("（( ")))
    words = sorted((re.escape(f).replace(r"\ ", r"\s*") for f in fields), key=len, reverse=True)
    pattern = re.compile(r"(?:^|(?<=[\s>*+\-|•·*]))(?:\*\*)?(" + "|".join(words) + r")(?:\*\*)?\s*[：:]",
                         re.IGNORECASE)
    return pattern, frozenset(t for t in titles if t)


def summary_fields(text: str) -> set[str]:
    """The distinct summary fields a text names, folded."""
    pattern, _ = _shape()
    return {" ".join(m.group(1).split()).casefold() for m in pattern.finditer(text)}


def summary_spans(text: str) -> list[tuple[int, int]]:
    """Line spans [start, end) of the blocks of `text` that are pasted summaries."""
    pattern, _ = _shape()
    if not pattern.search(text):
        return []  # most entries: one search
    lines = text.split("\n")
    spans, start = [], None
    for i, line in enumerate([*lines, ""]):
        if line.strip() and start is None:
            start = i
        elif not line.strip() and start is not None:
            if len(summary_fields("\n".join(lines[start:i]))) >= MIN_FIELDS:
                spans.append((start, i))
            start = None
    return spans


def _plain(text: str) -> str:
    return " ".join(text.replace("**", "").split())


def _inside(part: str, cut: str) -> bool:
    """Whether a stored piece of an entry (a hedge, a number's context, a point) was written in `cut`."""
    probe = _plain(part).strip(" -*>")[:40]
    return bool(probe) and probe in cut


def _outline(outline: Outline | None, cut: str) -> Outline | None:
    if outline is None:
        return None
    return dataclasses.replace(
        outline,
        items=tuple(i for i in outline.items if not _inside(i.head, cut)),
        paragraphs=tuple(p for p in outline.paragraphs if not _inside(p, cut)),
        dedented=_outline(outline.dedented, cut),
    )


def _blanked(lines: list[str], spans: list[tuple[int, int]]) -> str:
    """The lines with the spans' lines blanked, so line spans stay true."""
    kept = list(lines)
    for a, b in spans:
        kept[a:b] = [""] * (b - a)
    return "\n".join(kept)


def without_summaries(text: str) -> str:
    """`text` (an entry's stored context, say) with its pasted summary blocks blanked: what is read
    from it (a section to place a paper in) is never an earlier briefing's words."""
    spans = summary_spans(text)
    return _blanked(text.split("\n"), spans) if spans else text


def trim_summaries(entry: EntryView) -> EntryView:
    """`entry` without its pasted summary blocks (blanked, so line spans stay true), and without the
    hedges, numbers, ids and outline points written only there."""
    spans = summary_spans(entry.text)
    if not spans:
        return entry
    lines = entry.text.split("\n")
    cut = _plain(" ".join(" ".join(lines[a:b]) for a, b in spans))
    text = _blanked(lines, spans)
    kept = ids_named(" ".join((text, entry.heading, entry.title or "")), entry.id_set)
    return dataclasses.replace(
        entry, text=text,
        hedges=tuple(h for h in entry.hedges if not _inside(str(h.get("text", "")), cut)),
        numbers=tuple(n for n in entry.numbers if not _inside(str(n.get("context", "")), cut)),
        ids=tuple(i for i in entry.ids if i in kept),
        outline=_outline(entry.outline, cut),
        echoed=cut,
    )


def laid_out(headings: Iterable[str]) -> bool:
    """Whether a note's headings (entry heading paths) carry enough of a briefing's section titles."""
    _, titles = _shape()
    found = {_core(part) for heading in headings for part in heading.split(PATH_SEP)} & titles
    return len(found) >= MIN_SECTIONS
