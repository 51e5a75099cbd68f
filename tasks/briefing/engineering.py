"""Engineering increments: named systems, releases, measured comparisons and non-arXiv preprints
that a window source presents as new.

Candidates are the entries of window notes (published briefings aside) that are not about a paper
(no arXiv id in their heading or first line, no heading that is the title of a paper they name,
none that is itself an increment), not summaries, not
marked confirmatory (确认性, 已锚, 不进, 背景 … in `[markers] confirmatory`) and not called so by
their note's summary. A source's recommendation for E1 — in the entry ("建议进 E1") or in a summary
that refers to it by number, possibly merging several entries into one named increment — is one
signal; the others are read from the entry's shape and words (tasks.briefing.novelty). Candidates
of several sources that name the same thing (a fuzzy name match, the same coined head word and
version, or the same link) become one. A candidate is an increment when
1. its signals, each further source included, reach `eng_threshold`;
2. the briefed topic owns it, or has it as adjacent, by the evidence papers are judged by (the
   note's declared topic, owner and exclusion statements, its own entries' vocabulary);
3. the knowledge document's body does not hold it as of the cutoff (a name match).
Every entry naming it, in this window and earlier ones, is counted.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from predigest.judgment import Judgment
from predigest.topics import Topic
from tasks.briefing.identity import context_words, declared_groups, fold_targets, identifying_links, same_name
from tasks.briefing.judge import clean_title, origins, split_points, stars
from tasks.briefing.naming_index import MergeIndex, NamingIndex
from tasks.briefing.novelty import entry_signals, external_links, signal_score, versions
from tasks.judge.evidence import decide, decision_text, first_entries, gather_entries
from tasks.judge.own_text import echo_paths
from tasks.judge.points import entry_key_points
from tasks.judge.relevance import Verdict
from tasks.model.briefing import EntryRef, Evidence, Paper, Reason
from tasks.model.window import NOTE_KINDS, EntryView, WindowData
from tasks.verify.markers import CONFIRMATORY, MERGED_NAME, found, label_number, label_refs, recommends_e1
from tasks.verify.names import distinctive, head_token, is_generic

_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}")


@dataclass
class _Candidate:
    title: str
    entries: list[EntryView]
    lines: list[str] = field(default_factory=list)  # the recommending lines (also read for section hints)
    recommended: bool = True


def _own_lines(entry: EntryView) -> list[tuple[str, list[str] | None]]:
    """The entry's lines, each with the header of the table it sits in (None outside tables)."""
    out: list[tuple[str, list[str] | None]] = []
    lines = entry.text.splitlines()
    header: list[str] | None = None
    for k, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("|"):
            if k + 1 < len(lines) and _SEPARATOR.match(lines[k + 1]):
                header = [c.strip() for c in stripped.strip("|").split("|")]
                continue
            if _SEPARATOR.match(stripped):
                continue
        else:
            header = None
        out.append((line.replace("**", ""), header))
    return out


def _recommendations(entries: list[EntryView], common: frozenset[str]) -> list[_Candidate]:
    """What one source recommends for E1: referenced entries (merged when it says so) or the entry itself."""
    by_number = {label_number(e.label): e for e in entries if label_number(e.label)}
    out: list[_Candidate] = []
    for entry in entries:
        summary = is_generic(entry.title)
        for line, header in _own_lines(entry):
            if not recommends_e1(line, header):
                continue
            cell = line.strip().strip("|").split("|")[0] if header else line
            refs = [by_number[n] for n in label_refs(cell) if n in by_number]
            merged = MERGED_NAME.search(line)
            if refs:
                targets = refs
            elif summary:
                targets = [e for e in entries if e.title and not is_generic(e.title) and same_name(e.title, cell, common)][:1]
            else:
                targets = [entry]
            if not targets:
                continue
            if merged:
                out.append(_Candidate(merged.group(1).strip(), targets, [line]))
            else:
                out += [_Candidate(clean_title(t.title or t.heading), [t], [line]) for t in targets]
    return out


