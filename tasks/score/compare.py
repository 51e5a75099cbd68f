"""One briefing's JSON twin against one labelled evening: precision and recall per category.

A figure is 1.0 where nothing could be wrong: precision with nothing reported, recall with nothing
labelled. Every difference is kept, as (category, what, item), for the report. What each category
compares:
- net_new, adjacent, already_anchored, reference_list_only, malformed: the sets of ids (raw forms);
- off_topic ("kept out"): recall, the labelled off-topic ids not reported NET-new (🟡 adjacent is
  holding back, not a claim of newness); precision, our off-topic ids the label places nowhere in the topic;
- sources: recall of the labelled sources checked; precision, the share of ours that are a window
  note of the label or a file of `organized/` (reading a card or the queue is never wrong);
- multi_source: (id, path) pairs over the notes and cards naming each labelled id;
- pending, engineering: items matched by name, one to one (a second item with the same name
  counts against precision); density: equal or not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from tasks.score.expected import IncrementLabel, Label, PendingLabel
from tasks.verify.names import normalise

# Categories in report order; `density` is 1.0 or 0.0.
CATEGORIES = ("net_new", "adjacent", "already_anchored", "reference_list_only", "off_topic", "sources",
              "malformed", "multi_source", "pending", "engineering", "density")
NAME_MATCH = 80  # rapidfuzz token-set ratio at which a name without `match` terms counts as the same
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Figure:
    precision: float
    recall: float
    missing: tuple[str, ...] = ()  # labelled, not reported
    extra: tuple[str, ...] = ()  # reported, not labelled (or reported wrongly)


@dataclass
class EveningScore:
    key: str
    figures: dict[str, Figure] = field(default_factory=dict)
    # For each wrongly placed paper: its status, the decision and the evidence the briefing gives.
    papers: dict[str, dict[str, Any]] = field(default_factory=dict)

    def value(self, name: str) -> float:
        """`net_new.precision`, `net_new.recall`, or `net_new` (the lower of the two)."""
        category, _, metric = name.partition(".")
        figure = self.figures[category]
        return min(figure.precision, figure.recall) if not metric else float(getattr(figure, metric))


def _ratio(hits: int, total: int) -> float:
    return 1.0 if total == 0 else hits / total


def set_figure(ours: Iterable[str], labelled: Iterable[str]) -> Figure:
    mine, theirs = set(ours), set(labelled)
    return Figure(_ratio(len(mine & theirs), len(mine)), _ratio(len(mine & theirs), len(theirs)),
                  tuple(sorted(theirs - mine)), tuple(sorted(mine - theirs)))


def matched_figure(ours: list[str], labelled: list[str], same: Callable[[int, int], bool]) -> Figure:
    """Each labelled item is met by at most one of ours (the first unused that matches); another of
    ours that matches an item already met is a duplicate, and counts against precision."""
    used: set[int] = set()
    met: set[int] = set()
    for j in range(len(labelled)):
        for i in range(len(ours)):
            if i not in used and same(i, j):
                used.add(i)
                met.add(j)
                break
    extra = tuple(ours[i] + (" (raised twice)" if any(same(i, j) for j in met) else "")
                  for i in range(len(ours)) if i not in used)
    return Figure(_ratio(len(used), len(ours)), _ratio(len(met), len(labelled)),
                  tuple(labelled[j] for j in range(len(labelled)) if j not in met), extra)


def _fold(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


def _same_name(ours: str, theirs: str) -> bool:
    return fuzz.token_set_ratio(normalise(ours), normalise(theirs)) >= NAME_MATCH


def _ids(doc: dict[str, Any], *statuses: str) -> set[str]:
    found = {c["arxiv_id"] for c in doc.get("citations") or [] if c.get("status") in statuses}
    found |= {i["arxiv_id"] for i in doc.get("increments") or [] if i.get("arxiv_id") and i.get("status") in statuses}
    return found


def pending_matches(item: dict[str, Any], label: PendingLabel) -> bool:
    """An item is the labelled subject when its subject or title holds one of the accepted names
    (never its claim), or, for a label without names, when its subject or title is that subject."""
    named = _fold(f"{item.get('subject') or ''} \n {item.get('title') or ''}")
    if label.match:
        return any(name in named for name in label.match)
    return any(_same_name(str(item.get(k) or ""), label.subject) for k in ("subject", "title"))


def increment_matches(item: dict[str, Any], label: IncrementLabel) -> bool:
    title = _fold(str(item.get("title") or ""))
    if label.all_terms or label.any_terms:
        return all(t in title for t in label.all_terms) and (not label.any_terms or any(t in title for t in label.any_terms))
    return _same_name(title, label.name)


def _pending_items(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [v for v in doc.get("verifications") or [] if v.get("status") in ("pending", "stale")]


def _described(item: dict[str, Any]) -> str:
    return str(item.get("subject") or item.get("title") or item.get("key") or "?")


def score_evening(doc: dict[str, Any], label: Label) -> EveningScore:
    score = EveningScore(label.key)
    figures = score.figures
    for category in ("net_new", "adjacent", "already_anchored", "reference_list_only"):
        wanted = label.ids.get(category)
        if wanted is not None:
            figures[category] = set_figure(_ids(doc, category), wanted)
    off = label.ids.get("off_topic")
    if off is not None:
        # Kept out: a labelled off-topic id is never reported NET-new; and what we call off-topic
        # is not an id the label places in the topic.
        reported_in = _ids(doc, "net_new")
        ours_off = {o["arxiv_id"] for o in doc.get("off_topic") or []}
        wrong_in, wrong_out = off & reported_in, ours_off & label.labelled_in_topic
        figures["off_topic"] = Figure(_ratio(len(ours_off - wrong_out), len(ours_off)),
                                      _ratio(len(off - wrong_in), len(off)), tuple(sorted(wrong_in)),
                                      tuple(sorted(wrong_out)))
    if label.sources_checked is not None:
        ours = {s["path"] for s in doc.get("sources") or []}
        full = set_figure(ours, label.sources_checked)
        # Reading a window file the hand-written briefing left out, or a card, is not wrong.
        allowed = {p for p in ours if p.startswith("organized/")} | label.sources_checked | (label.window_files or frozenset())
        figures["sources"] = Figure(_ratio(len(ours & allowed), len(ours)), full.recall, full.missing,
                                    tuple(sorted(ours - allowed)))
    if label.malformed is not None:
        figures["malformed"] = set_figure({m["raw"] for m in doc.get("malformed") or []}, label.malformed)
    if label.multi_source is not None:
        # Labels count the notes and cards naming a paper, not the work queue.
        cited = {c["arxiv_id"]: c for c in [*(doc.get("off_topic") or []), *(doc.get("citations") or [])]}
        ours_pairs = {f"{i} {p}" for i in label.multi_source for p in (cited.get(i) or {}).get("sources") or []
                      if not p.startswith("organized/queue/")}
        figures["multi_source"] = set_figure(ours_pairs, {f"{i} {p}" for i, ps in label.multi_source.items() for p in ps})
    if label.pending is not None:
        items, wanted_pending = _pending_items(doc), list(label.pending)
        figures["pending"] = matched_figure([_described(v) for v in items], [p.subject for p in wanted_pending],
                                            lambda i, j: pending_matches(items[i], wanted_pending[j]))
    if label.engineering is not None:
        incs = [i for i in doc.get("increments") or [] if i.get("status") == "engineering"]
        wanted_eng = list(label.engineering)
        figures["engineering"] = matched_figure([_described(i) for i in incs], [e.name for e in wanted_eng],
                                                lambda i, j: increment_matches(incs[i], wanted_eng[j]))
    if label.density is not None:
        ours_density = str(doc.get("density"))
        same = float(ours_density == label.density)
        figures["density"] = Figure(same, same, () if same else (label.density,), () if same else (ours_density,))
    score.papers = _wrong_papers(doc, figures)
    return score


def _wrong_papers(doc: dict[str, Any], figures: dict[str, Figure]) -> dict[str, dict[str, Any]]:
    """The briefing's own account (status, decision, reason, evidence) of every id placed wrongly."""
    wrong = {x for name in ("net_new", "adjacent", "already_anchored", "reference_list_only", "off_topic")
             if name in figures for x in (*figures[name].missing, *figures[name].extra)}
    found: dict[str, dict[str, Any]] = {}
    for entry in [*(doc.get("citations") or []), *(doc.get("off_topic") or []), *(doc.get("increments") or [])]:
        arxiv_id = entry.get("arxiv_id")
        if arxiv_id in wrong and arxiv_id not in found:
            found[arxiv_id] = {"status": entry.get("status", "off_topic"), "decision": entry.get("decision"),
                               "reason": entry.get("reason"), "evidence": list(entry.get("evidence") or [])}
    return {i: found.get(i, {"status": "not in the briefing"}) for i in sorted(wrong)}
