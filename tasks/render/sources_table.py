"""Each checked source's row: credibility, summary, what in it concerns the topic, and its conclusion.

Every fixed word comes from the label tables (`tasks.render.labels`): a row is worded once per
language, and the renderers pick the briefing's (`SourceCheck.texts`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from tasks.common.limits import CutShort
from tasks.config.judgment import Judgment
from tasks.config.topics import Topic
from tasks.inbox.outline_reader import listed, stored_part
from tasks.judge.relevance import Verdict, judge_context
from tasks.model.judged import Paper, Rating, SourceCheck, SourceTexts
from tasks.model.window_views import EntryView, SourceView, WindowData
from tasks.render.labels import LABELS, short_title
from tasks.verify.markers import found, markers_of
from tasks.verify.names import names_of
from tasks.window.credibility import CredibilityRule, rate_all
from tasks.window.verdicts import FEEDBACK

TAGS = ("net_new", "engineering", "adjacent", "already_anchored", "reference_list_only", "confirmatory")
Labels = dict[str, str]


def credibility_text(r: Rating, L: Labels) -> str:
    """The rating as the table cell shows it: stars and what they rest on."""
    if r.stars is None:
        return L[f"cred_{r.basis}"]
    if r.basis == "self":
        low = r.low if r.low is not None else r.stars
        return L["cred_self"].format(stars="⭐" * r.stars) if low == r.stars else \
            L["cred_range"].format(low="⭐" * low, high="⭐" * r.stars)
    checks = L["cred_checks"].format(checks=L["list_sep"].join(L[f"cc_{c}"] for c in r.checks)) if r.checks else ""
    return L["cred_kind"].format(stars="⭐" * r.stars, kind=L[f"ck_{r.kind or 'unknown'}"], checks=checks)


def credibility_rule(L: Labels, j: Judgment) -> str:
    """The rule line under section 一, from the numbers of the run's judgment `j` (`[credibility]`)."""
    rule = CredibilityRule.of(j)
    bases = L["list_sep"].join(L["cred_base"].format(kind=L[f"ck_{k}"], stars="⭐" * rule.base(k))
                               for k in ("official", "firsthand", "digest", "repost", "unknown"))
    checks = L["list_sep"].join([
        L["cred_check_malformed"].format(n=rule.malformed_penalty),
        L["cred_check_unknown_id"].format(n=rule.unknown_id_penalty),
        L["cred_check_hedged"].format(n=rule.hedge_penalty, share=rule.hedge_share)])
    return L["cred_rule"].format(bases=bases, checks=checks)


def cut_text(cut: CutShort, L: Labels) -> str:
    """Where a source's budget ran out while parsing, judging or verifying, and what the evening
    left undone after it, worded in `L`."""
    said = L["src_cut"].format(units=cut.units, step=L[f"step_{cut.step}"], at=cut.at, done=cut.done,
                               done_word=L[f"done_{cut.stage}"])
    return said + L["src_cut_left"].format(left=cut.left) if cut.left else said


def _summary(source: SourceView, data: WindowData, contents: list[tuple[str, list[str]]], queue: list[str],
             L: Labels, cut: CutShort | None = None, capped: Sequence[str] = ()) -> str:
    headed = not contents and any(e.label != "preamble" for e in data.entries if e.source_id == source.id)
    # A source a cap or its work budget cut says so first: what follows is only what was read (or judged).
    # A cut stored at ingest is worded like the evening's, in the briefing's language; a cap as stored.
    stored = [cut_text(c, L) if (c := CutShort.read(w)) else w for w in source.limits]
    why = [*stored, *capped, *([cut_text(cut, L)] if cut else [])]
    limited = L["src_limited"].format(what=L["list_sep"].join(why)) if why else ""
    if source.later_version is not None:
        seen = source.later_version.astimezone(data.window.tz).strftime("%Y-%m-%d %H:%M")
        limited += L["src_later"].format(seen=seen)
    if source.kind == FEEDBACK:  # a file of verdicts: how many, and the lines that are not one
        errors = L["src_feedback_errors"].format(error=source.error) if source.error else ""
        return limited + L["src_feedback"].format(n=data.verdicts_recorded) + errors
    return limited + _contents(source, contents, queue, L, headed)


def _entries_named(entries: list[EntryView], known: set[str], j: Judgment) -> list[tuple[str, list[str]]]:
    """(title, the window papers' ids it names: those in `known`) of each entry that names one thing."""
    nm = names_of(j)
    out: list[tuple[str, list[str]]] = []
    for entry in (e for e in entries if e.label != "preamble"):
        title = entry.title or entry.heading
        if title and not nm.is_generic(title):
            out.append((title, [i for i in entry.ids if i in known]))
    if not out:  # no headed entry: a digest may still list its papers in rows, lines or bullets
        # Read from the tree ingest stored with the entry's outline: judging parses no text.
        out = [(name, []) for e in entries for name in listed(e.text, stored_part(e.outline) if e.outline else None)]
    return out


def _contents(source: SourceView, contents: list[tuple[str, list[str]]], queue: list[str], L: Labels,
              headed: bool = False) -> str:
    if source.error:
        return L["src_error"].format(error=source.error)
    if source.kind == "work_queue":
        return L["src_queue"].format(n=len(queue), ids=L["list_sep"].join(queue[:6]) + ("…" if len(queue) > 6 else ""))
    parts = [title + (L["src_ids"].format(ids="/".join(ids)) if ids else "") for title, ids in contents]
    if not parts:  # say why: only summary/to-do headings, or nothing an entry could be read from
        return L["src_empty_headed" if headed else "src_empty"]
    return L["sep"].join(parts[:5]) + (L["src_more"].format(n=len(parts) - 5) if len(parts) > 5 else "")