@dataclass(frozen=True)
class _Judged:
    increments: frozenset[str]  # the window's NET-new and adjacent papers
    titles: dict[str, str]  # every judged paper's title


def _about_paper(entry: EntryView, papers: _Judged) -> bool:
    """An entry whose heading or first line names an arXiv id, or whose heading is the title of a
    paper it names, is about that paper."""
    first = next((line for line in entry.text.splitlines() if line.strip()), "")
    if any(i in entry.heading or i in first for i in entry.ids):
        return True
    return bool(entry.title) and any(same_name(entry.title or "", papers.titles[i], frozenset())
                                     for i in entry.ids if papers.titles.get(i))


def _eligible(entry: EntryView, confirmed: set[str], papers: _Judged) -> bool:
    """Not a summary, not about a paper (nor naming one that is itself an increment), not confirmatory."""
    if is_generic(entry.title) or label_number(entry.label) in confirmed:
        return False
    if _about_paper(entry, papers) or papers.increments & set(entry.ids):
        return False
    return not found(CONFIRMATORY, f"{entry.title or ''}\n{entry.text}")


def _confirmed_numbers(entries: list[EntryView]) -> set[str]:
    """Entry numbers a summary of the same source calls confirmatory ("条目#1、条目#2——都是确认性")."""
    numbers: set[str] = set()
    for entry in entries:
        if not is_generic(entry.title):
            continue
        for line, _ in _own_lines(entry):
            if found(CONFIRMATORY, line) and not recommends_e1(line):
                numbers.update(label_refs(line))
    return numbers


def _names(candidate: _Candidate) -> list[str]:
    return [candidate.title, *(clean_title(e.title) for e in candidate.entries if e.title)]


def _same(a: _Candidate, b: _Candidate, common: frozenset[str], j: Judgment) -> bool:
    """Two candidates name the same thing: a fuzzy name match that is more than a shared platform
    (tasks.briefing.identity; `common` is the topic's context); the same coined head word with the
    same version, or with one of them that head word alone and no second version ("Kestrel 2.0 …"
    and "Kestrel 2.0 is out"; not "NVIDIA Dynamo" and "NVIDIA NIM", nor "Kestrel 2.0" and "Kestrel
    3.1"); or a shared link to one page (not a platform's home)."""
    if _links(a, common, j) & _links(b, common, j):
        return True
    va, vb = versions(a.title), versions(b.title)
    if va and vb and not va & vb:
        return False  # two releases of one system are two things
    if any(same_name(x, y, common) for x in _names(a) for y in _names(b)):
        return True
    head = head_token(a.title)
    return bool(head and head not in common and head == head_token(b.title)
                and (va & vb or {head} in (distinctive(a.title), distinctive(b.title))))


def _links(cand: _Candidate, common: frozenset[str], j: Judgment) -> set[str]:
    return identifying_links((url for e in cand.entries for url in external_links(e.text, j)), common, j)


def _keys(cand: _Candidate, common: frozenset[str], j: Judgment) -> set[str]:
    """What two candidates must share to be compared at all: a distinctive name token or a link
    (every rule of `_same` implies one; comparing every pair of a large window is quadratic)."""
    return {t for n in _names(cand) for t in distinctive(n)} | _links(cand, common, j)


def _candidates(entries: list[EntryView], papers: _Judged, common: frozenset[str], j: Judgment) -> list[_Candidate]:
    """One note's candidates: what it recommends for E1, then every other eligible entry on its own;
    candidates holding one entry, or entries the note says are one thing, are one."""
    confirmed = _confirmed_numbers(entries)
    recommended = _recommendations(entries, common)
    covered = {id(e) for c in recommended for e in c.entries}
    single = [_Candidate(clean_title(e.title or e.heading), [e], recommended=False)
              for e in entries if id(e) not in covered]
    cands = _joined([*recommended, *single], entries, j)
    out = []
    for cand in cands:
        cand.entries = [e for e in cand.entries if _eligible(e, confirmed, papers)]
        if cand.entries:
            out.append(cand)
    return out


