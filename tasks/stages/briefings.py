"""Briefing stage over ids and settings: render one briefing as of its cutoff, and publish it (with
its topic's site, or without it for `refresh_sites` to refresh once for many dates: a backfill).

A briefing reads the topic's verifications as of its date, so it first derives them through
that date (`tasks.stages.verifications`); the window it renders is collected and judged once,
shared with that derivation when the derivation had to collect it too. Its section 三 is what the
derivation stored for the window, read back, never observed again; only a window the derivation
does not store (not its topic's scheduled one) is observed here, once.
The stage builds the briefing's content model (`briefing_content`, `collected_content`);
`assemble_and_publish` renders it once (`tasks.publish.rendered`) into every object it publishes,
and its result carries the summary the run page's artifact and the notifications are made from.
It stores the noon merge proposal first, so the briefing links only a proposal this run stored and
otherwise says why there is none (rendered again, with the reason, only then).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from db.engine import get_engine, session_scope
from db.models import Briefing
from tasks.briefing.assemble import build_content, judge_evening
from tasks.common.guard import guarded
from tasks.common.limits import SourceBudgets
from tasks.config.settings import Settings
from tasks.config.topics import Topic
from tasks.judge.density import DensityRule
from tasks.knowledge.header import document_words
from tasks.merge.proposal import make_proposal, publish_proposal
from tasks.model.judged import BriefingContent, Paper
from tasks.model.window_views import WindowData
from tasks.model.windows import Window
from tasks.publish.objects import (
    JSON_CONTENT_TYPE,
    MARKDOWN_CONTENT_TYPE,
    PublishedBriefing,
    update_index,
)
from tasks.publish.rendered import rendered
from tasks.publish.site import publish_with_site, refresh_site
from tasks.publish.storage import ObjectStore
from tasks.publish.workspace_store import workspace_store
from tasks.stages.briefed_topics import density_rule_for, known_topic_names, scheduled_window, window_of
from tasks.stages.derive import Judged, copy_window
from tasks.stages.verifications import derive_verifications
from tasks.stages.workspace import WorkspaceRef
from tasks.verify.observe import observed
from tasks.verify.records import load_tracked, load_window_limits, lookup_subjects
from tasks.window.collect import add_lookups, collect_window

log = logging.getLogger(__name__)
_INDEX_LOCK = 0x70726564  # advisory lock id serialising index.json read-modify-write across workers


@dataclass(frozen=True)
class BriefingResult:
    topic: str
    date: dt.date
    markdown_url: str
    json_url: str
    content_hash: str
    written: bool
    html_url: str = ""
    feed_url: str = ""
    error: str | None = None  # set when the topic's briefing failed (nothing published for it)
    # What it published (`tasks.publish.pages.date_summary` of its view): what the run page's
    # artifact and the notifications say of it.
    summary: dict[str, Any] | None = None


def failed_briefing(settings: Settings, topic: str, day: dt.date, error: str) -> BriefingResult:
    """Record a topic whose briefing failed in the index ("failed"), and say so as its result."""
    step = guarded(topic, _record_failure, settings, topic, day, error)
    if step.failure is not None:
        error = f"{error} (and recording the failure failed: {step.failure.error})"
    return BriefingResult(topic, day, "", "", "", False, error=error)


def _record_failure(settings: Settings, topic: str, day: dt.date, error: str) -> None:
    store = workspace_store(settings)
    update_index(store, [], {(topic, day): error})


def render_briefing(settings: Settings, ref: WorkspaceRef, topic: Topic, window: Window) -> tuple[str, str]:
    """Markdown and JSON of one briefing as of the window's cutoff, verifications derived through its date."""
    briefing = rendered(briefing_content(settings, ref, topic, window), settings.lang)
    return briefing.markdown, briefing.json_text


def briefing_content(settings: Settings, ref: WorkspaceRef, topic: Topic, window: Window) -> BriefingContent:
    """The content model of one briefing as of the window's cutoff, verifications derived through its date."""
    known = known_topic_names(settings, Path(ref.root))
    scheduled = scheduled_window(topic, window.date) == window
    derivation = derive_verifications(settings, ref, topic, window.date, keep=[window.date] if scheduled else [],
                                      known=known)
    judged = derivation.judged.get(window.date)
    if judged is None:
        with session_scope(get_engine(settings)) as session:
            data = collect_window(session, ref.id, topic.name, window, topic.schedule)
        budgets = SourceBudgets(settings.source_budget_units)
        judged = Judged(data, judge_evening(data, topic, budgets), budgets)
    return collected_content(settings, ref, topic, judged.data, known,
                             density_rule_for(settings, Path(ref.root), topic.name), judged.papers, judged.budgets)


