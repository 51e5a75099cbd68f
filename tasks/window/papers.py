"""Judge a collected window for one topic: one paper per arXiv id, its status, name, points and history."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from functools import lru_cache

from tasks.common.limits import SourceBudgets, Unit, unbounded
from tasks.config.topics import Topic
from tasks.judge.echoes import without_summaries
from tasks.judge.evidence import decision_text, judge_ownership
from tasks.judge.own_text import echo_paths
from tasks.judge.points import key_points
from tasks.judge.relevance import Verdict
from tasks.model.judged import EntryRef, Paper
from tasks.model.window_views import EntryView, MentionView, SourceView, WindowData
from tasks.verify.markers import Markers, markers_of
from tasks.window.anchors import anchors_as_of
from tasks.window.named import named_anchored
from tasks.window.titles import (
    clean_title as clean_title,  # re-exported: engineering names its increments with it
)
from tasks.window.titles import title_for

STATUS_ORDER = {"net_new": 0, "engineering": 1, "adjacent": 2, "already_anchored": 3, "reference_list_only": 4,
                "off_topic": 5}


def ids_per_item(data: WindowData) -> dict[tuple[int, int], set[str]]:
    """The ids each entry of the window names (once per window: a paper's title asks it of its entries)."""
    out: dict[tuple[int, int], set[str]] = defaultdict(set)
    for m in data.mentions:
        if m.arxiv_id:
            out[(m.source_id, m.item_ordinal)].add(m.arxiv_id)
    return out


@lru_cache(maxsize=1024)  # asked once per paper of an entry: a digest's entry names hundreds
def stars(text: str, m: Markers) -> int:
    """The ⭐ self-rating an entry gives itself (0 when none)."""
    return max((len(hit.group(1)) for hit in m.stars.finditer(text)), default=0)


def sources_by_path(data: WindowData) -> dict[str, SourceView]:
    """The window's sources by path (a later one of a path wins), built once per window for `origins`."""
    return {s.path: s for s in data.sources}


def origins(paths: list[str], by_path: Mapping[str, SourceView]) -> int:
    """Independent origins among source paths: distinct authors; cards and the queue count once each.
    `by_path`: `sources_by_path` of the window, built once (per paper, it made judging a window
    quadratic in its sources)."""
    found = set()
    for path in paths:
        source = by_path.get(path)
        kind = source.kind if source else "note"
        found.add(kind if kind in ("paper_card", "work_queue") else (source.author if source and source.author else path))
    return len(found)


def split_points(points: list[str], topic: str) -> tuple[list[str], list[str]]:
    """(key points, relation lines): lines naming a document section or the document are relations;
    a bare lead-in ("做了什么：") is neither."""
    relation = [p for p in points if "§" in p or f"{topic}.md" in p]
    kept = [p for p in points if p not in relation and not p.rstrip().endswith(("：", ":"))]
    return kept, relation


def _path(m: MentionView) -> str:
    return m.path


def _pending(by_id: dict[str, list[MentionView]], budgets: SourceBudgets) -> Iterator[tuple[str, list[MentionView]]]:
    """Each paper with its mentions by sources not cut by the time it is reached; one only cut
    sources name is left undone, a unit of the source naming it first (`SourceBudgets.skip`)."""
    for arxiv_id, mentions in by_id.items():
        kept = budgets.kept(mentions, _path)
        if kept:
            yield arxiv_id, kept
        else:
            budgets.skip(mentions[0].path)


def _first_named(paper: tuple[str, list[MentionView]]) -> Unit:
    """A paper is a unit of work of the entry that names it first."""
    first = paper[1][0]
    return first.path, first.item_ordinal


def judge_window(
    data: WindowData, topic: Topic, budgets: SourceBudgets | None = None,
) -> list[Paper]:
    """One Paper per canonical id mentioned in the window, sorted by status then first appearance.

    Each (topic, day) is judged once per run: the stages pass the result along (`Judged`), so there
    is no process-wide memo to go stale or to hold a large window twice. Judging a paper is a unit
    of the budget of the source naming it first (`budgets`); a source found spent names no paper
    judged after that, and a paper only it names is not judged."""
    budgets = budgets or unbounded()
    by_id: dict[str, list[MentionView]] = defaultdict(list)
    echoed: dict[str, list[MentionView]] = defaultdict(list)
    echoes = echo_paths(data.entries, topic.judgment)
    markers = markers_of(topic.judgment)
    for m in sorted(data.mentions, key=lambda m: (m.item_time, m.path, m.item_ordinal)):
        if m.arxiv_id and not m.malformed:
            (echoed if m.path in echoes else by_id)[m.arxiv_id].append(m)
    entries: dict[tuple[int, int], EntryView] = {(e.source_id, e.ordinal): e for e in data.entries}
    anchors = anchors_as_of(data.knowledge, data.window.cutoff_local.date())
    named = named_anchored(data, anchors, by_id.keys(), echoes, topic.judgment)
    by_id.update(named)
    papers: list[Paper] = []
    per_item = ids_per_item(data)
    by_path = sources_by_path(data)
    # Lazy: a source cut while judging one paper drops out of the papers after it.
    for arxiv_id, mentions in budgets.each(_pending(by_id, budgets), "papers", _first_named):
        ownership = judge_ownership(arxiv_id, mentions, entries, data, topic, echoed.get(arxiv_id, ()))
        verdict, reason = ownership.verdict, ownership.reason
        anchor = anchors.get(arxiv_id)
        if anchor is not None:
            status: str = anchor.status
        elif verdict is Verdict.RELEVANT:
            status = "net_new"
        elif verdict is Verdict.ADJACENT:
            status = "adjacent"
        else:
            status = "off_topic"
        sources = list(dict.fromkeys(m.path for m in mentions))
        # A paper named only by name takes the name its sources give it, not the headings naming it.
        titled = [] if arxiv_id in named else mentions
        title = title_for(arxiv_id, titled, data, per_item, topic.judgment)
        lookup = data.lookups.get(arxiv_id)
        given = title_for(arxiv_id, titled, data, per_item, topic.judgment, use_lookup=False) if lookup and lookup.title else title
        own = key_points(arxiv_id, title, mentions, entries, topic.name, topic.judgment)
        cards = data.cards.get(arxiv_id, [])
        days = data.mention_days.get(arxiv_id, ())
        texts = [entries[(m.source_id, m.item_ordinal)].text for m in mentions if (m.source_id, m.item_ordinal) in entries]
        papers.append(Paper(
            arxiv_id=arxiv_id, title=title, given_title=given, status=status, reason=reason,
            sources=sources, entries=list(dict.fromkeys(EntryRef(m.path, m.label, m.heading) for m in mentions)),
            anchored_on=anchor.anchored_on if anchor else None, cited_on=anchor.cited_on if anchor else None,
            sections=anchor.sections if anchor else (), key_points=own.points, key_points_cut=own.cut,
            thesis=own.thesis, headline=own.headline,
            hedges=[h for m in mentions for h in m.hedges if m.arxiv_id == arxiv_id],
            primary=cards[0].primary if cards else None,
            votes=max((c.votes for c in cards if c.votes is not None), default=None),
            first_seen=days[0] if days else None, days_seen=len(days),
            credibility=max((stars(t, markers) for t in texts), default=0), independent=origins(sources, by_path),
            relation=own.relation[:3], hint_texts=[without_summaries(m.context) for m in mentions if m.kind not in ("paper_card", "work_queue")],
            evidence=tuple(ownership.evidence), owner=ownership.owner,
            decision=decision_text(verdict, topic.name), scores=ownership.scores,
        ))
    papers.sort(key=lambda p: (STATUS_ORDER[p.status], -len(p.sources), p.sources[0], p.arxiv_id or ""))
    return papers