def _relevance(entries: list[EntryView], papers: list[Paper], topic: Topic,
               known: list[str]) -> list[tuple[str, str]]:
    """What in the source concerns the topic, each with its standing (NET-new, anchored, confirmatory …);
    `papers`: the source's own (`_papers_by_source`)."""
    mine = [p for p in papers if p.status in TAGS]
    parts = [(short_title(p.title), p.status) for p in mine]
    named = {e.path + str(e.label) for p in mine for e in p.entries}
    nm = names_of(topic.judgment)
    for entry in (e for e in entries if not e.ids and e.label != "preamble"):
        title = entry.title
        if not title or nm.is_generic(title) or entry.path + str(entry.label) in named:
            continue
        if judge_context(f"{entry.heading}\n{entry.text}", topic, known).verdict is Verdict.RELEVANT:
            m = markers_of(topic.judgment)
            parts.append((short_title(title), "confirmatory" if found(m, m.confirmatory, entry.text) else "background"))
    return parts


def _relevance_text(parts: list[tuple[str, str]], L: Labels) -> str:
    if not parts:
        return L["none"]
    words = [L["rel_item"].format(title=title, tag=L[f"rt_{tag}"]) for title, tag in parts]
    return L["sep"].join(words[:6]) + (L["rel_more"].format(n=len(words) - 6) if len(words) > 6 else "")


def _outcome(source: SourceView, papers: list[Paper], has_relevance: bool) -> str:
    """increments, confirmatory, off_topic or error; `papers`: the source's own."""
    if source.error:
        return "error"
    counts = Counter(p.status for p in papers)
    if counts["net_new"] or counts["engineering"] or counts["adjacent"]:
        return "increments"
    if counts["already_anchored"] or counts["reference_list_only"] or counts["confirmatory"] or has_relevance:
        return "confirmatory"
    return "off_topic"


def _conclusion(source: SourceView, mine: list[Paper], outcome: str, has_relevance: bool, L: Labels) -> str:
    """`mine`: the source's own papers."""
    if source.kind == FEEDBACK:  # read and applied line by line: its lines in error are in its summary
        return L["c_feedback_errors" if source.error else "c_feedback"]
    if source.error:
        return L["c_error"].format(error=source.error)
    counts = Counter(p.status for p in mine)
    if outcome == "increments":
        parts = [L["c_part"].format(n=counts[status], label=L[f"rt_{status}"],
                                    names="/".join(p.arxiv_id or short_title(p.title) for p in mine if p.status == status))
                 for status in ("net_new", "engineering", "adjacent") if counts[status]]
        return L["sep"].join(parts)
    if counts["already_anchored"] or counts["reference_list_only"]:
        return L["c_confirm_anchored"]
    if has_relevance or counts["confirmatory"]:
        return L["c_confirm"]
    return L["c_off_topic_papers"] if counts["off_topic"] else L["c_off_topic"]


def _papers_by_source(papers: list[Paper]) -> dict[str, list[Paper]]:
    """The papers each source path names, in the papers' order: one pass, instead of every
    source's rows scanning every paper of the window (issue 23: a busy day has hundreds of each)."""
    out: dict[str, list[Paper]] = {}
    for p in papers:
        for path in dict.fromkeys(p.sources):
            out.setdefault(path, []).append(p)
    return out


def source_checks(data: WindowData, papers: list[Paper], topic: Topic, known: list[str],
                  cut: Mapping[str, CutShort] | None = None,
                  capped: Mapping[str, Sequence[str]] | None = None) -> list[SourceCheck]:
    """One row per window source (errors included), in window order, worded in every language;
    `cut`: the sources whose budget ran out while judging or verifying, `capped`: those a cap of the
    evening's checks left part of (tasks.common.limits)."""
    cut, capped = cut or {}, capped or {}
    checks = []
    ratings = rate_all(data, topic.judgment)
    by_source: dict[int, list[EntryView]] = {}
    for e in data.entries:
        by_source.setdefault(e.source_id, []).append(e)
    ids = {p.arxiv_id for p in papers if p.arxiv_id}
    papers_of = _papers_by_source(papers)
    for s in data.sources:
        rating, entries, mine = ratings[s.id], by_source.get(s.id, []), papers_of.get(s.path, [])
        parts = [] if s.error else _relevance(entries, mine, topic, known)
        outcome = _outcome(s, mine, bool(parts))
        contents = _entries_named(entries, ids, topic.judgment)
        queue = [p.arxiv_id for p in mine if p.arxiv_id] if s.kind == "work_queue" else []
        wording = {
            lang: SourceTexts(credibility_text(rating, L), _summary(s, data, contents, queue, L, cut.get(s.path),
                                                                       capped.get(s.path, ())),
                              "—" if s.error else _relevance_text(parts, L),
                              _conclusion(s, mine, outcome, bool(parts), L))
            for lang, L in LABELS.items()
        }
        zh = wording["zh"]
        checks.append(SourceCheck(s.path, s.kind, s.observed_at, s.time_basis, zh.credibility, zh.summary,
                                  zh.conclusion, s.error, zh.relevance, outcome, rating, wording))
    return checks