def _joined(cands: list[_Candidate], entries: list[EntryView], j: Judgment) -> list[_Candidate]:
    """`cands` of one note, each folded into the first that shares an entry with it or holds an entry
    the note declares one thing with one of its own (tasks.briefing.identity)."""
    at_of = {id(e): k for k, e in enumerate(entries)}
    groups = declared_groups(entries, [[line for line, _ in _own_lines(e)] for e in entries], j)
    into = fold_targets([[at_of[id(e)] for e in c.entries] for c in cands], len(entries), groups)
    out: list[_Candidate] = []
    for k, (cand, first) in enumerate(zip(cands, into, strict=True)):
        if first == k:
            out.append(cand)
            continue
        same = cands[first]
        if cand.recommended and not same.recommended:
            same.title, same.recommended = cand.title, True
        held = set(map(id, same.entries))
        same.entries += [e for e in cand.entries if id(e) not in held]
        same.lines += cand.lines
    return out


def _merged(data: WindowData, topic: Topic, papers: _Judged, common: frozenset[str]) -> list[_Candidate]:
    """The window's candidates, those of several sources naming the same thing merged (a
    recommended one keeps its name)."""
    by_path: dict[str, list[EntryView]] = defaultdict(list)
    echoes = echo_paths(data.entries, topic.judgment)
    for entry in data.entries:
        if entry.kind in NOTE_KINDS and entry.path not in echoes:
            by_path[entry.path].append(entry)
    return _merge([cand for path in sorted(by_path)
                   for cand in _candidates(by_path[path], papers, common, topic.judgment)], common, topic.judgment)


def _merge(cands: list[_Candidate], common: frozenset[str], j: Judgment) -> list[_Candidate]:
    """Each candidate merged into the first earlier one that is the same thing (`_same`) and holds no
    entry of its note, if any: two entries of one note are two things unless the note says they are
    one (then `_candidates` made them one candidate already)."""
    merged: list[_Candidate] = []
    # key -> the merged candidates holding it, in order (a dict as an ordered set: membership is O(1)).
    index: dict[str, dict[int, None]] = defaultdict(dict)
    # Of those, the ones `_same` could accept: a word of many names ("release") is a key of many.
    could = MergeIndex(n for cand in cands for n in _names(cand))
    held: list[set[int]] = []  # per merged candidate: id() of its entries
    paths: list[set[str]] = []  # per merged candidate: the notes its entries come from
    for cand in cands:
        keys, links = _keys(cand, common, j), _links(cand, common, j)
        own = {e.path for e in cand.entries}
        near = sorted(k for k in could.could_be(cand.title, _names(cand), links)
                      if any(k in index.get(key, ()) for key in keys))
        at = next((k for k in near if not own & paths[k] and _same(merged[k], cand, common, j)), None)
        if at is None:
            at = len(merged)
            merged.append(cand)
            held.append({id(e) for e in cand.entries})
            paths.append(set())
        else:
            same = merged[at]
            if cand.recommended and not same.recommended:
                same.title, same.recommended = cand.title, True
            fresh = [e for e in cand.entries if id(e) not in held[at]]
            same.entries += fresh
            held[at].update(map(id, fresh))
            same.lines += cand.lines
        paths[at] |= own
        for key in keys:
            index[key][at] = None
        could.add(at, merged[at].title, _names(cand), links)
    return merged


def _signals(cand: _Candidate, topic: Topic) -> list[Evidence]:
    j = topic.judgment
    terms = tuple(dict.fromkeys((*topic.names, *topic.terms)))
    out = [s for e in cand.entries for s in entry_signals(e, j, topic.name, terms)]
    if cand.recommended:
        out.append(Evidence(cand.entries[0].path, "eng_recommended", topic.name, j.weight("eng_recommended"),
                            (cand.lines or [""])[0][:160]))
    for path in list(dict.fromkeys(e.path for e in cand.entries))[1:]:
        out.append(Evidence(path, "eng_more_sources", topic.name, j.weight("eng_more_sources"), path))
    return out


