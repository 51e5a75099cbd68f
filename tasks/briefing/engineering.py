"""Engineering increments: things without an arXiv id that a source recommends for the briefing.

An entry becomes (part of) an engineering increment when it names no arXiv id, is relevant to the
topic, is not marked confirmatory (确认性, 已锚, 不进, 背景, 不收, 跳过 …) and its source recommends
it for E1 — in the entry itself ("建议进 E1") or in a summary that refers to it by number ("#6 … |
E1 工程新增", "条目#1 + #2 合成一条「名称」工程新增"). Recommendations of the same thing in several
sources become one increment (fuzzy name match); one the knowledge document already holds as of
the cutoff is dropped. Every entry naming it, in this window and earlier ones, is counted.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from predigest.topics import Topic
from tasks.briefing.judge import clean_title, origins, split_points, stars
from tasks.judge.own_text import echo_paths
from tasks.judge.points import entry_key_points
from tasks.judge.relevance import Verdict, judge_context
from tasks.model.briefing import EntryRef, Paper
from tasks.model.window import NOTE_KINDS, EntryView, WindowData
from tasks.verify.markers import CONFIRMATORY, MERGED_NAME, found, label_number, label_refs, recommends_e1
from tasks.verify.names import head_token, is_generic, mentions_name, names_match

_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}")


@dataclass
class _Candidate:
    title: str
    entries: list[EntryView]
    lines: list[str] = field(default_factory=list)  # the recommending lines (also read for section hints)


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


def _recommendations(entries: list[EntryView]) -> list[_Candidate]:
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
                targets = [e for e in entries if e.title and not is_generic(e.title) and names_match(e.title, cell)][:1]
            else:
                targets = [entry]
            if not targets:
                continue
            if merged:
                out.append(_Candidate(merged.group(1).strip(), targets, [line]))
            else:
                out += [_Candidate(clean_title(t.title or t.heading), [t], [line]) for t in targets]
    return out


def _eligible(entry: EntryView, confirmed: set[str], topic: Topic, known: list[str], increments: set[str]) -> bool:
    """Not about a paper (no id in its heading, none that is itself an increment), relevant, not confirmatory."""
    if is_generic(entry.title) or label_number(entry.label) in confirmed:
        return False
    if any(i in entry.heading for i in entry.ids) or increments & set(entry.ids):
        return False
    if found(CONFIRMATORY, f"{entry.title or ''}\n{entry.text}"):
        return False
    return judge_context(f"{entry.heading}\n{entry.text}", topic, known).verdict in (Verdict.RELEVANT, Verdict.ADJACENT)


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


def _names_it(entry: EntryView, names: list[str], common: frozenset[str]) -> bool:
    """Whether an entry names the increment: by its title (fuzzy, or the same coined head word) or in its text."""
    title = entry.title or ""
    if title and not is_generic(title):
        if any(names_match(title, n) for n in names):
            return True
        head = head_token(title)
        if head and head not in common and head == head_token(names[0]):
            return True
    return mentions_name(entry.text, names[0])


def engineering_increments(
    data: WindowData, topic: Topic, known: list[str], doc_names: Sequence[str], papers: Sequence[Paper] = ()
) -> list[Paper]:
    """The window's engineering increments, each with every source naming it and its days seen."""
    increments = {p.arxiv_id for p in papers if p.arxiv_id and p.status in ("net_new", "adjacent")}
    # The topic's own vocabulary (vLLM, SGLang …) is too common to identify one thing by a head word.
    common = frozenset(t.lower() for t in (*topic.names, *topic.terms))
    by_path: dict[str, list[EntryView]] = defaultdict(list)
    echoes = echo_paths(data.entries, topic.judgment)
    for entry in data.entries:
        if entry.kind in NOTE_KINDS and entry.path not in echoes:
            by_path[entry.path].append(entry)
    merged: list[_Candidate] = []
    for path in sorted(by_path):
        entries = by_path[path]
        confirmed = _confirmed_numbers(entries)
        for cand in _recommendations(entries):
            cand.entries = [e for e in cand.entries if _eligible(e, confirmed, topic, known, increments)]
            if not cand.entries:
                continue
            same = next((m for m in merged if any(names_match(a, b) for a in _names(m) for b in _names(cand))), None)
            if same is None:
                merged.append(cand)
            else:
                same.entries += [e for e in cand.entries if e not in same.entries]
                same.lines += cand.lines
    tz = data.window.tz
    out: list[Paper] = []
    for cand in merged:
        names = _names(cand)
        if any(names_match(cand.title, held) for held in doc_names):
            continue  # the document already holds it as of the cutoff
        own = set(map(id, cand.entries))
        others = [e for e in data.entries if id(e) not in own and e.kind in NOTE_KINDS and _names_it(e, names, common)]
        # Another entry about it (its title names it, not confirmatory) is a source; the rest only mention it.
        about = [e for e in others if e.title and any(names_match(e.title, n) for n in names)
                 and _eligible(e, set(), topic, known, increments)]
        mentions = [e for e in others if e not in about]
        earlier = [e for e in data.history if _names_it(e, names, common)]
        days = sorted({e.item_time.astimezone(tz).date() for e in cand.entries + others + earlier if e.item_time})
        out.append(_increment(cand, cand.entries + about, mentions, earlier, days, data, topic))
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
        arxiv_id=None, title=cand.title, status="engineering", reason="来源建议进 E1", sources=sources,
        entries=list(dict.fromkeys(EntryRef(e.path, e.label, e.heading) for e in naming + mentions)),
        mentioned_in=[p for p in dict.fromkeys(e.path for e in mentions) if p not in sources],
        key_points=points[:6], key_points_cut=own.cut if len(cand.entries) == 1 else max(0, len(points) - 6),
        thesis=own.thesis, headline=own.headline, first_seen=days[0] if days else None, days_seen=len(days),
        earlier_sources=list(dict.fromkeys(e.path for e in earlier)),
        credibility=max((stars(e.text) for e in cand.entries), default=0), independent=origins(sources, data),
        relation=relation[:3], hint_texts=[*(e.text for e in cand.entries), *cand.lines],
    )
