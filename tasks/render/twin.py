"""The briefing's machine-readable twin (satisfies briefing.schema.json; extra keys are additive)."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from tasks.common.jsontext import json_text
from tasks.common.urls import defang_plain
from tasks.model.judged import BriefingContent, Paper, SourceCheck, StatusAsOf
from tasks.render.labels import LABELS, feed_problem_text, reader_notes_text, reason_text, rule_text
from tasks.render.merge_plan import knowledge_merge, merge_placement
from tasks.render.sources_table import credibility_rule


def _local(moment: dt.datetime | None, tz: str) -> str | None:
    return moment.astimezone(ZoneInfo(tz)).isoformat() if moment else None


def _day(value: dt.date | None) -> str | None:
    return value.isoformat() if value else None


def _increment(p: Paper, rank: int, L: dict[str, str]) -> dict[str, Any]:
    return {
        "rank": rank,
        "arxiv_id": p.arxiv_id,
        "item_key": p.arxiv_id or p.item_key,
        "title": p.title,
        "status": p.status,
        "sources": p.sources + p.mentioned_in,
        "primary_sources": p.sources,
        "mentioned_in": p.mentioned_in,
        "entries": [{"path": e.path, "label": e.label, "heading": e.heading} for e in p.entries],
        "suggested_section": p.suggested_section,
        "section_basis": p.section_basis or None,
        "neighbours": list(p.neighbours),
        "key_points": p.key_points,
        "key_points_cut": p.key_points_cut,
        "relation": p.relation,
        "hedged": bool(p.hedges),
        "primary_category": p.primary,
        "votes": p.votes,
        "credibility": p.credibility,
        "independent_sources": p.independent,
        "first_seen": _day(p.first_seen),
        "days_seen": p.days_seen,
        "earlier_sources": p.earlier_sources,
        "merge": merge_placement(p),
        **_judged(p, L),
    }


def _judged(p: Paper, L: dict[str, str]) -> dict[str, Any]:
    """Why the paper has its status: the decision for this topic, the topic it rests on, the reason
    (worded), every topic's total and every piece of evidence."""
    return {"owner": p.owner, "decision": p.decision, "topic_scores": dict(p.scores), "reason": reason_text(p.reason, L),
            "evidence": [e.as_dict() for e in p.evidence]}


def _highlight(content: BriefingContent) -> dict[str, Any] | None:
    """The 最高价值条目 and the parts of its one-line reason (section 五)."""
    h = content.highlight
    if h is None:
        return None
    return {"title": h.title, "arxiv_id": h.arxiv_id, "status": h.status, "sources": h.sources,
            "independent": h.independent, "thesis": h.thesis, "headline": h.headline}


def _off_topic(p: Paper, L: dict[str, str]) -> dict[str, Any]:
    """An other topic's paper, with why: a judgment left empty (no owner, no score, no evidence) is
    left out, so a dump of thousands of unknown ids costs the twin a few fields per id."""
    judged = {k: v for k, v in _judged(p, L).items() if v or k in ("decision", "reason")}
    return {"arxiv_id": p.arxiv_id, "title": p.title, "sources": p.sources, **judged}


def _verification(v: StatusAsOf) -> dict[str, Any]:
    return {
        "key": v.key, "kind": v.kind, "subject": v.subject, "title": v.title, "claim": v.claim, "marker": v.marker,
        "status": v.status, "raised_on": v.raised_on.isoformat(), "last_seen": v.last_seen.isoformat(),
        "age_days": v.age_days, "sources": list(v.sources), "resolved_on": _day(v.resolved_on),
        "evidence": v.evidence, "resolved_by": v.resolved_by, "advice": v.advice or None, "risk": v.risk or None,
        "seen_in_window": v.seen_in_window, "keys": list(v.keys or (v.key,)),
        "kinds": list(v.kinds or (v.kind,)), "item_key": v.item_key,
        "confirmed_by": v.confirmed_by or None, "confirmed_on": v.confirmed_on or None,
    }


FOLLOW_UP_SHOWN = 6  # advice lines section 五 shows; the rest are counted


def follow_up(content: BriefingContent) -> dict[str, Any]:
    """下次跟进重点: the open items' own 建议, newest first (last seen, then raised; section 三's order
    among equals), this window's items as "T<n>" and earlier ones as "earlier"; how many open items
    there are and how many of them give no advice. Nothing is written for an item whose sources
    give no advice."""
    listed = [(f"T{k}", v) for k, v in enumerate(content.verifications, 1)]
    listed += [("", v) for v in content.earlier_verifications]
    open_items = [(ref, v) for ref, v in listed if v.status != "resolved"]
    ordered = sorted(open_items, key=lambda item: (-item[1].last_seen.toordinal(), -item[1].raised_on.toordinal()))
    items = [{"ref": ref or None, "key": v.key, "title": v.title, "advice": v.advice, "last_seen": v.last_seen.isoformat()}
             for ref, v in ordered if v.advice]
    return {"items": items, "open": len(open_items), "without_advice": len(open_items) - len(items)}


