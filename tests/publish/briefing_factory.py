"""Briefing content for site, feed and notification tests: a real `BriefingContent`, rendered by the
real markdown and JSON renderers, with caller-chosen text in every place a workspace can put text."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from tasks.config.judgment import default_judgment
from tasks.judge.density import DensityRule, density_report
from tasks.model.judged import BriefingContent, EntryRef, Paper, Reason, SourceCheck, StatusAsOf
from tasks.publish.rendered import rendered
from tasks.publish.site import PublishedSite, publish_with_site
from tasks.publish.storage import ObjectStore

TZ = "Asia/Shanghai"


def make_content(topic: str, day: dt.date, net_new: int = 2, text: str = "", arxiv_base: int = 1000,
                 neighbours: bool = True, paths: Sequence[str] = ()) -> BriefingContent:
    """`net_new` NET-new papers, one adjacent paper and one engineering increment (none with
    `neighbours=False`: with `net_new=0` a day of score 0), one pending verification; `text` is put
    into titles, key points, relations, summaries, claims and advice. One source per path in `paths`
    (default one note of alice's), each with `text` in its cells."""
    tz = ZoneInfo(TZ)
    cutoff = dt.datetime.combine(day, dt.time(22, 20), tz)
    path = paths[0] if paths else f"inbox/alice/{day.isoformat()}-alice-{topic}.md"
    entry = EntryRef(path, "条目#1", "heading " + text)

    def paper(k: int, status: str, arxiv: bool = True) -> Paper:
        return Paper(arxiv_id=f"{day:%y%m}.{arxiv_base + k:05d}" if arxiv else None, title=f"Paper {k} {text}".strip(),
                     status=status, reason=(Reason("owned", (("topic", "reason " + text), ("score", "1"))),), sources=[path], entries=[entry],
                     key_points=[f"point {k} {text}", f"**bold** [link](https://example.org/{k}) {text}"],
                     relation=[f"relation {text}"], suggested_section=f"§{k} section {text}", section_basis="text",
                     first_seen=day, days_seen=1, independent=1)

    papers = [paper(k, "net_new") for k in range(net_new)]
    if neighbours:
        papers += [paper(net_new, "adjacent"), paper(net_new + 1, "engineering", arxiv=False)]
    sources = [SourceCheck(p, "note", cutoff - dt.timedelta(hours=3), "filename", "⭐⭐⭐", "summary " + text,
                           "conclusion " + text, None, "relevance " + text, "increments" if papers else "confirmatory")
               for p in (paths or [path])]
    verification = StatusAsOf(key="hedge:x", kind="hedge", subject="x", title="Claim " + text, claim="claim " + text,
                              marker="待核实", sources=(path,), raised_on=day, last_seen=day, status="pending",
                              age_days=0, resolved_on=None, evidence=None, resolved_by=None, advice="advice " + text)
    counts = {"net_new": net_new, "adjacent": int(neighbours), "engineering": int(neighbours)}
    rule = DensityRule.of(default_judgment())
    report = density_report(counts, [(s.path, s.outcome) for s in sources], rule, main_source=path)
    return BriefingContent(
        topic=topic, date=day, window_start=cutoff - dt.timedelta(days=1), cutoff=cutoff, timezone=TZ,
        knowledge_path=f"organized/knowledge/{topic}.md", knowledge_version="v1", knowledge_updated=None,
        knowledge_citations=10, density=report.level, sources=sources, papers=papers,
        verifications=[verification], malformed=[("arXiv:12." + text, path)], increments=papers, report=report,
    )


def publish_content(store: ObjectStore, content: BriefingContent, lang: str = "zh",
                    site_url: str | None = None) -> PublishedSite:
    """Render the content as the daily run does and publish it with its site."""
    return publish_with_site(store, rendered(content, lang), lang, site_url)


@dataclass(frozen=True)
class Result:
    """What a run reports for one briefing (the fields `tasks.publish.artifacts.announce` reads)."""

    topic: str
    date: dt.date
    content_hash: str
    written: bool
    summary: Mapping[str, Any] | None = None


def publish_result(store: ObjectStore, content: BriefingContent) -> Result:
    """Publish `content` with its site and report it as a run would."""
    briefing = rendered(content, "zh")
    published = publish_with_site(store, briefing, "zh")
    return Result(content.topic, content.date, published.briefing.content_hash, published.written, briefing.summary)
