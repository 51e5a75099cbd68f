"""The briefing as markdown, in the seeds' structure (sections 一 to 六); Chinese by default."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from zoneinfo import ZoneInfo

from tasks.common.safe_text import markdown_text
from tasks.common.urls import break_schemes
from tasks.model.judged import BriefingContent, Paper, StatusAsOf
from tasks.render.labels import (
    DENSITY,
    LABELS,
    feed_problems_text,
    reader_notes_text,
    reason_text,
    rule_text,
    short_title,
)
from tasks.render.shown import SHOWN, first, source_rows
from tasks.render.sources_table import credibility_rule
from tasks.render.summary import merge_line, summary_lines
from tasks.render.twin import briefing_view

ICONS = {"pending": "⚠️", "stale": "⏳", "resolved": "✅"}


def _cell(text: str) -> str:
    """Text for one table cell or list line: on one line (every line break, even in a file name,
    becomes a space) with its pipes escaped."""
    return " ".join(text.replace("|", "\\|").split())


def _listed(items: list[str], limit: int, sep: str, L: dict[str, str]) -> str:
    """`items` joined with `sep`, at most `limit` of them, then how many more there are."""
    shown, more = first(items, limit)
    return sep.join(shown) + (L["list_more"].format(n=more) if more else "")


def _paragraphs(lines: list[str]) -> list[str]:
    """Each line a paragraph of its own (a blank line between): consecutive lines would render as one
    paragraph in CommonMark."""
    return [x for line in lines for x in (line, "")][:-1]


def _names(papers: list[Paper], L: dict[str, str]) -> str:
    return L["names"].format(names="/".join(short_title(p.title) for p in papers)) if papers else ""


def _label(p: Paper, L: dict[str, str]) -> str:
    """How the briefing names a paper: "Title（arXiv:id）" (in the language's brackets) or the title alone."""
    return L["paper_label"].format(title=p.title, arxiv_id=p.arxiv_id) if p.arxiv_id else p.title


def _refs(p: Paper, L: dict[str, str]) -> str:
    labels: dict[str, list[str]] = {}
    for e in p.entries:
        labels.setdefault(e.path, [])
        if e.label and e.label != "preamble" and e.label not in labels[e.path]:
            labels[e.path].append(e.label)
    refs = _listed([f"{path} {L['list_sep'].join(ls)}".rstrip() for path, ls in labels.items() if path in p.sources],
                   SHOWN.paths, L["sep"], L)
    earlier = L["earlier"].format(paths=_listed(p.earlier_sources, SHOWN.paths, L["list_sep"], L)) if p.earlier_sources else ""
    seen = L["seen"].format(n=len(p.sources), k=p.independent, first=p.first_seen.isoformat() if p.first_seen else "?",
                            days=p.days_seen, earlier=earlier)
    also = L["also"].format(paths=_listed(p.mentioned_in, SHOWN.paths, L["list_sep"], L)) if p.mentioned_in else ""
    return L["from"].format(refs=refs) + seen + also


def _increment(i: int, p: Paper, c: BriefingContent, L: dict[str, str]) -> list[str]:
    tag = L["tag_adjacent_hedged"] if p.status == "adjacent" and p.hedges else L[f"tag_{p.status}"]
    # Blocks apart (a blank line after each paragraph and list), so CommonMark reads them as written:
    # a line right after a list would continue its last item.
    lines = [L["increment"].format(i=i, tag=tag, label=_label(p, L)), _refs(p, L), ""]
    if p.key_points:
        lines += [L["points"], *(f"- {_cell(point)}" for point in p.key_points)]
        lines += [f"- {L['points_more'].format(n=p.key_points_cut)}"] if p.key_points_cut else []
        lines.append("")
    lines.append(L["relation"].format(topic=c.topic))
    lines += [f"- {_cell(r)}" for r in p.relation]
    if p.status == "adjacent":
        lines.append("- " + L["rel_adj"].format(reason=reason_text(p.reason, L)))
    else:
        lines.append("- " + L["rel_new"].format(date=c.date.isoformat(), what=""))
    if p.suggested_section and p.neighbours:
        lines.append("- " + L["rel_neighbours"].format(section=p.suggested_section, names=L["list_sep"].join(p.neighbours)))
    elif p.suggested_section:
        lines.append("- " + L["rel_section"].format(section=p.suggested_section, date=c.date.isoformat()))
    lines.append("")
    if p.suggested_section:
        lines.append(L["suggest"].format(section=p.suggested_section, basis=L[f"basis_{p.section_basis or 'text'}"]))
    else:
        lines.append(L["no_section"])
    return lines


def _subject_title(v: StatusAsOf, L: dict[str, str]) -> str:
    """What is in doubt: a paper as its title and id (in the language's brackets), anything else as its name."""
    if v.subject != v.title and v.subject not in v.title and v.subject[:1].isdigit():
        return _cell(L["paper_label"].format(title=v.title, arxiv_id=v.subject))
    return _cell(v.title)


def _verification(i: int, v: StatusAsOf, c: BriefingContent, L: dict[str, str]) -> list[str]:
    lines = [L["v_head"].format(icon=ICONS[v.status], i=i, kind=L[f"kind_{v.kind}"], title=_subject_title(v, L))]
    lines.append(L[f"v_status_{v.status}"].format(
        age=v.age_days, raised=v.raised_on.isoformat(), last=v.last_seen.isoformat(), limit=c.stale_after_days,
        resolved=v.resolved_on.isoformat() if v.resolved_on else ""))
    lines.append(L["v_claim"].format(claim=_cell(v.claim)))
    if v.risk:
        lines.append(L["v_risk"].format(risk=_cell(v.risk)))
    if v.confirmed_by and v.confirmed_on:
        lines.append(L["v_confirmed"].format(by=_cell(v.confirmed_by), date=v.confirmed_on))
    if v.status == "resolved" and v.evidence:
        lines.append(L["v_evidence"].format(evidence=_cell(v.evidence), source=v.resolved_by or ""))
    elif v.advice:
        lines.append(L["v_advice"].format(advice=_cell(v.advice)))
    lines.append(L["v_sources"].format(sources=_listed(list(v.sources), SHOWN.paths, L["sep"], L)))
    return _paragraphs(lines)


def _verifications(c: BriefingContent, L: dict[str, str]) -> list[str]:
    """Section 三: what this window raised, saw or resolved, in full; then, apart and uncounted, one
    line for each earlier item still open."""
    out: list[str] = []
    for i, v in enumerate(c.verifications, 1):
        out += _verification(i, v, c, L) + [""]
    if c.earlier_verifications:
        out.append(L["v_earlier"].format(n=len(c.earlier_verifications)))
    for v in c.earlier_verifications:
        status = L["v_compact_stale" if v.status == "stale" else "v_compact_pending"].format(
            age=v.age_days, raised=v.raised_on.isoformat())
        out.append(L["v_compact"].format(icon=ICONS[v.status], kind=L[f"kind_{v.kind}"],
                                         title=_subject_title(v, L), status=status,
                                         sources=_listed(list(v.sources), SHOWN.paths, L["list_sep"], L)))
    return out


def _header(c: BriefingContent, L: dict[str, str], lang: str, tz: ZoneInfo, cutoff: str) -> list[str]:
    out = [f"# {L['title'].format(topic=c.topic, date=c.date.isoformat())}", ""]
    out.append(L["runner"].format(topic=c.topic, cutoff=cutoff))
    out.append(L["window"].format(start=c.window_start.astimezone(tz).strftime("%Y-%m-%d %H:%M"),
                                  end=c.cutoff.astimezone(tz).strftime("%Y-%m-%d %H:%M"), tz=c.timezone))
    if c.knowledge_path:
        updated = c.knowledge_updated.astimezone(tz).strftime("%Y-%m-%d %H:%M") if c.knowledge_updated else "?"
        out.append(L["baseline"].format(path=c.knowledge_path, version=c.knowledge_version or L["version_unknown"],
                                        updated=updated, citations=c.knowledge_citations or "?"))
    else:
        out.append(L["no_baseline"].format(topic=c.topic))
    r = c.report
    inc = {s: [p for p in c.increments if p.status == s] for s in ("net_new", "engineering", "adjacent")}
    counts = L["counts"].format(net_new=len(inc["net_new"]), net_names=_names(inc["net_new"], L),
                                engineering=len(inc["engineering"]), eng_names=_names(inc["engineering"], L),
                                adjacent=len(inc["adjacent"]), adj_names=_names(inc["adjacent"], L))
    parts = []
    if r is not None:
        for outcome in ("increments", "confirmatory", "off_topic", "error"):
            n = r.outcomes.get(outcome, 0)
            if n:
                parts.append(L[f"outcome_{outcome}"].format(n=n, paths=_listed(list(r.errors), SHOWN.paths, L["list_sep"], L)))
    checked = L["checked"].format(n=r.checked if r else 0, parts=L["sep"].join(parts) or L["none"])
    cards = L["cards"].format(n=r.cards, k=r.topic_cards, topic=c.topic) if r and r.cards else ""
    main = L["main"].format(path=r.main_source) if r and r.main_source else ""
    feeds = feed_problems_text(r.feed_problems, L) if r else ""
    out.append(L["honesty"].format(density=DENSITY[lang][c.density], counts=counts, checked=checked,
                                   feeds=feeds, cards=cards, main=main))
    title, blank, *lines = out
    return [title, blank, *_paragraphs(lines)]


def _summary(c: BriefingContent, L: dict[str, str], view: Mapping[str, Any]) -> list[str]:
    out = summary_lines(view, L)
    out.append(merge_line(view, L))
    off = c.with_status("off_topic")
    if off:
        others = [p.arxiv_id or p.title for p in off]
        out.append(L["off_topic"].format(n=len(off), ids=_listed(others, SHOWN.off_topic, L["list_sep"], L)))
    if c.reader_notes:
        out.append(reader_notes_text(c.reader_notes, L, c.timezone))
    if c.malformed:
        bad = [f"`{raw}`" + L["paren"].format(text=path) for raw, path in c.malformed]
        out.append(L["malformed"].format(items=_listed(bad, SHOWN.malformed, L["sep"], L)))
    return out


def render_markdown(content: BriefingContent, lang: str = "zh", view: Mapping[str, Any] | None = None) -> str:
    """Markdown text of the briefing; deterministic for the same content. `view`: its
    `briefing_view` in `lang`, when the caller has it (section 五 is worded from it, as the page's)."""
    lang = lang if lang in LABELS else "zh"
    view = view if view is not None else briefing_view(content, lang)
    L, c = LABELS[lang], content
    tz = ZoneInfo(c.timezone)
    cutoff = c.cutoff.astimezone(tz).strftime("%Y-%m-%d %H:%M %Z")
    out = _header(c, L, lang, tz, cutoff)
    out += ["", L["s1"], "", L["s1_head"]]
    picked, unpicked = source_rows([s.outcome for s in c.sources])
    rows = [(s, s.texts(lang)) for s in (c.sources[i] for i in picked)]
    table_more = ["", L["table_more"].format(shown=len(rows), n=unpicked)] if unpicked else []
    out += [f"| {_cell(s.path)} | {_cell(t.summary)} | {_cell(t.credibility)} |" for s, t in rows]
    out += [*table_more, "", credibility_rule(L, c.judgment)]
    out += ["", L["s2"].format(n=len(c.increments)), ""]
    if not c.increments:
        out.append(L["s2_none"])
    for i, paper in enumerate(c.increments, 1):
        out += _increment(i, paper, c, L) + [""]
    out += ["", L["s3"].format(n=len(c.verifications)), ""]
    if not c.verifications:  # earlier items still tracked follow: then none is new, not none at all
        out.append(L["s3_none_window" if c.earlier_verifications else "s3_none"])
    out += _verifications(c, L)
    out += ["", L["s4"], "", L["s4_head"]]
    citable, cited_more = first(c.citable(), SHOWN.citations)
    for p in citable:
        status = L[f"st_{p.status}"].format(date=(p.anchored_on or p.cited_on or c.date).isoformat())
        out.append(f"| {p.arxiv_id} | {_cell(p.title)} | {status} | {_cell(p.suggested_section or '—')} |")
    out += ["", L["list_more"].format(n=cited_more)] if cited_more else []
    out += ["", L["s5"], "", *(f"- {line}" for line in _summary(c, L, view))]  # a list: one item per line
    out += ["", L["s6"], "", L["s6_intro"].format(date=c.date.isoformat(), topic=c.topic, density=DENSITY[lang][c.density]),
            "", L["s6_head"].format(topic=c.topic)]
    for s, t in rows:
        basis = L.get(f"time_{s.time_basis}", s.time_basis)
        out.append(f"| {_cell(s.path)} | {_cell(t.relevance or '—')} | {_cell(t.conclusion)} | {basis} |")
    out += table_more
    if c.undated_count:
        more = L["undated_more"].format(n=c.undated_count - len(c.undated)) if c.undated_count > len(c.undated) else ""
        items = L["sep"].join(_cell(path) + L["paren"].format(text=_cell(why)) for path, why in c.undated)
        out += ["", L["undated"].format(n=c.undated_count, items=items) + more]
    if c.unlistable:
        items = L["sep"].join(_cell(path) + L["paren"].format(text=_cell(error)) for path, error in c.unlistable)
        out += ["", L["unlistable"].format(n=len(c.unlistable), items=items)]
    if c.report is not None:
        out += ["", L["s6_rule"].format(rule=rule_text(c.report.numbers, L) or c.report.rule, score=c.report.score)]
    net_new = len(c.with_status("net_new"))
    main = L["s6_main"].format(n=len(c.increments), net_new=net_new) if c.increments else L["s6_main_empty"]
    out += ["", L["s6_end"].format(main=main), "", L["footer"].format(cutoff=cutoff, topic=c.topic), ""]
    # Workspace text is markup nobody vetted, and the template holds no markup of its own: one pass
    # over the whole document leaves no raw HTML, link, image or control character in it
    # (tasks.common.safe_text), and no dangerous scheme written out (tasks.common.urls).
    return break_schemes(markdown_text("\n".join(out)))
