"""The briefing's machine-readable twin (satisfies briefing.schema.json; extra keys are additive)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any
from zoneinfo import ZoneInfo

from tasks.briefing.model import BriefingContent, Paper

SCHEMA_INCREMENT_STATUSES = ("net_new", "adjacent")
CITABLE = ("net_new", "already_anchored", "reference_list_only")


def _local(moment: dt.datetime | None, tz: str) -> str | None:
    return moment.astimezone(ZoneInfo(tz)).isoformat() if moment else None


def _day(value: dt.date | None) -> str | None:
    return value.isoformat() if value else None


def _increment(p: Paper) -> dict[str, Any]:
    return {
        "arxiv_id": p.arxiv_id,
        "title": p.title,
        "status": p.status,
        "sources": p.sources,
        "entries": [{"path": e.path, "label": e.label, "heading": e.heading} for e in p.entries],
        "suggested_section": None,
        "key_points": p.key_points,
        "hedged": bool(p.hedges),
        "primary_category": p.primary,
        "votes": p.votes,
    }


def briefing_dict(content: BriefingContent) -> dict[str, Any]:
    """Plain dict of the briefing; every list is in a stable order."""
    tz = content.timezone
    return {
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
        "counts": {
            status: sum(1 for p in content.papers if p.status == status)
            for status in ("net_new", "adjacent", "already_anchored", "reference_list_only", "off_topic")
        },
        "sources": [
            {
                "path": s.path, "kind": s.kind if s.kind != "other" else "note", "observed_at": _local(s.observed_at, tz),
                "time_basis": s.time_basis, "credibility": s.credibility, "summary": s.summary,
                "conclusion": s.conclusion, "error": s.error,
            }
            for s in content.sources
        ],
        "increments": [_increment(p) for p in content.papers if p.status in SCHEMA_INCREMENT_STATUSES],
        "verifications": [
            {"subject": v.subject, "claim": v.claim, "marker": v.marker, "status": v.status,
             "raised_on": v.raised_on.isoformat(), "sources": list(v.sources)}
            for v in content.verifications
        ],
        "citations": [
            {"arxiv_id": p.arxiv_id, "title": p.title, "status": p.status, "anchored_on": _day(p.anchored_on),
             "cited_on": _day(p.cited_on), "sections": list(p.sections), "sources": p.sources}
            for p in content.papers if p.status in CITABLE
        ],
        "off_topic": [
            {"arxiv_id": p.arxiv_id, "title": p.title, "reason": p.reason, "sources": p.sources}
            for p in content.papers if p.status == "off_topic"
        ],
        "malformed_ids": sorted({raw for raw, _ in content.malformed}),
        "malformed": [{"raw": raw, "path": path} for raw, path in content.malformed],
    }


def render_json(content: BriefingContent) -> str:
    """Deterministic JSON text (sorted keys, UTF-8, trailing newline)."""
    return json.dumps(briefing_dict(content), ensure_ascii=False, sort_keys=True, indent=2) + "\n"
