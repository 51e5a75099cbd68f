"""A paper's own text in each source that names it, and the topics a note is written for.

Own text is what a source says about this paper and nothing else:
- a paper card: its title and TL;DR; a work-queue row or a table row: the row alone;
- a note entry naming only this paper: its heading and body (table rows about other papers aside);
- a note entry naming several papers (a digest, a radar list): its own heading when that names the
  paper, and the blocks (a list item with its continuation lines, or a paragraph) that name it;
  when its heading names this paper, also the blocks that name no paper at all; a heading that
  names no paper is read like a section heading;
- none where a source names the paper only as what another is compared with: in a cell after the
  key cells of another paper's row, or in a comparison phrase (`tasks.judge.compared`).
The headings of the sections an entry sits in are kept apart (`sections`): statements there
("## 训练侧（不进 inference）") apply to the paper, vocabulary there does not.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from tasks.common.text import CJK_RANGE
from tasks.config.judgment import Judgment, TopicTerms
from tasks.inbox.own_parts import ids_named
from tasks.inbox.segment import PATH_SEP
from tasks.judge.compared import row_key_ids, without_context
from tasks.judge.echoes import laid_out
from tasks.judge.statements import found_word
from tasks.model.window_views import EntryView, MentionView


@dataclass(frozen=True)
class OwnText:
    path: str
    sections: str
    body: str
    listed: bool = False  # a line or row of a note entry about several papers, not an entry of its own
    note: bool = True  # a note's text; a card's or the queue's says its categories in fields of its own


@dataclass(frozen=True)
class _NamedBlocks:
    blocks: tuple[str, ...]  # an entry's blocks other than table rows, in order
    by_id: dict[str, tuple[int, ...]]  # id -> the blocks that name it
    unnamed: tuple[int, ...]  # the blocks that name no id


@lru_cache(maxsize=64)
def _named_blocks(text: str, spans: tuple[tuple[int, int], ...], ids: frozenset[str]) -> _NamedBlocks:
    """An entry's blocks (other than table rows: `spans`, the lines ingest stored of them, see
    `tasks.inbox.document`) with the ids each names, indexed once per entry, not per
    paper: a digest's entry can name thousands of papers, each of which asks for its own blocks."""
    lines = text.split("\n")
    blocks = tuple("\n".join(lines[a:b]) for a, b in spans)
    by_id: dict[str, list[int]] = {}
    unnamed: list[int] = []
    for k, block in enumerate(blocks):
        named = ids_named(block, ids)
        if not named:
            unnamed.append(k)
        for arxiv_id in named:
            by_id.setdefault(arxiv_id, []).append(k)
    return _NamedBlocks(blocks, {i: tuple(v) for i, v in by_id.items()}, tuple(unnamed))


# Where a clause ends: a sentence or clause mark, or a line break (a table cell is one clause).
_CLAUSE_END = re.compile(r"(?<=[。！？；;，,!?|])|(?<=\.)(?=\s)|\n")


def bound_clauses(block: str, arxiv_id: str, ids: frozenset[str]) -> str:
    """The clauses of `block` that speak of `arxiv_id`, when the block names other papers too.

    A clause naming papers speaks of them; a clause naming none speaks of the paper named last
    before it (prose goes on about the paper it just named), or before any is named, of the first
    named after it. So "A 已在 rag.md 锚定；B inference.md 还没有，交给 inference" binds the anchoring
    to A and the hand-over to B, in a list item, a table cell or a paragraph alike."""
    bound = _bound_by_id(block, ids)
    return block if bound is None else bound.get(arxiv_id, "")


@lru_cache(maxsize=4096)
def _bound_by_id(block: str, ids: frozenset[str]) -> dict[str, str] | None:
    """Per id, the clauses of `block` bound to it, joined (None: the block names fewer than two
    papers, so all of it speaks of its paper). Made once per block, not once per id it names: a
    digest line naming n ids would otherwise be split and searched n times."""
    clauses = [c for c in _CLAUSE_END.split(block) if c.strip()]
    names = [ids_named(c, ids) for c in clauses]
    if sum(bool(n) for n in names) < 2 and len(set().union(*names)) < 2:
        return None
    kept: dict[str, list[str]] = {}
    last: frozenset[str] = next((n for n in names if n), frozenset())
    for clause, named in zip(clauses, names, strict=True):
        last = named or last
        for arxiv_id in last:
            kept.setdefault(arxiv_id, []).append(clause.strip())
    return {arxiv_id: " ".join(parts) for arxiv_id, parts in kept.items()}


def _split_heading(entry: EntryView) -> tuple[str, str]:
    """(enclosing section headings, own heading) of a note entry."""
    parts = entry.heading.split(PATH_SEP) if entry.heading else []
    if entry.title is not None and parts:
        return PATH_SEP.join(parts[:-1]), parts[-1]
    return PATH_SEP.join(parts), ""