def collected_content(
    settings: Settings, ref: WorkspaceRef, topic: Topic, data: WindowData, known: list[str], rule: DensityRule,
    judged: Sequence[Paper] | None = None, budgets: SourceBudgets | None = None,
) -> BriefingContent:
    """`briefing_content` from a window collected earlier, once the topic's verifications are derived
    through its date (they are read now, this window's included). `judged`: the window's
    `judge_evening` papers; `budgets`: the sources' work budgets they were judged and verified with (none:
    a fresh one of Settings.source_budget_units)."""
    budgets = budgets or SourceBudgets(settings.source_budget_units)
    papers = judged if judged is not None else judge_evening(data, topic, budgets)
    with session_scope(get_engine(settings)) as session:
        tracked = load_tracked(session, ref.id, topic.name, data.window.date)
        if scheduled_window(topic, data.window.date) == data.window:
            for path, warnings in load_window_limits(session, ref.id, topic.name, data.window.date).items():
                for warning in warnings:
                    budgets.cap(path, warning)  # the window was observed by the derivation, maybe by an earlier run
        else:
            data = copy_window(data)  # the lookups the observation reads are added to a copy
            add_lookups(session, data, lookup_subjects(tracked))
            tracked = observed(data, papers, topic, known, tracked, budgets)
    return build_content(data, topic, known, tracked, settings.stale_after_days, rule, papers, budgets)


def brief(settings: Settings, ref: WorkspaceRef, topic: Topic, day: dt.date,
          since: dt.datetime | None = None) -> BriefingResult:
    """The evening of one topic: derive its verifications through `day`, then assemble and publish
    its briefing as of `day`'s cutoff (`since` overrides the window's start)."""
    return assemble_and_publish(settings, ref, topic, window_of(topic, day, since))


def _lock_index(session: Session) -> None:
    """Serialise publishing across workers until `session` commits (index.json and site.json are read-modify-write)."""
    session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _INDEX_LOCK})


def assemble_and_publish(
    settings: Settings, ref: WorkspaceRef, topic: Topic, window: Window, force: bool = False,
    content: Callable[[], BriefingContent] | None = None, site: bool = True,
) -> BriefingResult:
    """Assemble one briefing and publish it; concurrent runs of the same (topic, date) are serialised.

    `force` rewrites the objects and bumps `published_at` even when nothing changed (the row is
    updated in place, never duplicated). `content` (default: `briefing_content` of the window) is
    called while the row lock is held; the briefing is rendered once from what it returns, and
    every object published (and the result's summary) comes from that rendering. `site=False` leaves the topic's site (index page, feed,
    site.json, site index) to a later `refresh_sites` (a backfill: once, not per date); the
    briefing's own page is written either way.
    """
    engine = get_engine(settings)
    store = workspace_store(settings, ref.root)
    with session_scope(engine) as session:
        session.execute(
            insert(Briefing)
            .values(workspace_id=ref.id, topic=topic.name, date=window.date, window_start=window.start, cutoff=window.end)
            .on_conflict_do_nothing(constraint="uq_briefings_topic_date")
        )
        session.commit()
        # Row lock: a second worker on the same (topic, date) waits here until this one commits.
        row = session.execute(
            select(Briefing).where(
                Briefing.workspace_id == ref.id, Briefing.topic == topic.name, Briefing.date == window.date
            ).with_for_update()
        ).scalar_one()
        model = content() if content is not None else briefing_content(settings, ref, topic, window)
        briefing = rendered(model, settings.lang)
        _lock_index(session)
        # The proposal before the briefing: the briefing links it only once this run has stored it.
        proposed = guarded(f"{topic.name} {window.date} merge proposal", publish_merge_proposal, store,
                           Path(ref.root), topic, window.date, briefing.view)
        if proposed.failure is not None:  # the briefing stands, says why, and links no proposal
            log.warning("no merge proposal for %s %s: %s", topic.name, window.date, proposed.failure.error)
            briefing = rendered(replace(model, merge_failed=proposed.failure.error), settings.lang)
        published_site = publish_with_site(store, briefing, settings.lang, settings.site_url, site=site)
        published: PublishedBriefing = published_site.briefing
        written = published_site.written
        if force and not written:
            store.put(published.markdown_key, briefing.markdown.encode("utf-8"), MARKDOWN_CONTENT_TYPE)
            store.put(published.json_key, briefing.json_text.encode("utf-8"), JSON_CONTENT_TYPE)
            written = True
        if (force or row.content_hash != published.content_hash or row.window_start != window.start
                or row.cutoff != window.end or row.markdown_key != published.markdown_key):
            row.window_start, row.cutoff = window.start, window.end
            row.content_hash = published.content_hash
            row.markdown_key, row.json_key = published.markdown_key, published.json_key
            row.published_at = func.now()
    return BriefingResult(topic.name, window.date, store.url_for(published.markdown_key),
                          store.url_for(published.json_key), published.content_hash, written,
                          store.url_for(published_site.page_key), store.url_for(published_site.feed_key),
                          summary=briefing.summary)


def publish_merge_proposal(store: ObjectStore, root: Path, topic: Topic, day: dt.date, view: Mapping[str, Any]) -> bool:
    """The briefing's noon merge proposal (from its view) against the workspace's document now (none
    if nothing to merge), read with the topic's `[knowledge]` words."""
    proposal = make_proposal(view, root, words=document_words(topic.judgment))
    return proposal is not None and publish_proposal(store, topic.name, day, proposal)


def refresh_sites(settings: Settings, topics: Sequence[str], days: Sequence[dt.date]) -> None:
    """Refresh each topic's site once for `days` (`tasks.publish.site.refresh_site`: the summary of
    every date with a stored JSON twin), holding the index lock `assemble_and_publish` takes: a run
    publishing meanwhile goes before or after it, never in between."""
    store = workspace_store(settings)
    with session_scope(get_engine(settings)) as session:
        _lock_index(session)
        for topic in topics:
            refresh_site(store, topic, days, settings.lang, settings.site_url)
