"""Releases listed beside a paper: the top-level items of an entry that is about a paper only by its
first item, each a candidate of its own when it leads with a name and says that thing was released.

Candidates are whole entries, and an entry about a paper is none. But a note's tree says what a
line is about: an item nested under a paper's item, or under a heading that names the paper, is
the paper's; a sibling item under a heading that names nothing ("Systems") is a thing of its own.
So "2) Relay v1.0, an open-source request router …, was released on 2026-11-10" after "1) ShardKV
(arXiv:…)" is a release, not part of ShardKV. Only releases: a sibling item that names no release
is read as the note's remark about the papers around it (a baseline, a comparison, a caveat).
"""

from __future__ import annotations

import dataclasses
import re

from tasks.common.arxiv_ids import find_ids
from tasks.config.judgment import Judgment
from tasks.judge.statements import found_word
from tasks.model.outline import Outline, OutlineItem
from tasks.model.window_views import EntryView
from tasks.verify.names import names_of

# Where the name an item leads with ends: a clause separator, or a spaced dash.
_CLAUSE = re.compile(r"[,，:：;；(（「]|\s[—–-]{1,2}\s")
# A word that can be part of a name: capitalised, coined (a digit or an inner capital), a version, or CJK.
_NAME_WORD = re.compile(r"^(?:[A-Z0-9]|v\d|[^\x00-\x7f])|^[a-z]+[A-Z0-9]")


def _leading_name(head: str, j: Judgment) -> str | None:
    """The name an item leads with ("Relay v1.0, an open-source router …" -> "Relay v1.0"): its
    first clause up to the first plain lower-case word or release word; None unless that names a thing."""
    words: list[str] = []
    release = j.words("engineering", "release")
    for word in _CLAUSE.split(head, maxsplit=1)[0].split():
        if not _NAME_WORD.match(word) or found_word(release, word):
            break
        words.append(word)
    name = " ".join(words).strip(" *·-—.。")
    nm = names_of(j)
    return name if name and nm.is_name(name) and nm.distinctive(name) else None


def release_parts(entry: EntryView, j: Judgment) -> list[EntryView]:
    """The top-level items of `entry` that name no arXiv id, lead with a name and say it was
    released (`[engineering] release` words in the item's own line), each as an entry of its own:
    the item's lines, hedges and numbers, titled by that name (see the module docstring)."""
    outline = entry.outline
    if outline is None or not outline.items:
        return []
    tops = [(start, end) for start, end, _, parent in outline.tree if parent == -1]
    if len(tops) != len(outline.items):
        return []  # the stored tree and items disagree: read nothing rather than the wrong lines
    lines = entry.text.split("\n")
    out: list[EntryView] = []
    for item, (start, end) in zip(outline.items, tops, strict=True):
        text = "\n".join(lines[start:end])
        name = _leading_name(item.head, j)
        if name is None or find_ids(text) or not found_word(j.words("engineering", "release"), item.head):
            continue
        out.append(_part(entry, item, name, text, start, end))
    return out


def _part(entry: EntryView, item: OutlineItem, name: str, text: str, start: int, end: int) -> EntryView:
    inside = "\n".join((item.head, *item.children))
    return dataclasses.replace(
        entry, title=name, text=text, ids=(), outline=Outline(items=(item,)), paper_outlines=None,
        hedges=tuple(h for h in entry.hedges if start <= int(h.get("line", -1)) < end),
        numbers=tuple(n for n in entry.numbers if str(n.get("context", "")) in inside),
        front_matter=(), note_title=None, echoed="",
    )
