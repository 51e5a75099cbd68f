"""Engineering increments: named systems, releases, measured comparisons and non-arXiv preprints
that a window source presents as new.

Candidates are the notes' eligible entries and recommendations (tasks.increments.candidates),
scored by signals (tasks.increments.novelty); candidates of several sources naming the same thing
become one (tasks.increments.identity), two of one note never do. A candidate is an increment when
its signals reach `eng_threshold`, the briefed topic owns it (the papers' evidence; a thing a
source calls only adjacent to the topic is not the topic's increment), and the knowledge
document's body does not hold it as of the cutoff. Every entry naming it, in this window and
earlier ones, is counted. A reader's `not-new` verdict on its key makes it
confirmatory (`tasks.judge.reader`).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import attrgetter

from tasks.common.item_keys import engineering_key
from tasks.common.limits import SourceBudgets, Unit, unbounded
from tasks.config.judgment import Judgment
from tasks.config.topics import Topic
from tasks.increments.candidates import Candidate, Judged, eligible, note_candidates
from tasks.increments.identity import context_words, identifying_links, same_name
from tasks.increments.naming_index import MergeIndex, NamingIndex
from tasks.increments.novelty import entry_signals, external_links, signal_score
from tasks.judge.evidence import decide, decision_text, first_entries, gather_entries
from tasks.judge.own_text import echo_paths
from tasks.judge.points import entry_items, entry_key_points
from tasks.judge.reader import reader_not_new
from tasks.judge.relevance import Verdict
from tasks.model.judged import EntryRef, Evidence, Paper, Reason
from tasks.model.window_views import NOTE_KINDS, EntryView, SourceView, WindowData
from tasks.verify.markers import markers_of
from tasks.verify.names import names_of, versions
from tasks.window.papers import clean_title, origins, sources_by_path, split_points, stars


def _names(candidate: Candidate, j: Judgment) -> list[str]:
    return [candidate.title, *(clean_title(e.title, j) for e in candidate.entries if e.title)]


def other_release(a: str, b: str) -> bool:
    """Two names that state different versions ("SGLang v0.6", "SGLang v0.5.30"): two releases of one
    system are two things, in the window and against the knowledge document alike."""
    va, vb = versions(a), versions(b)
    return bool(va and vb and not va & vb)


def _same(a: Candidate, b: Candidate, common: frozenset[str], j: Judgment) -> bool:
    """Two candidates name the same thing: a fuzzy name match that is more than a shared platform
    (tasks.increments.identity; `common` is the topic's context); the same coined head word with the
    same version, or with one of them that head word alone and no second version ("Kestrel 2.0 …"
    and "Kestrel 2.0 is out"; not "NVIDIA Dynamo" and "NVIDIA NIM", nor "Kestrel 2.0" and "Kestrel
    3.1"); or a shared link to one page (not a platform's home)."""
    if _links(a, common, j) & _links(b, common, j):
        return True
    if other_release(a.title, b.title):
        return False
    va, vb = versions(a.title), versions(b.title)
    nm = names_of(j)
    if any(same_name(x, y, common, nm) for x in _names(a, j) for y in _names(b, j)):
        return True
    head = nm.head_token(a.title)
    return bool(head and head not in common and head == nm.head_token(b.title)
                and (va & vb or {head} in (nm.distinctive(a.title), nm.distinctive(b.title))))


def _links(cand: Candidate, common: frozenset[str], j: Judgment) -> set[str]:
    return identifying_links((url for e in cand.entries for url in external_links(e.text, j)), common, j)


def _keys(cand: Candidate, common: frozenset[str], j: Judgment) -> set[str]:
    """What two candidates must share to be compared at all: a distinctive name token or a link
    (every rule of `_same` implies one; comparing every pair of a large window is quadratic)."""
    nm = names_of(j)
    return {t for n in _names(cand, j) for t in nm.distinctive(n)} | _links(cand, common, j)


def _merged(data: WindowData, topic: Topic, papers: Judged, common: frozenset[str],
            budgets: SourceBudgets) -> list[Candidate]:
    """The window's candidates, those of several sources naming the same thing merged (a
    recommended one keeps its name). A note's candidates are one unit of its budget, and merging
    each of them another: a note found spent adds no candidate after that."""
    by_path: dict[str, list[EntryView]] = defaultdict(list)
    echoes = echo_paths(data.entries, topic.judgment)
    for entry in data.entries:
        if entry.kind in NOTE_KINDS and entry.path not in echoes:
            by_path[entry.path].append(entry)
    cands = [cand for path in budgets.each(sorted(by_path), "engineering", lambda path: (path, by_path[path][0].ordinal))
             for cand in note_candidates(by_path[path], papers, common, topic.judgment)]
    return _merge(cands, common, topic.judgment, budgets)


def _merge(cands: list[Candidate], common: frozenset[str], j: Judgment,
           budgets: SourceBudgets | None = None) -> list[Candidate]:
    """Each candidate merged into the first earlier one that is the same thing (`_same`) and holds no
    entry of its note, if any: two entries of one note are two things unless the note says they are
    one (then `note_candidates` made them one candidate already)."""
    merged: list[Candidate] = []
    # key -> the merged candidates holding it, in order (a dict as an ordered set: membership is O(1)).
    index: dict[str, dict[int, None]] = defaultdict(dict)
    # Of those, the ones `_same` could accept: a word of many names ("release") is a key of many.
    could = MergeIndex((n for cand in cands for n in _names(cand, j)), names_of(j))
    held: list[set[int]] = []  # per merged candidate: id() of its entries
    holding: dict[str, set[int]] = defaultdict(set)  # note -> the merged candidates with an entry of it
    for cand in (budgets or unbounded()).each(cands, "engineering", _unit):
        keys, links = _keys(cand, common, j), _links(cand, common, j)
        own = {e.path for e in cand.entries}
        # Set operations, not a test per merged candidate: in a note of 2,000 entries that all name
        # "vLLM", every candidate shares a key and a word with every earlier one of its own note.
        sharing = set().union(*(index[key] for key in keys if key in index))
        of_own_notes = set().union(*(holding[path] for path in own if path in holding))
        near = sorted((could.could_be(cand.title, _names(cand, j), links) & sharing) - of_own_notes)
        at = next((k for k in near if _same(merged[k], cand, common, j)), None)
        if budgets is not None:  # each comparison is work of the candidate's source
            budgets.charge(cand.entries[0].path, near.index(at) + 1 if at is not None else len(near))
        if at is None:
            at = len(merged)
            merged.append(cand)
            held.append({id(e) for e in cand.entries})
        else:
            same = merged[at]
            if cand.recommended and not same.recommended:
                same.title, same.recommended = cand.title, True
            fresh = [e for e in cand.entries if id(e) not in held[at]]
            same.entries += fresh
            held[at].update(map(id, fresh))
            same.lines += cand.lines
        for path in own:
            holding[path].add(at)
        for key in keys:
            index[key][at] = None
        could.add(at, merged[at].title, _names(cand, j), links)
    return merged


def _unit(cand: Candidate) -> Unit:
    """A candidate is a unit of work of its first entry's source."""
    return cand.entries[0].path, cand.entries[0].ordinal


def _within(cands: Iterable[Candidate], budgets: SourceBudgets) -> Iterator[Candidate]:
    """Each candidate without the entries of the sources cut by the time it is reached (none left: dropped)."""
    for cand in cands:
        cand.entries = budgets.kept(cand.entries, attrgetter("path"))
        if cand.entries:
            yield cand


def _signals(cand: Candidate, topic: Topic) -> list[Evidence]:
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
    data: WindowData, topic: Topic, doc_names: Sequence[str], papers: Sequence[Paper] = (),
    budgets: SourceBudgets | None = None,
) -> list[Paper]:
    """The window's engineering increments, each with every source naming it and its days seen;
    ownership is judged over every topic the judgment knows. Judging an increment is a unit of the
    budget of its first source (`budgets`); a source found spent drops out of the increments after it."""
    budgets = budgets or unbounded()
    judged = Judged(frozenset(p.arxiv_id for p in papers if p.arxiv_id and p.status in ("net_new", "adjacent")),
                     {p.arxiv_id: p.title for p in papers if p.arxiv_id and p.title})
    # The topic's own vocabulary and the platforms things run on (vLLM, SGLang, PyTorch …) are context:
    # too common to identify one thing by a head word or as all two names share.
    common = context_words((*topic.names, *topic.terms), topic.judgment)
    tz = data.window.tz
    # Built once: looking for every increment among every entry is quadratic in a source of many.
    nm = names_of(topic.judgment)
    window_index = NamingIndex([e for e in data.entries if e.kind in NOTE_KINDS], nm)
    history_index = NamingIndex(data.history, nm)
    firsts = first_entries(data)
    by_path = sources_by_path(data)
    out: list[Paper] = []
    # Lazy: a source cut while judging one increment drops out of the increments after it.
    for cand in budgets.each(_within(_merged(data, topic, judged, common, budgets), budgets), "engineering", _unit):
        names = _names(cand, topic.judgment)
        if any(same_name(n, held, common, nm) and not other_release(n, held) for n in names[:1] for held in doc_names):
            continue  # the document already holds it as of the cutoff
        signals = _signals(cand, topic)
        score = signal_score(signals)
        if score < topic.judgment.weight("eng_threshold"):
            continue
        ownership = decide(gather_entries(cand.entries, data, topic, firsts), topic)
        if ownership.verdict is not Verdict.RELEVANT:
            continue
        own = set(map(id, cand.entries))
        others = [e for e in window_index.naming(names, common) if id(e) not in own]
        budgets.charge(cand.entries[0].path, len(others))  # each entry naming it is read for it
        # Another entry about it (its title names it, not confirmatory) is a source; the rest only mention it.
        about = [e for e in others if e.title and any(same_name(e.title, n, common, nm) for n in names)
                 and eligible(e, set(), judged, topic.judgment)]
        sourced = set(map(id, about))
        mentions = [e for e in others if id(e) not in sourced]
        earlier = history_index.naming(names, common)
        days = sorted({e.item_time.astimezone(tz).date() for e in cand.entries + others + earlier if e.item_time})
        paper = _increment(cand, cand.entries + about, mentions, earlier, days, by_path, topic)
        kinds = "/".join(dict.fromkeys(s.kind.removeprefix("eng_") for s in signals))
        paper.reason = ((Reason("recommended"),) if cand.recommended else ()) + ownership.reason + (
            Reason("signals", (("score", f"{score:g}"), ("kinds", kinds))),)
        paper.evidence, paper.owner = (*ownership.evidence, *signals), ownership.owner
        paper.decision, paper.scores = decision_text(ownership.verdict, topic.name), ownership.scores
        # Keyed by its name; a verdict holds on the keys of every name it goes by, earlier windows'
        # entries about it included, so a verdict on it holds on a later evening too.
        paper.item_key = engineering_key(cand.title)
        paper.item_keys = tuple(dict.fromkeys(engineering_key(n) for n in (*names, *(
            clean_title(e.title or e.heading, topic.judgment) for e in earlier))))
        reader_not_new(paper, data.verdicts, topic.name)
        out.append(paper)
    return out


def _increment(cand: Candidate, naming: list[EntryView], mentions: list[EntryView], earlier: list[EntryView],
               days: list[dt.date], by_path: Mapping[str, SourceView], topic: Topic) -> Paper:
    sources = list(dict.fromkeys(e.path for e in naming))
    own = entry_key_points(cand.entries[0], cand.title, topic.name, topic.judgment)  # tasks.judge.points
    if len(cand.entries) == 1:
        points, relation = own.points, own.relation
    else:  # a merged increment: one line per part
        points = [f"{clean_title(e.title or e.heading, topic.judgment)}：{'；'.join(p.rstrip('。；;') for p in entry_items(e)[:2])}"[:240]
                  for e in cand.entries]
        points, relation = split_points(points, topic.name)
    return Paper(
        arxiv_id=None, title=cand.title, status="engineering", reason=(), sources=sources,
        entries=list(dict.fromkeys(EntryRef(e.path, e.label, e.heading) for e in naming + mentions)),
        mentioned_in=[p for p in dict.fromkeys(e.path for e in mentions) if p not in sources],
        key_points=points[:6], key_points_cut=own.cut if len(cand.entries) == 1 else max(0, len(points) - 6),
        thesis=own.thesis, headline=own.headline, first_seen=days[0] if days else None, days_seen=len(days),
        earlier_sources=list(dict.fromkeys(e.path for e in earlier)),
        credibility=max((stars(e.text, markers_of(topic.judgment)) for e in cand.entries), default=0), independent=origins(sources, by_path),
        relation=relation[:3], hint_texts=[*(e.text for e in cand.entries), *cand.lines],
    )
