"""One note's engineering candidates: what it recommends for E1 and every other eligible entry,
each one thing (tasks.increments.engineering merges them across notes and judges them).

An entry is eligible when it is not a summary, not about a paper (no arXiv id in its heading or
first line, no heading that is the title of a paper it names, none that is itself an increment),
not marked confirmatory (确认性, 已锚, 不进, 背景 … in `[markers] confirmatory`) and not called so
by its note's summary. A recommendation ("建议进 E1" in the entry, or a summary line pointing at
entry numbers, possibly merging them into one named increment) makes a candidate of its targets.
Candidates holding one entry, or entries the note says are one thing (tasks.increments.identity),
are one. An entry about a paper by its items, under a heading naming nothing, adds the releases
listed beside its papers, each a candidate of its own (tasks.increments.parts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tasks.common.arxiv_ids import find_ids
from tasks.common.item_keys import engineering_key
from tasks.config.judgment import Judgment
from tasks.inbox.segment import PATH_SEP
from tasks.increments.identity import declared_groups, fold_targets, same_name
from tasks.increments.parts import release_parts
from tasks.model.window_views import EntryView
from tasks.verify.markers import found, label_number, label_refs, markers_of, recommends_e1
from tasks.verify.names import names_of
from tasks.verify.subjects import heading_thing
from tasks.window.papers import clean_title

_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}")


@dataclass
class Candidate:
    title: str
    entries: list[EntryView]
    lines: list[str] = field(default_factory=list)  # the recommending lines (also read for section hints)
    recommended: bool = True


def own_lines(entry: EntryView) -> list[tuple[str, list[str] | None]]:
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


def _recommendations(entries: list[EntryView], common: frozenset[str], j: Judgment) -> list[Candidate]:
    """What one source recommends for E1: referenced entries (merged when it says so) or the entry itself."""
    m, nm = markers_of(j), names_of(j)
    by_number = {label_number(e.label): e for e in entries if label_number(e.label)}
    out: list[Candidate] = []
    for entry in entries:
        summary = nm.is_generic(entry.title)
        for line, header in own_lines(entry):
            if not recommends_e1(m, line, header):
                continue
            cell = line.strip().strip("|").split("|")[0] if header else line
            refs = [by_number[n] for n in label_refs(m, cell) if n in by_number]
            merged = m.merged_name.search(line)
            if refs:
                targets = refs
            elif summary:
                targets = [e for e in entries if e.title and not nm.is_generic(e.title) and same_name(e.title, cell, common, nm)][:1]
            else:
                targets = [entry]
            if not targets:
                continue
            if merged:
                out.append(Candidate(merged.group(1).strip(), targets, [line]))
            else:
                out += [Candidate(clean_title(t.title or t.heading, j), [t], [line]) for t in targets]
    return out


@dataclass(frozen=True)
class Judged:
    increments: frozenset[str]  # the window's NET-new and adjacent papers
    titles: dict[str, str]  # every judged paper's title


def _about_paper(entry: EntryView, papers: Judged, j: Judgment) -> bool:
    """An entry whose heading or first line names an arXiv id, or whose heading is the title of a
    paper it names, is about that paper."""
    first = next((line for line in entry.text.splitlines() if line.strip()), "")
    return _headed_by_paper(entry, papers, j) or any(i in first for i in entry.ids)


def _headed_by_paper(entry: EntryView, papers: Judged, j: Judgment) -> bool:
    """An entry whose heading names an arXiv id or is the title of a paper it names."""
    if any(i in entry.heading for i in entry.ids):
        return True
    return bool(entry.title) and any(same_name(entry.title or "", papers.titles[i], frozenset(), names_of(j))
                                     for i in entry.ids if papers.titles.get(i))


def _beside_papers(entry: EntryView, papers: Judged, j: Judgment) -> list[EntryView]:
    """The releases listed beside the papers of an entry about a paper by its items, not by its
    heading (tasks.increments.parts): each a part to judge as an entry of its own."""
    if not entry.ids or _headed_by_paper(entry, papers, j):
        return []
    if not (_about_paper(entry, papers, j) or papers.increments & set(entry.ids)):
        return []
    return release_parts(entry, j)


def eligible(entry: EntryView, confirmed: set[str], papers: Judged, j: Judgment) -> bool:
    """Not a summary, not about a paper (nor naming one that is itself an increment), not confirmatory."""
    if names_of(j).is_generic(entry.title) or label_number(entry.label) in confirmed:
        return False
    if _about_paper(entry, papers, j) or papers.increments & set(entry.ids):
        return False
    m = markers_of(j)
    return not found(m, m.confirmatory, f"{entry.title or ''}\n{entry.text}")


def _confirmed_numbers(entries: list[EntryView], j: Judgment) -> set[str]:
    """Entry numbers a summary of the same source calls confirmatory ("条目#1、条目#2——都是确认性")."""
    numbers: set[str] = set()
    m, nm = markers_of(j), names_of(j)
    for entry in entries:
        if not nm.is_generic(entry.title):
            continue
        for line, _ in own_lines(entry):
            if found(m, m.confirmatory, line) and not recommends_e1(m, line):
                numbers.update(label_refs(m, line))
    return numbers


def note_candidates(entries: list[EntryView], papers: Judged, common: frozenset[str], j: Judgment) -> list[Candidate]:
    """One note's candidates: what it recommends for E1, then every other eligible entry on its own;
    candidates holding one entry, or entries the note says are one thing, are one."""
    confirmed = _confirmed_numbers(entries, j)
    recommended = _recommendations(entries, common, j)
    covered = {id(e) for c in recommended for e in c.entries}
    sections = _labelled_sections(entries, j)
    single: list[Candidate] = []
    for e in entries:
        if id(e) in covered:
            continue
        parent = sections.get(id(e))
        if parent is None:
            single.append(Candidate(clean_title(e.title or e.heading, j), [e], recommended=False))
        elif single and single[-1].title == parent and not single[-1].recommended:
            single[-1].entries.append(e)  # the next part of the same thing
        else:
            single.append(Candidate(parent, [e], recommended=False))
    cands = _joined([*recommended, *single], entries, j)
    cands += [Candidate(part.title or "", [part], recommended=False) for e in entries for part in _beside_papers(e, papers, j)]
    out = []
    for cand in cands:
        cand.entries = [e for e in cand.entries if eligible(e, confirmed, papers, j)]
        if cand.entries:
            out.append(cand)
    return out


def _labelled_sections(entries: list[EntryView], j: Judgment) -> dict[int, str]:
    """Entries that are parts of one thing, by the note's tree: under a heading that names a thing
    (and no paper), sub-headings that name nothing ("### 机制", "### 数字（官方博文）", "### 未解决")
    label parts of what the heading above names. id(entry) -> that thing's name."""
    m = markers_of(j)
    out: dict[int, str] = {}
    for e in entries:
        path = [part for part in e.heading.split(PATH_SEP) if part.strip()]
        if len(path) < 2 or heading_thing(m, e.title) is not None or find_ids(path[-2]):
            continue
        parent = heading_thing(m, path[-2])
        if parent is not None:
            out[id(e)] = clean_title(parent, j)
    return out


