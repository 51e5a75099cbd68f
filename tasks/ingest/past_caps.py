"""The arXiv ids of the part of a file that no stored entry was parsed from.

The caps and the work budget bound how much of a note is parsed into entries (its first
MAX_LINES_PER_SOURCE lines, the first MAX_LINE_CHARS characters of each, its entries up to where
the budget ran out or MAX_ENTRIES_PER_SOURCE), never which ids are seen: the ids outside that part
are found by one linear scan of the whole text and stored on one entry of their own after the
others ("the rest of the file"), each with the few characters around it as its context. A file
whose entries were all parsed and stored has no such entry, and costs no extra scan.
"""

from __future__ import annotations

from collections.abc import Iterator

from tasks.common.arxiv_ids import find_id_spans
from tasks.common.limits import CAPPED, MAX_LINE_CHARS, MAX_LINES_PER_SOURCE, line_cut
from tasks.ingest.sources import ExtractedItem, ExtractedMention

REST_LABEL = "rest"
# Characters of context on each side of an id of the rest: enough to read what it was listed with;
# an id's whole line could be megabytes, and there may be 100,000 of them.
REST_CONTEXT_CHARS = 120
# Longer than any written arXiv reference ("https://export.arxiv.org/abs/cond-mat.stat-mech/0101001v12").
MAX_ID_CHARS = 100


def within_caps(text: str) -> bool:
    """Whether the line caps leave `text` whole (the test `cap_lines` makes first)."""
    return len(text) <= MAX_LINE_CHARS and text.count("\n") < MAX_LINES_PER_SOURCE


def rest_item(text: str, from_line: int | None, warnings: list[str]) -> ExtractedItem | None:
    """The entry holding the ids of `text` outside the parsed part, or None when there are none.

    The parsed part is each line before `from_line` (1-based: where the first entry not stored
    starts; None: every entry was stored) and before the line cap, up to the character cap; an id
    reaching past it is outside. A warning says from where ids alone were kept, and how many."""
    if from_line is None and within_caps(text):
        return None
    last = MAX_LINES_PER_SOURCE if from_line is None else min(from_line - 1, MAX_LINES_PER_SOURCE)
    mentions: list[ExtractedMention] = []
    lines = [line for part in _outside(text, last) for line in _mentions_in(text, *part, mentions)]
    if not mentions:
        return None
    warnings.append(f"{CAPPED}{len(mentions)} arXiv references from line {lines[0]} on were past what was "
                    "parsed into entries; kept with their ids alone, on one last entry")
    return ExtractedItem(label=REST_LABEL, heading="", title=None, text="", mentions=mentions)


def _mentions_in(text: str, line: int, line_start: int, cut: int, stop: int,
                 out: list[ExtractedMention]) -> Iterator[int]:
    """Add to `out` each id of `text` reaching past `cut` and starting before `stop` (a part of
    `_outside`, its first line `line` starting at `line_start`); yields each one's line."""
    # A tail is scanned from a little before the cut: an id written across it is outside whole.
    lo = pos = max(line_start, cut - MAX_ID_CHARS)
    for raw, canonical, version, at, to in find_id_spans(text[lo:stop])[0]:
        start, end = at + lo, to + lo
        if end <= cut:
            continue  # within the line's parsed part
        breaks = text.count("\n", pos, start)  # from the last id on: one pass over the part in all
        if breaks:
            line += breaks
            line_start = text.rfind("\n", pos, start) + 1
        pos = start
        after = text.find("\n", end, end + REST_CONTEXT_CHARS)
        context = text[max(line_start, start - REST_CONTEXT_CHARS): after if after >= 0 else end + REST_CONTEXT_CHARS]
        out.append(ExtractedMention(raw, canonical, version, canonical is None, context.strip()))
        yield line


def _outside(text: str, last: int) -> Iterator[tuple[int, int, int, int]]:
    """(line number, its start, start, end) of each part of `text` outside the first `last` lines
    as the caps cut them: the tail of each of those lines longer than MAX_LINE_CHARS (from where
    `line_cut` cuts it), then all that follows them (numbered from its first line)."""
    pos = 0
    for line in range(1, last + 1):
        nl = text.find("\n", pos)
        end = len(text) if nl < 0 else nl
        if end - pos > MAX_LINE_CHARS:
            yield line, pos, pos + line_cut(text[pos: pos + MAX_LINE_CHARS + 1]), end
        if nl < 0:
            return
        pos = nl + 1
    yield last + 1, pos, pos, len(text)
