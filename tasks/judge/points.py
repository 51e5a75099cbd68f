"""A paper's key points and relation lines, from its own text only; the cut, its thesis and headline.

Points come from the paper's own text (as in tasks.judge.own_text): the first that gives any, of
an entry of its own, its card, a digest's line, a table row, a queue row. Nothing comes from a neighbouring row,
line or entry.
Relation lines are the points that name a document section (§) or the topic's document. Past
`[points] max`, the cut keeps the thesis (`[points] thesis`) and points with a number and unit
first, then the fullest, in the entry's order, and counts what it left out. A point kept from a
lead-in's group carries the lead-in, so no item stands without its parent.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from tasks.common.sentences import clip_text, sentence_at
from tasks.config.judgment import Judgment
from tasks.inbox.outline_reader import (
    Point,
    has_number,
    joined,
    numbers_in,
    only_ids,
    points_of,
    row_point,
    substantive,
)
from tasks.inbox.own_parts import is_own_entry, subsection_offsets
from tasks.inbox.segment import is_table
from tasks.judge.statements import found_word
from tasks.model.outline import OWN_OUTLINE, Outline
from tasks.model.window_views import EntryView, MentionView

THESIS_OPENING = 16  # a thesis word must open a point within this many characters
REASON_CHARS = 120  # a thesis or headline quoted in a one-line reason is cut here


@dataclass(frozen=True)
class KeyPoints:
    points: list[str] = field(default_factory=list)
    relation: list[str] = field(default_factory=list)
    cut: int = 0  # points left out
    thesis: str = ""
    headline: str = ""  # the clause holding its first number with a unit


@dataclass(frozen=True)
class _Candidate:
    rank: int  # 4 own entry, 3 card, 2 digest line, 1 table row, 0 queue row
    points: tuple[Point, ...]


def _candidates(arxiv_id: str, title: str, mentions: Sequence[MentionView],
                entries: dict[tuple[int, int], EntryView], join: int) -> list[_Candidate]:
    out: list[_Candidate] = []
    seen: set[tuple[int, int, str]] = set()
    skip = tuple(x for x in (arxiv_id, title) if x)
    for m in mentions:
        row = m.context.strip() if is_table(m.context) else ""
        key = (m.source_id, m.item_ordinal, row)
        if key in seen:
            continue
        seen.add(key)
        entry = entries.get((m.source_id, m.item_ordinal))
        if m.kind == "work_queue" or row:
            point = row_point(row or m.context, (*skip, m.raw, m.title or ""))
            out.append(_Candidate(0 if m.kind == "work_queue" else 1, (Point(point),) if point else ()))
        elif m.kind == "paper_card":
            # A mention's entry is always in the window (both are read from the same items, see
            # `tasks.window.collect`): a card is read from its stored outline.
            out.append(_Candidate(3, _stored(entry, join) if entry else ()))
        elif entry is not None:
            if is_own_entry(entry.heading, entry.ids_with(arxiv_id), arxiv_id):
                offsets = subsection_offsets(entry.heading, _following(entry, entries), arxiv_id)
                out.append(_Candidate(4, _line(entry, title, join) or _paper(
                    entry, entry.paper_outlines.for_subsections(offsets) if offsets and entry.paper_outlines else None,
                    join, own=True)))
            else:
                # An id the briefing's date drops (`issued_by`) is not the entry's: no unit names it.
                k = entry.paper_outlines.for_id(arxiv_id) if entry.paper_outlines and arxiv_id in entry.id_set else None
                out.append(_Candidate(2, _paper(entry, k, join, own=False)))
    return out


def _stored(entry: EntryView, join: int) -> tuple[Point, ...]:
    """The points of the entry's text from the outline ingest stored (`tasks.ingest.reparse` fills
    in a row stored before it did, so no entry is parsed here)."""
    return _points(entry.outline or Outline(), join)


@lru_cache(maxsize=256)
def _points(parsed: Outline, join: int) -> tuple[Point, ...]:
    """An outline's points, made once per outline: every paper of a digest whose own units are the
    whole entry reads the entry's outline (a long paragraph is cut at a sentence end each time)."""
    return points_of(parsed, join)


def entry_items(entry: EntryView) -> list[str]:
    """The entry's own list items, each without what is nested under it, from its stored outline (a
    merged engineering increment lists the first two of each part)."""
    return [i.head for i in (entry.outline or Outline()).items if i.head]


def _following(entry: EntryView, entries: dict[tuple[int, int], EntryView]) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(heading, ids) of the entries after `entry` in its note, in order (`subsection_offsets` reads
    as far as its sub-sections go)."""
    k = entry.ordinal + 1
    while (child := entries.get((entry.source_id, k))) is not None:
        yield child.heading, child.ids
        k += 1


def _paper(entry: EntryView, k: int | None, join: int, own: bool) -> tuple[Point, ...]:
    """The points of a paper's own joined text in the entry, from the outline ingest stored of it
    (`tasks.inbox.own_parts`): `k` indexes the entry's paper outlines (OWN_OUTLINE: its own outline).
    No index: the paper's own entry alone (`own`), else no unit of the entry names the paper."""
    if k is None:
        return _stored(entry, join) if own else ()
    if k == OWN_OUTLINE or entry.paper_outlines is None:
        return _stored(entry, join)
    return _points(entry.paper_outlines.outlines[k], join)