def briefing_dict(content: BriefingContent, lang: str = "zh") -> dict[str, Any]:
    """Plain dict of the briefing, its wording in `lang` (as the markdown's); every list in a stable order."""
    lang = lang if lang in LABELS else "zh"
    L = LABELS[lang]
    tz = content.timezone
    report = content.report
    return {
        "lang": lang,
        "topic": content.topic,
        "date": content.date.isoformat(),
        "cutoff": _local(content.cutoff, tz),
        "window": {"start": _local(content.window_start, tz), "end": _local(content.cutoff, tz), "timezone": tz},
        "knowledge": {
            "path": content.knowledge_path or f"organized/knowledge/{content.topic}.md",
            "version": content.knowledge_version,
            "updated_at": _local(content.knowledge_updated, tz),
            "citations": content.knowledge_citations,
        },
        "density": content.density,
        "density_rule": (rule_text(report.numbers, L) or report.rule) if report else None,
        "density_numbers": dict(report.numbers) if report else None,
        "credibility_rule": credibility_rule(L, content.judgment),
        "density_score": report.score if report else None,
        "counts": {
            status: sum(1 for p in content.papers if p.status == status)
            for status in ("net_new", "engineering", "adjacent", "already_anchored", "reference_list_only", "off_topic")
        },
        "sources": [_source(s, lang, tz) for s in content.sources],
        "increments": [_increment(p, k, L) for k, p in enumerate(content.increments, 1)],
        "verifications": [_verification(v) for v in content.verifications],
        "earlier_verifications": [_verification(v) for v in content.earlier_verifications],
        "follow_up": follow_up(content),
        "highlight": _highlight(content),
        "stale_after_days": content.stale_after_days,
        "citations": [
            {"arxiv_id": p.arxiv_id, "title": p.title, "status": p.status, "anchored_on": _day(p.anchored_on),
             "cited_on": _day(p.cited_on), "sections": list(p.sections), "sources": p.sources,
             "suggested_section": p.suggested_section, **_judged(p, L)}
            for p in content.citable()
        ],
        "off_topic": [_off_topic(p, L) for p in content.papers if p.status == "off_topic"],
        "malformed": [{"raw": raw, "path": path} for raw, path in content.malformed],
        "knowledge_merge": knowledge_merge(content),
        "undated": [{"path": path, "reason": reason} for path, reason in content.undated],
        "undated_count": content.undated_count,
        # Only when a feed snapshot is marked: a briefing without one keeps its bytes.
        **({"feed_problems": [{**p, "text": feed_problem_text(p, L)} for p in report.feed_problems]}
           if report and report.feed_problems else {}),
        # Likewise only when a reader's verdict overruled the tool on an item.
        **({"reader_verdicts": [n.as_dict() for n in content.reader_notes],
            "reader_verdicts_text": reader_notes_text(content.reader_notes, L, tz),
            "confirmatory": [{"item_key": p.item_key, "title": p.title, "sources": p.sources, **_judged(p, L)}
                             for p in content.papers if p.status == "confirmatory"]}
           if content.reader_notes else {}),
        # Likewise only when a folder could not be listed.
        **({"unlistable": [{"path": path, "error": error} for path, error in content.unlistable]}
           if content.unlistable else {}),
    }


def _source(s: SourceCheck, lang: str, tz: str) -> dict[str, Any]:
    t = s.texts(lang)
    return {
        "path": s.path, "kind": s.kind if s.kind != "other" else "note", "observed_at": _local(s.observed_at, tz),
        "time_basis": s.time_basis, "credibility": t.credibility, "rating": s.rating.as_dict() if s.rating else None,
        "summary": t.summary, "relevance": t.relevance, "conclusion": t.conclusion, "outcome": s.outcome,
        "error": s.error,
    }


def briefing_view(content: BriefingContent, lang: str = "zh") -> dict[str, Any]:
    """The briefing's published value in `lang`: `briefing_dict` with every string defanged, keys in
    sorted order and tuples as lists, so it equals the JSON twin parsed back, order included. The
    twin is this value written out (`twin_text`); the page, the site, the artifact and the
    notification render from it (tasks.publish.rendered), never from the twin read back."""
    view: dict[str, Any] = _plain(briefing_dict(content, lang))
    return view


def twin_text(view: dict[str, Any]) -> str:
    """The JSON twin of a `briefing_view`: deterministic JSON text (sorted keys, UTF-8, trailing newline)."""
    return json_text(view) + "\n"


def render_json(content: BriefingContent, lang: str = "zh") -> str:
    """Deterministic JSON text (sorted keys, UTF-8, trailing newline), worded in `lang`."""
    return twin_text(briefing_view(content, lang))


# A backfill renders the same texts on many dates (every listed verification, every date's
# sources): the defanged text is a pure function of the text, so it is kept per text.
_defanged = lru_cache(maxsize=16384)(defang_plain)


def _plain(value: Any) -> Any:
    """Every string of the document with dangerous link schemes broken (`tasks.common.urls.defang_plain`),
    every dict's keys sorted, every tuple a list: the value JSON text parses back to."""
    if isinstance(value, str):
        return _defanged(value) if ":" in value else value
    if isinstance(value, dict):
        return {k: _plain(value[k]) for k in sorted(value)}
    # A tuple of types, not `list | tuple`: a union is several times slower to test, millions of times a year.
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
