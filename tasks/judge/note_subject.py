"""What a note is about as a whole: the topic several of its blocks are plainly about.

A careful reader takes a paper that a note lists in one line or table row as the note's topic's
when the note as a whole is about that topic (a reading group's papers on serving, a table of this
week's KV-cache papers: other lines of it are plainly the topic's) and the paper's own line says
something of it; a digest of mixed topics ("HF Daily …；无 inference 主轴"), or of one topic word a
line, has no subject, so its lines are read by their own words alone.
The note's subject is a weak piece of evidence (`[weights] note_about_topic`): a declared category
or a statement still decides before it (`tasks.judge.evidence.decide`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from functools import lru_cache

from tasks.config.judgment import Judgment, TopicTerms
from tasks.inbox.segment import PATH_SEP
from tasks.judge.own_text import OwnText
from tasks.judge.terms import vocabulary
from tasks.model.judged import Evidence
from tasks.model.outline import Outline
from tasks.model.window_views import EntryView

# A note's blocks by its first entry, kept with it: every paper the note lists asks for them, and
# reading a digest of n entries once per paper costs n². Holding the entry keeps its id unique.
_BLOCKS: OrderedDict[int, tuple[EntryView, tuple[str, ...]]] = OrderedDict()
_BLOCKS_KEPT = 64


def note_blocks(source_id: int, entries: Mapping[tuple[int, int], EntryView]) -> tuple[str, ...]:
    """The headings, blocks (list items, paragraphs) and table rows of a note's entries, each once
    (a note's entries are numbered from 0; a pasted briefing summary is already cut from them)."""
    first = entries.get((source_id, 0))
    kept = _BLOCKS.get(id(first))
    if kept is not None and kept[0] is first:
        return kept[1]
    blocks = _read_blocks(source_id, entries)
    if first is not None:
        _BLOCKS[id(first)] = (first, blocks)
        while len(_BLOCKS) > _BLOCKS_KEPT:
            _BLOCKS.popitem(last=False)
    return blocks


def _read_blocks(source_id: int, entries: Mapping[tuple[int, int], EntryView]) -> tuple[str, ...]:
    out: list[str] = []
    k = 0
    while (entry := entries.get((source_id, k))) is not None:
        k += 1
        lines, tree = entry.text.split("\n"), entry.outline or Outline()
        out += entry.heading.split(PATH_SEP)
        out += ["\n".join(lines[a:b]) for a, b in tree.blocks]
        out += [line for a, b in tree.rows for line in lines[a:b]]
    return tuple(dict.fromkeys(b for b in out if b.strip()))


@lru_cache(maxsize=1024)
def note_subject(blocks: tuple[str, ...], topics: tuple[TopicTerms, ...], j: Judgment) -> tuple[str, int] | None:
    """(topic, how many blocks are plainly its) when at least `[weights] note_subject_blocks` of the
    note's blocks are plainly one topic's (`note_subject_terms` of its distinct terms each), more
    than are plainly any other topic's; None for a note of mixed topics, or of one word a line.
    Found once per note, not once per paper it lists."""
    plain = sorted(((sum(len(vocabulary(t.terms).hits(b)) >= j.weight("note_subject_terms") for b in blocks), t.name)
                    for t in topics), reverse=True)
    if not plain or plain[0][0] < j.weight("note_subject_blocks") or (len(plain) > 1 and plain[1][0] == plain[0][0]):
        return None
    return plain[0][1], plain[0][0]


def subject_evidence(text: OwnText, found: Sequence[Evidence], source_id: int | None,
                     entries: Mapping[tuple[int, int], EntryView], j: Judgment,
                     topics: tuple[TopicTerms, ...]) -> list[Evidence]:
    """The note's subject as evidence about a paper whose own text in the note (`found`: that
    text's evidence) has the subject's vocabulary; nothing for a card, the queue or a note of no subject."""
    worded = {e.topic for e in found if e.kind == "vocabulary"}
    if not text.note or source_id is None or not worded:
        return []
    subject = note_subject(note_blocks(source_id, entries), topics, j)
    if subject is None or subject[0] not in worded:
        return []
    name, blocks = subject
    return [Evidence(text.path, "note_about_topic", name, j.weight("note_about_topic"), f"{blocks} blocks")]