def engineering_increments(
    data: WindowData, topic: Topic, doc_names: Sequence[str], papers: Sequence[Paper] = ()
) -> list[Paper]:
    """The window's engineering increments, each with every source naming it and its days seen;
    ownership is judged over every topic the judgment knows."""
    judged = _Judged(frozenset(p.arxiv_id for p in papers if p.arxiv_id and p.status in ("net_new", "adjacent")),
                     {p.arxiv_id: p.title for p in papers if p.arxiv_id and p.title})
    # The topic's own vocabulary and the platforms things run on (vLLM, SGLang, PyTorch …) are context:
    # too common to identify one thing by a head word or as all two names share.
    common = context_words((*topic.names, *topic.terms), topic.judgment)
    tz = data.window.tz
    # Built once: looking for every increment among every entry is quadratic in a source of many.
    window_index = NamingIndex([e for e in data.entries if e.kind in NOTE_KINDS])
    history_index = NamingIndex(data.history)
    firsts = first_entries(data)
    out: list[Paper] = []
    for cand in _merged(data, topic, judged, common):
        names = _names(cand)
        if any(same_name(n, held, common) for n in names[:1] for held in doc_names):
            continue  # the document already holds it as of the cutoff
        signals = _signals(cand, topic)
        score = signal_score(signals)
        if score < topic.judgment.weight("eng_threshold"):
            continue
        ownership = decide(gather_entries(cand.entries, data, topic, firsts), topic)
        if ownership.verdict not in (Verdict.RELEVANT, Verdict.ADJACENT):
            continue
        own = set(map(id, cand.entries))
        others = [e for e in window_index.naming(names, common) if id(e) not in own]
        # Another entry about it (its title names it, not confirmatory) is a source; the rest only mention it.
        about = [e for e in others if e.title and any(same_name(e.title, n, common) for n in names)
                 and _eligible(e, set(), judged)]
        sourced = set(map(id, about))
        mentions = [e for e in others if id(e) not in sourced]
        earlier = history_index.naming(names, common)
        days = sorted({e.item_time.astimezone(tz).date() for e in cand.entries + others + earlier if e.item_time})
        paper = _increment(cand, cand.entries + about, mentions, earlier, days, data, topic)
        kinds = "/".join(dict.fromkeys(s.kind.removeprefix("eng_") for s in signals))
        paper.reason = ((Reason("recommended"),) if cand.recommended else ()) + ownership.reason + (
            Reason("signals", (("score", f"{score:g}"), ("kinds", kinds))),)
        paper.evidence, paper.owner = (*ownership.evidence, *signals), ownership.owner
        paper.decision, paper.scores = decision_text(ownership.verdict, topic.name), ownership.scores
        out.append(paper)
    return out


def _increment(cand: _Candidate, naming: list[EntryView], mentions: list[EntryView], earlier: list[EntryView],
               days: list[dt.date], data: WindowData, topic: Topic) -> Paper:
    sources = list(dict.fromkeys(e.path for e in naming))
    own = entry_key_points(cand.entries[0], cand.title, topic.name, topic.judgment)  # tasks.judge.points
    if len(cand.entries) == 1:
        points, relation = own.points, own.relation
    else:  # a merged increment: one line per part
        points = [f"{clean_title(e.title or e.heading)}：{'；'.join(p.rstrip('。；;') for p in e.key_points[:2])}"[:240]
                  for e in cand.entries]
        points, relation = split_points(points, topic.name)
    return Paper(
        arxiv_id=None, title=cand.title, status="engineering", reason=(), sources=sources,
        entries=list(dict.fromkeys(EntryRef(e.path, e.label, e.heading) for e in naming + mentions)),
        mentioned_in=[p for p in dict.fromkeys(e.path for e in mentions) if p not in sources],
        key_points=points[:6], key_points_cut=own.cut if len(cand.entries) == 1 else max(0, len(points) - 6),
        thesis=own.thesis, headline=own.headline, first_seen=days[0] if days else None, days_seen=len(days),
        earlier_sources=list(dict.fromkeys(e.path for e in earlier)),
        credibility=max((stars(e.text) for e in cand.entries), default=0), independent=origins(sources, data),
        relation=relation[:3], hint_texts=[*(e.text for e in cand.entries), *cand.lines],
    )