def _joined(cands: list[Candidate], entries: list[EntryView], j: Judgment) -> list[Candidate]:
    """`cands` of one note, each folded into the first that shares an entry with it or holds an entry
    the note declares one thing with one of its own (tasks.increments.identity)."""
    at_of = {id(e): k for k, e in enumerate(entries)}
    groups = declared_groups(entries, [[line for line, _ in own_lines(e)] for e in entries], j)
    into = fold_targets([[at_of[id(e)] for e in c.entries] for c in cands], len(entries), groups)
    out: list[Candidate] = []
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


def name_keys(entries: list[EntryView], j: Judgment) -> set[str]:
    """The keys (`engineering_key`) of every name these entries could give a candidate: an entry's
    title or heading, the thing a heading above it names, a name a recommendation merges them into.
    A superset of the increments' keys, read without judging the window."""
    m = markers_of(j)
    names: set[str] = set()
    for e in entries:
        names.add(clean_title(e.title or e.heading, j))
        parts = [part for part in e.heading.split(PATH_SEP) if part.strip()]
        names.update(clean_title(t, j) for t in (heading_thing(m, part) for part in parts) if t)
        names.update(said.group(1).strip() for line, _ in own_lines(e) if (said := m.merged_name.search(line)))
    return {engineering_key(n) for n in names if n}
