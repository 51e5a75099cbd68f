"""Anchored papers a window entry is about by name only (a follow-up headed "FlashDecode-3 at larger
batches" with no id): the knowledge document gives each anchored paper a name, and an entry whose
heading names that paper's thing cites it, so the briefing says when and where it was anchored.

Only papers anchored in the body as of the cutoff are named this way (a name the document gives
later does not exist for the evening), only from notes that are not echoes, and only when the
window names no id for the paper: an id is what places a paper in an entry, and a note naming by
name a paper others give by id adds no source to it. A name passing inside an entry about something
else ("与 QATFactory 交叉") is context, not what the entry is about, so only the heading is read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping

from tasks.common.arxiv_ids import find_ids
from tasks.config.judgment import Judgment
from tasks.knowledge.parse import AnchorStatus
from tasks.model.window_views import NOTE_KINDS, EntryView, MentionView, WindowData
from tasks.verify.markers import markers_of
from tasks.verify.names import names_of
from tasks.verify.subjects import heading_thing
from tasks.window.titles import anchor_name


def _names(data: WindowData, anchors: Mapping[str, AnchorStatus], skip: Collection[str],
           j: Judgment) -> dict[str, dict[str, str]]:
    """Distinctive word -> {anchored id: its name} over the body names of papers anchored by the
    cutoff that the window gives no id for (an index: a window's headings are not compared with
    every anchor of a large document)."""
    day, nm = data.window.cutoff_local.date(), names_of(j)
    index: dict[str, dict[str, str]] = defaultdict(dict)
    for anchor in data.knowledge.anchors if data.knowledge else ():
        status = anchors.get(anchor.arxiv_id)
        if (anchor.arxiv_id in skip or status is None or status.status != "already_anchored"
                or anchor.reference_only or anchor.anchored_on is None or anchor.anchored_on > day):
            continue
        name = anchor_name(anchor, j)
        for word in nm.distinctive(name or ""):
            index[word].setdefault(anchor.arxiv_id, name or "")
    return index


def named_anchored(data: WindowData, anchors: Mapping[str, AnchorStatus], skip: Collection[str],
                   echoes: Collection[str], j: Judgment) -> dict[str, list[MentionView]]:
    """Anchored id -> a mention per window entry whose heading names it (`skip`: ids the window
    names; `echoes`: paths of pasted briefings). A heading that names two anchored papers alike
    names neither."""
    index = _names(data, anchors, skip, j)
    if not index:
        return {}
    m, nm = markers_of(j), names_of(j)
    out: dict[str, list[MentionView]] = defaultdict(list)
    for entry in data.entries:
        if entry.kind not in NOTE_KINDS or entry.path in echoes or find_ids(entry.heading):
            continue
        thing = heading_thing(m, entry.title)
        if thing is None:
            continue
        near = {i: name for word in nm.distinctive(thing) for i, name in index.get(word, {}).items()}
        hits = [(i, name) for i, name in near.items() if nm.same_thing(thing, name)]
        if len(hits) == 1:
            out[hits[0][0]].append(_mention(entry, hits[0][0], hits[0][1], data))
    return dict(out)


def _mention(entry: EntryView, arxiv_id: str, name: str, data: WindowData) -> MentionView:
    return MentionView(
        source_id=entry.source_id, path=entry.path, kind=entry.kind, item_ordinal=entry.ordinal,
        label=entry.label, heading=entry.heading, title=entry.title, arxiv_id=arxiv_id, raw=name,
        malformed=False, context=(entry.title or "")[:300], item_time=entry.item_time or data.window.end,
    )