def _note_text(arxiv_id: str, mention: MentionView, entry: EntryView | None,
               context: re.Pattern[str]) -> OwnText | None:
    """The paper's own text in a note entry; None when the entry names it only as what another
    paper is compared with (a later cell of that paper's row, a "compared with X" in its item)."""
    if entry is None:
        return OwnText(mention.path, "", mention.context)
    sections, heading = _split_heading(entry)
    known = entry.ids_with(arxiv_id)
    if mention.context.lstrip().startswith("|"):
        if not _keyed(arxiv_id, mention.context, known):
            return None
        return OwnText(mention.path, f"{sections}\n{heading}", mention.context, listed=True)
    named = _named_blocks(entry.text, entry.outline.blocks if entry.outline else (), known)
    if len(known) == 1:
        return OwnText(mention.path, sections, "\n".join([heading, *named.blocks]))
    in_heading = ids_named(heading, known)
    # A heading naming it only as a comparison ("SpecLite: faster than Hydra (arXiv:…)") is another paper's.
    headed = arxiv_id in ids_named(without_context(context, heading), known)
    # Its own blocks, and under a heading that names it, the blocks that name no paper at all; of a
    # block that names other papers too, only the clauses written next to this one.
    chosen = set(named.by_id.get(arxiv_id, ())) | (set(named.unnamed) if headed else set())
    mine = [bound_clauses(named.blocks[k], arxiv_id, known) for k in sorted(chosen)]
    if not headed and (arxiv_id in in_heading or chosen) and \
            not any(arxiv_id in _named_outside_context(block, known, context) for block in mine):
        return None  # the entry names it only as another paper's baseline or contrast
    if not headed and not in_heading - {arxiv_id}:
        sections = f"{sections}\n{heading}"  # a list's heading ("训练侧（不进 inference）") speaks for every item
    return OwnText(mention.path, sections, "\n".join([heading if headed else "", *mine]).strip("\n"), listed=not headed)


@lru_cache(maxsize=4096)
def _named_outside_context(block: str, known: frozenset[str], context: re.Pattern[str]) -> frozenset[str]:
    """The ids `block` names other than as a comparison. Once per block, not once per id it names:
    a digest line naming n papers is every one's own text, and reading it n times is quadratic."""
    return ids_named(without_context(context, block), known)


def _keyed(arxiv_id: str, rows: str, known: frozenset[str]) -> bool:
    """Some table row of `rows` naming the paper has it among its key cells' ids, or has no key:
    a row keyed by another paper names this one only as what it is compared with."""
    named = [row for row in rows.split("\n") if arxiv_id in ids_named(row, known)]
    keys = [row_key_ids(row, lambda cell: sorted(ids_named(cell, known))) for row in named]
    return not named or any(not key or arxiv_id in key for key in keys)


def entry_own_text(entry: EntryView) -> OwnText:
    """A note entry about one thing without an arXiv id (a system, a release): its heading and body
    are its own text; the headings of the sections it sits in are kept apart."""
    sections, heading = _split_heading(entry)
    return OwnText(entry.path, sections, f"{heading}\n{entry.text}".strip("\n"))


def own_texts(arxiv_id: str, mentions: Sequence[MentionView], entries: dict[tuple[int, int], EntryView],
              context: re.Pattern[str]) -> Iterator[OwnText]:
    """The paper's own text in each distinct context that names it (`context`: `compared.context_pattern`;
    a context naming it only as another paper's comparison has none)."""
    seen: set[tuple[int, int, str]] = set()
    for m in mentions:
        key = (m.source_id, m.item_ordinal, m.context if m.context.lstrip().startswith("|") else "")
        if key in seen:
            continue
        seen.add(key)
        if m.kind in ("paper_card", "work_queue") or m.path.startswith(("http://", "https://")):
            yield OwnText(m.path, "", m.context, note=False)
        else:
            text = _note_text(arxiv_id, m, entries.get((m.source_id, m.item_ordinal)), context)
            if text is not None:
                yield text


def preambles(mentions: Sequence[MentionView], entries: dict[tuple[int, int], EntryView]) -> list[OwnText]:
    """The preambles (text before the first heading, naming no paper) of the notes that name a paper."""
    out = []
    for source_id in sorted({m.source_id for m in mentions if m.kind not in ("paper_card", "work_queue")}):
        first = entries.get((source_id, 0))  # a preamble is a note's first entry
        if first is not None and first.label == "preamble" and not first.ids:
            out.append(OwnText(first.path, "", first.text))
    return out


def echo_paths(entries: Sequence[EntryView], j: Judgment) -> set[str]:
    """Notes that are published briefings: laid out in a briefing's numbered sections
    (`tasks.judge.echoes.laid_out`), or holding `[notes] briefing_markers` in an entry or the note's
    title (which no entry holds). They restate what earlier windows judged, so their mentions are
    not evidence of anything new."""
    markers = j.words("notes", "briefing_markers")
    headings: dict[str, set[str]] = defaultdict(set)
    for e in entries:
        headings[e.path].add(e.heading)
    # found_word keeps its answers per text: every window asks this of the same lookback entries.
    return {e.path for e in entries
            if any(found_word(markers, t) is not None for t in (e.text, e.heading, e.note_title) if t)
            } | {path for path, held in headings.items() if _laid_out(frozenset(held))}


@lru_cache(maxsize=4096)
def _laid_out(headings: frozenset[str]) -> bool:
    return laid_out(headings)


def _slug_tokens(path: str) -> list[str]:
    name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    return [t for t in re.split(f"[^a-z0-9{CJK_RANGE}]+", name) if t]


@lru_cache(maxsize=4096)
def note_topics(path: str, j: Judgment, topics: tuple[TopicTerms, ...]) -> tuple[tuple[str, str], ...]:
    """(topic, kind) for each topic a note's file name names: note_for_topic in an E1 prep note,
    note_names_topic otherwise. Multi-word names ("llm-infra") match as consecutive tokens."""
    tokens = _slug_tokens(path)
    joined = "-" + "-".join(tokens) + "-"
    markers = {m.lower() for m in j.words("notes", "prep_markers")}
    prep = any(t in markers for t in tokens)
    named = [t.name for t in topics
             if any("-" + "-".join(_slug_tokens(n)) + "-" in joined for n in t.names if _slug_tokens(n))]
    kind = "note_for_topic" if prep else "note_names_topic"
    return tuple((name, kind) for name in named)
