"""Assemble the judged content of one briefing from a collected window."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tasks.briefing.reader_items import apply_to_items, not_applied, not_new_notes
from tasks.common.limits import SourceBudgets, unbounded
from tasks.config.topics import Topic
from tasks.increments.engineering import engineering_increments
from tasks.judge.density import DensityRule, density_report
from tasks.judge.evidence import decision_text
from tasks.judge.rank import highlight, rank_increments
from tasks.judge.relevance import Verdict
from tasks.judge.sections import SectionIndex, doc_names, doc_sections, legacy_map
from tasks.model.judged import BriefingContent, Paper, Rating, SourceCheck, SourceTexts
from tasks.model.noon_merge import merge_time
from tasks.model.window_views import WindowData
from tasks.render.labels import LABELS
from tasks.render.sources_table import source_checks
from tasks.verify.items import one_per_subject
from tasks.verify.markers import markers_of
from tasks.verify.status import Tracked, listed
from tasks.window.anchors import BaselineAsOf, anchors_as_of, baseline_as_of
from tasks.window.papers import judge_window

KIND_ORDER = {"note": 0, "hf_daily": 1, "arxiv_feed": 2, "paper_card": 3, "work_queue": 4, "other": 5, "knowledge": 6}


def _place(papers: Sequence[Paper], index: SectionIndex) -> None:
    """Suggested section and anchored neighbours of each increment; anchored papers keep their sections."""
    for p in papers:
        if p.status == "already_anchored":
            p.suggested_section, p.section_basis = ("；".join(p.sections) or None), "anchor"
        elif p.status == "reference_list_only":
            p.suggested_section, p.section_basis = "References", "anchor"
        elif p.status in ("net_new", "engineering", "adjacent"):
            query = "\n".join([p.title, *p.key_points, *p.relation, *p.hint_texts])[:4000]
            found = index.suggest(query, p.hint_texts)
            if found is not None:
                p.suggested_section, p.neighbours, p.section_basis = found.section, found.neighbours, found.basis


def _deepenings(papers: Sequence[Paper], topic: str) -> int:
    """Reference-list papers the window discusses as the topic's: a paper the document cites but
    the sources place in another topic deepens nothing of this one."""
    not_ours = decision_text(Verdict.NONE, topic)
    return sum(1 for p in papers if p.status == "reference_list_only" and p.decision != not_ours)


def _baseline(data: WindowData, as_of: BaselineAsOf) -> SourceCheck | None:
    doc = data.knowledge
    if doc is None:
        return None
    day = data.window.cutoff_local.date()
    statuses = Counter(s.status for s in anchors_as_of(doc, day).values())
    anchored, cited = statuses["already_anchored"], statuses["reference_list_only"]
    wording = {}
    for lang, L in LABELS.items():
        version = as_of.version or (L["b_version_later"].format(version=doc.version) if doc.version
                                    else L["b_version_none"])
        summary = L["b_summary"].format(version=version, day=day.isoformat(), anchored=anchored, cited=cited)
        wording[lang] = SourceTexts(L["cred_baseline"], summary, L["cred_baseline"], L["c_baseline"])
    zh = wording["zh"]
    return SourceCheck(doc.path, "knowledge", as_of.updated_at or data.window.end, "header", zh.credibility,
                       zh.summary, zh.conclusion, None, zh.relevance, "baseline", Rating(None, "baseline"), wording)


def judge_evening(
    data: WindowData, topic: Topic, budgets: SourceBudgets | None = None,
) -> list[Paper]:
    """Everything the window's briefing judges, once: `judge_window`'s papers, then its engineering
    increments (against the document's names as of the day), each placed in a section.

    Its verifications are observed from exactly this list (`tasks.stages.derive`), and its briefing
    is assembled from it (`build_content`). `budgets`: each source's time, spent here by judging and
    then by the verification of the same window."""
    budgets = budgets or unbounded()
    day = data.window.cutoff_local.date()
    papers = judge_window(data, topic, budgets)
    doc = data.knowledge
    undated_count = doc is not None and (doc.updated_at is None or doc.updated_at <= data.window.end)
    sections = doc_sections(doc.sections if doc else (), day, undated_count, topic.judgment)
    papers += engineering_increments(data, topic, doc_names(sections), papers, budgets)
    _place(papers, SectionIndex(sections, legacy_map(doc.sections if doc else ()), topic.judgment))
    return papers


def build_content(
    data: WindowData, topic: Topic, known_topics: list[str], tracked: Sequence[Tracked] = (),
    stale_after_days: int = 7, rule: DensityRule | None = None, judged: Sequence[Paper] | None = None,
    budgets: SourceBudgets | None = None,
) -> BriefingContent:
    """Assemble everything the renderers need from the judged window, in a deterministic order.

    `tracked` are the topic's verifications as of the window's day, this window's own observations
    included (stored by the derivation, or `tasks.verify.observe.observed`): they are listed, never
    observed again here. `judged`: the window's papers as `judge_evening` returned them, when the
    caller has them already. `budgets`: each source's time they were judged and verified with: a
    source whose budget ran out keeps what was done for it, and its row says where it was cut.
    """
    budgets = budgets or unbounded()
    day = data.window.cutoff_local.date()
    papers = list(judged) if judged is not None else judge_evening(data, topic, budgets)
    doc = data.knowledge
    as_of = baseline_as_of(doc, data.window.end) if doc else BaselineAsOf(None, None, None)
    items, notes = apply_to_items(one_per_subject(listed(tracked, day, stale_after_days), markers_of(topic.judgment)),
                                  data.verdicts, data.window)
    verifications = [v for v in items if v.seen_in_window]
    increments = rank_increments(papers, topic.name)
    checks = source_checks(data, papers, topic, known_topics, budgets.cuts(), budgets.capped)
    baseline = _baseline(data, as_of)
    counts = Counter(p.status for p in papers)
    by_source = Counter(path for p in increments for path in p.sources)
    cards = [s for s in data.sources if s.kind == "paper_card" and not s.error]
    topic_cards = sum(1 for s in cards for c in data.cards.values() for v in c
                      if v.path == s.path and (v.primary or "").lower() in {n.lower() for n in topic.names})
    report = density_report(counts, [(c.path, c.outcome) for c in checks], rule or DensityRule.from_mapping(
        None, topic.judgment.density), topic_cards, len(cards),
                            min(by_source, key=lambda p: (-by_source[p], p)) if by_source else None,
                            [{**s.feed_problem, "path": s.path} for s in data.sources if s.feed_problem],
                            deepening=_deepenings(papers, topic.name))
    if baseline is not None:
        checks.append(baseline)
    checks.sort(key=lambda c: (KIND_ORDER.get(c.kind, 9), c.observed_at, c.path))
    return BriefingContent(
        topic=topic.name, date=data.window.date, window_start=data.window.start, cutoff=data.window.end,
        timezone=data.window.timezone, knowledge_path=doc.path if doc else None,
        knowledge_version=as_of.version, knowledge_updated=as_of.updated_at, knowledge_citations=as_of.citations,
        density=report.level, sources=checks, papers=papers, verifications=verifications,
        malformed=sorted({(m.raw, m.path) for m in data.mentions if m.malformed}), increments=increments,
        report=report, stale_after_days=stale_after_days, highlight=highlight(increments),
        earlier_verifications=[v for v in items if not v.seen_in_window],
        merge_at=merge_time(data.window.end, data.window.timezone, topic.merge_time),
        undated=data.undated, undated_count=data.undated_count, unlistable=data.unlistable, judgment=topic.judgment,
        reader_notes=notes + not_new_notes(papers, data.verdicts)
        + not_applied(data, [t.key for t in tracked], papers, topic.judgment),
    )