def _line(entry: EntryView, title: str, join: int) -> tuple[Point, ...]:
    """An entry that is a list item or a digest's labelled line ("R3 FooServe（arXiv:…）— 2.1× on
    H100"): its first line is content, not a heading, and what is indented under it is nested in it.
    One point, the line with its nested items joined, when the line says more than the paper's name."""
    lines = [x for x in entry.text.split("\n") if x.strip()]
    if any(not x[:1].isspace() for x in lines):
        return ()  # a body of its own: the first line was a heading
    line = entry.title or ""
    rest = line.replace(title, "", 1) if title else line
    if not line or only_ids(line) or not (substantive(rest) or lines):
        return ()
    # Every line is indented, so ingest stored the outline of the text dedented too.
    dedented = entry.outline.dedented if entry.outline is not None else None
    nested = [p.text for p in points_of(dedented, join)] if dedented is not None else []
    return (Point(joined(line, nested)),)


def _is_relation(text: str, topic: str) -> bool:
    return "§" in text or f"{topic}.md" in text


def _words(j: Judgment) -> tuple[str, ...]:
    return j.words("points", "thesis")


def _is_thesis(p: Point, words: tuple[str, ...]) -> bool:
    return bool(words) and (found_word(words, p.lead) is not None
                            or found_word(words, p.text[:THESIS_OPENING]) is not None)


def _short(text: str) -> str:
    """A reason's quote: whole sentences, cut at a sentence end and marked "…"."""
    return clip_text(text, REASON_CHARS)


def _sentence_with(text: str, clause: str) -> str:
    """The whole sentence of `text` that holds `clause` (a number's clause), or the clause."""
    at = text.find(clause)
    return sentence_at(text, at) if at >= 0 else clause


def choose(points: Sequence[Point], limit: int, thesis: Sequence[bool]) -> list[int]:
    """Indices of the points kept (ascending): thesis points carrying numbers, the first thesis
    point, points carrying numbers, other thesis points, then the fullest of the rest."""
    if len(points) <= limit:
        return list(range(len(points)))
    numbered = [has_number(p.text) for p in points]
    first = next((k for k, t in enumerate(thesis) if t), -1)

    def priority(k: int) -> tuple[int, int, int]:
        if thesis[k] and numbered[k]:
            return (0, 0, k)
        if k == first:
            return (1, 0, k)
        if numbered[k]:
            return (2, 0, k)
        if thesis[k]:
            return (3, 0, k)
        return (4, -len(points[k].text), k)

    return sorted(sorted(range(len(points)), key=priority)[:limit])


def _with_leads(points: Sequence[Point], kept: list[int]) -> list[str]:
    """The kept points' texts; the first kept point of a lead-in's group opens with the lead-in."""
    out, led = [], set()
    for k in kept:
        p = points[k]
        text = p.text
        if p.lead and p.group not in led and not text.startswith(p.lead):
            text = joined(p.lead, [text])
        led.add(p.group)
        out.append(text)
    return out


def _settings(j: Judgment) -> tuple[int, int]:
    settings = j.config.get("points", {})
    return int(settings.get("max", 6)), int(settings.get("join_below_chars", 60))


def key_points(arxiv_id: str, title: str, mentions: Sequence[MentionView],
               entries: dict[tuple[int, int], EntryView], topic: str, j: Judgment) -> KeyPoints:
    """The paper's key points and relation lines from its best own text (see the module docstring)."""
    candidates = _candidates(arxiv_id, title, mentions, entries, _settings(j)[1])
    if not candidates:
        return KeyPoints()
    # Any text with points before none; max keeps the earliest of equals.
    best = max(candidates, key=lambda c: (bool(c.points), c.rank, len(c.points)))
    card = next((c.points[0].text for c in candidates if c.rank == 3 and c.points), "")
    return _finish(best.points, card, topic, j)


def entry_key_points(entry: EntryView, title: str, topic: str, j: Judgment) -> KeyPoints:
    """The key points of something one entry is about as a whole (an engineering increment's entry)."""
    join = _settings(j)[1]
    return _finish(_line(entry, title, join) or _stored(entry, join), "", topic, j)


def _finish(points: Sequence[Point], card: str, topic: str, j: Judgment) -> KeyPoints:
    """Relation lines apart, the cut made and marked, the thesis and headline found."""
    # A lead-in's group whose first point names the document is a relation group ("和现有脉络的关系").
    firsts: dict[int, Point] = {}
    for p in points:
        firsts.setdefault(p.group, p)
    related = {g for g, p in firsts.items() if g and _is_relation(p.text, topic)}
    relation = [p.text for p in points if p.group in related or _is_relation(p.text, topic)]
    own = [p for p in points if not (p.group in related or _is_relation(p.text, topic))
           and not p.text.rstrip().endswith(("：", ":"))]
    words = _words(j)
    thesis = [_is_thesis(p, words) for p in own]
    kept = choose(own, _settings(j)[0], thesis)
    texts = _with_leads(own, kept)
    stated = next((own[k].text for k in kept if thesis[k]), "")
    with_number = next((texts[i] for i, k in enumerate(kept) if has_number(own[k].text)), "")
    fallback = max(texts[:3], key=len, default="")
    main = stated or card or with_number or fallback
    numbered = [(own[k].text, n) for k in kept for n in numbers_in(own[k].text) if n["unit"] not in ("▲", "★")]
    headline = _sentence_with(numbered[0][0], numbered[0][1]["context"]) if numbered else ""
    return KeyPoints(texts, relation, len(own) - len(kept), _short(main),
                     "" if headline and headline in main else _short(headline))
