"""The parts of a note entry that are one paper's own text, chosen by one implementation at ingest,
which stores their outlines (`items.paper_outlines`), and at judging (`tasks.judge.points`).

- An entry that is the paper's own reads with the sub-sections under its heading that name no other
  paper (`subsection_offsets`, `with_subsections`).
- An entry about several papers reads, for each, the units that name it (`own_units`).
Ingest parses each distinct joined text once (its outline is not its parts' outlines put together),
and, since which ids an entry names depends on the briefing's date, stores every date's reading.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from tasks.common.arxiv_ids import id_month
from tasks.common.limits import CAPPED
from tasks.inbox.document import Part
from tasks.inbox.outline_reader import parse_outline, stored_part, units
from tasks.inbox.segment import PATH_SEP, is_table
from tasks.model.outline import OWN_OUTLINE, Outline, PaperOutlines

_ID_EDGE = re.compile(r"[0-9]")
# A new-style id as `names_id` reads it: not after a digit or a dot, not followed by a digit.
_NEW_ID_TOKEN = re.compile(r"(?<![0-9.])[0-9]{4}\.[0-9]{4,5}(?![0-9])")
# The joined texts stored for an entry's papers, at most this many times the entry's text and the
# sub-sections under it: one unit naming every paper of a digest, joined with each paper's own
# line, would otherwise be stored once per paper.
MAX_OWN_PARTS_FACTOR = 4


def names_id(text: str, arxiv_id: str) -> bool:
    """Whether `text` names the canonical id (any raw form: arXiv:…, a URL, a version suffix)."""
    lowered = text.lower()
    at = lowered.find(arxiv_id)
    while at >= 0:
        before = lowered[at - 1] if at else " "
        after = lowered[at + len(arxiv_id)] if at + len(arxiv_id) < len(lowered) else " "
        if not _ID_EDGE.match(before) and before != "." and not _ID_EDGE.match(after):
            return True
        at = lowered.find(arxiv_id, at + 1)
    return False


def ids_named(text: str, ids: frozenset[str]) -> frozenset[str]:
    """Which of `ids` the text names (`names_id` for each), in one pass over the text: an entry of a
    digest can name thousands of ids, and asking each id of each block is quadratic. Whether an id
    is named does not depend on the other ids in `ids`."""
    found = {token for token in _NEW_ID_TOKEN.findall(text) if token in ids}
    if "/" in text:  # every old-style id holds one (and they are rare)
        found.update(i for i in _old_style(ids) if names_id(text, i))
    return frozenset(found)


@lru_cache(maxsize=256)
def _old_style(ids: frozenset[str]) -> tuple[str, ...]:
    """The old-style ids (`hep-th/9901001`) among `ids`, found once per set rather than once per block
    (the sets are an entry's `id_set`, the same object for each of its blocks)."""
    return tuple(sorted(i for i in ids if "/" in i))


def is_own_entry(heading: str, known: frozenset[str], arxiv_id: str) -> bool:
    """Whether an entry naming `known` (with `arxiv_id`) is the paper's own: it names only the paper,
    or its heading names it."""
    return len(known) == 1 or arxiv_id in ids_named(heading, known)


def subsection_offsets(heading: str, following: Iterable[tuple[str, Collection[str]]], arxiv_id: str) -> tuple[int, ...]:
    """Of the entries after an entry headed `heading` ((heading, ids) each, in order), the offsets
    (1: the next one) of its sub-sections that name no paper but `arxiv_id`."""
    prefix = heading + PATH_SEP
    kept = []
    for offset, (child_heading, child_ids) in enumerate(following, 1):
        if not child_heading.startswith(prefix):
            break
        if set(child_ids) <= {arxiv_id}:
            kept.append(offset)
    return tuple(kept)


def with_subsections(text: str, heading: str, subsections: Iterable[tuple[str, str]]) -> str:
    """An entry's text and its sub-sections' ((heading, text) each), each under its own heading."""
    prefix = heading + PATH_SEP
    parts = [f"#### {h[len(prefix):].split(PATH_SEP)[-1]}\n{t}" for h, t in subsections]
    return "\n\n".join([text, *parts])


@lru_cache(maxsize=64)
def own_units(text: str, ids: frozenset[str], part: Part | None = None) -> tuple[tuple[str, ...], dict[str, tuple[int, ...]]]:
    """An entry's units other than table rows (read from `part`, its part of its note's tree, when
    there is one), and the units naming each id: indexed once per entry, not once per paper (a
    digest's entry can name hundreds)."""
    cut = tuple(u for u in units(text, part) if not is_table(u))
    by_id: dict[str, list[int]] = {}
    for k, unit in enumerate(cut):
        for arxiv_id in ids_named(unit, ids):
            by_id.setdefault(arxiv_id, []).append(k)
    return cut, {i: tuple(v) for i, v in by_id.items()}


@dataclass(frozen=True)
class EntryText:
    """What ingest knows of a note's entry: its heading path, its text, the canonical ids its
    well-formed mentions name (as stored, in order), and the outline ingest stores of it with its
    part of its note's tree (None: the text is read alone, `outline_reader.read_alone`)."""

    heading: str
    text: str
    ids: tuple[str, ...]
    stored: Outline | None = None


def paper_outlines(entries: Sequence[EntryText], warnings: list[str]) -> list[PaperOutlines | None]:
    """Per entry of a note, in order, the outlines of its papers' own joined texts (None: nothing to
    store). An entry whose joined texts would pass MAX_OWN_PARTS_FACTOR keeps those within it, and
    the note's warnings say so."""
    out, capped = [], 0
    for k, entry in enumerate(entries):
        following = (entries[j] for j in range(k + 1, len(entries)))
        built = _Built(entry, following)
        capped += built.capped
        out.append(built.result())
    if capped:
        warnings.append(f"{CAPPED}{capped} entries name papers whose own parts pass {MAX_OWN_PARTS_FACTOR} times "
                        "the entry's text; the rest are read from the entry alone, or from none of it")
    return out


class _Built:
    """One entry's stored outlines as they are made: each distinct joined text parsed once, within
    MAX_OWN_PARTS_FACTOR times the entry's text and the sub-sections under it."""

    def __init__(self, entry: EntryText, following: Iterator[EntryText]) -> None:
        self.entry = entry
        prefix = entry.heading + PATH_SEP
        self.run = []
        for child in following:
            if not child.heading.startswith(prefix):
                break
            self.run.append(child)
        self.outlines: dict[Outline, int] = {}
        self.budget = MAX_OWN_PARTS_FACTOR * (len(entry.text) + sum(len(c.text) for c in self.run))
        self.capped = False
        self.by_subsections = {key: k for key in self._subsection_keys() if (k := self._add(self._joined(key))) is not None}
        self.by_id = self._by_id()

    @cached_property
    def _own(self) -> Outline:
        """The entry's own outline, as judging reads it for OWN_OUTLINE (its stored outline)."""
        stored = self.entry.stored
        return parse_outline(self.entry.text) if stored is None else Outline(stored.items, stored.paragraphs)

    def result(self) -> PaperOutlines | None:
        if not self.outlines and not self.by_id and not self.by_subsections:
            return None
        return PaperOutlines(tuple(self.outlines), tuple(self.by_id.items()), tuple(self.by_subsections.items()))

    def _add(self, text: str) -> int | None:
        """The index of the joined text's outline (OWN_OUTLINE: the entry's own), None past the cap."""
        # Every text parsed counts against the cap, so the cap bounds the parsing as well as what is stored.
        if len(text) > self.budget:
            self.capped = True
            return None
        self.budget -= len(text)
        parsed = parse_outline(text)
        if parsed == self._own:
            return OWN_OUTLINE
        return self.outlines.setdefault(parsed, len(self.outlines))

    def _joined(self, key: tuple[int, ...]) -> str:
        return with_subsections(self.entry.text, self.entry.heading,
                                ((self.run[o - 1].heading, self.run[o - 1].text) for o in key))

    def _subsection_keys(self) -> list[tuple[int, ...]]:
        """The sub-sections read with the entry for each paper it is the own entry of, on any date:
        the ids a date drops are those issued after its month, so each month an id was issued in
        (and none) is a date's reading."""
        if not self.run:
            return []
        ids = set(self.entry.ids).union(*(c.ids for c in self.run))
        months = sorted({m for i in ids if (m := id_month(i)) is not None})
        in_heading = ids_named(self.entry.heading, frozenset(self.entry.ids))
        keys: dict[tuple[int, ...], None] = {}
        for month in [None, *months]:
            def issued(i: str, month: tuple[int, int] | None = month) -> bool:
                m = id_month(i)
                return m is None or (month is not None and m <= month)
            known = {i for i in self.entry.ids if issued(i)}
            for arxiv_id in sorted(known):
                if len(known) == 1 or arxiv_id in in_heading:
                    run = ((c.heading, [i for i in c.ids if issued(i)]) for c in self.run)
                    keys.setdefault(subsection_offsets(self.entry.heading, run, arxiv_id))
        return [key for key in keys if key]

    def _by_id(self) -> dict[str, int]:
        """For each paper of an entry about several, the outline of its own units joined (no key:
        no unit names it, or past the cap)."""
        distinct = frozenset(self.entry.ids)
        if len(distinct) < 2:
            return {}
        stored = self.entry.stored
        cut, units_of = own_units(self.entry.text, distinct, None if stored is None else stored_part(stored))
        in_heading = ids_named(self.entry.heading, distinct)
        by_units: dict[tuple[int, ...], int | None] = {}
        out = {}
        for arxiv_id in dict.fromkeys(self.entry.ids):
            mine = units_of.get(arxiv_id, ())
            if arxiv_id in in_heading or not mine:
                continue  # its own entry on every date, or no text of its own
            if mine not in by_units:
                by_units[mine] = self._add("\n\n".join(cut[k] for k in mine))
            if (k := by_units[mine]) is not None:
                out[arxiv_id] = k
        return out
