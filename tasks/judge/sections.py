"""Where an increment belongs in the knowledge document, and what it sits next to there.

The document is read as of a day: a body entry (bullet) counts when its `[anchored D]` is on or
before the day (nested bullets inherit their parent's date; undated bullets count when the
version in force was written by then). Sections are scored with BM25 over character bigrams
for CJK and lower-cased words for ASCII. A source's explicit hint ("建议：§1.1 …", "归入 §4.1",
legacy "§1.(13)" mapped through the document's own old-to-new table) narrows the candidates to
that section and its sub-sections; BM25 then picks among them.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Any

from tasks.common.text import CJK_RANGE
from tasks.config.judgment import Judgment
from tasks.judge.statements import word_pattern
from tasks.knowledge.parse import ANCHORED, section_entries

_ASCII = re.compile(r"[a-z0-9][a-z0-9.+-]*[a-z0-9]|[a-z]")
_CJK = re.compile(f"[{CJK_RANGE}]+")
_BOLD = re.compile(r"\*\*([^*]{2,80})\*\*")
_REF = re.compile(r"§\s*(\d+(?:\.\(\d+\)|\.\d+)*)")
K1, B = 1.5, 0.75


def tokens(text: str) -> list[str]:
    """BM25 terms: lower-cased ASCII words and CJK character bigrams (a lone CJK character as itself)."""
    lowered = text.lower()
    out = _ASCII.findall(lowered)
    for run in _CJK.findall(lowered):
        out += [run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run]
    return out


@dataclass(frozen=True)
class DocEntry:
    section: str  # the section's label, "§1.1 框架格局 › 子节"
    name: str
    text: str
    anchored_on: dt.date | None
    named: bool = True  # the entry names its subject in bold (a cross-reference line does not)


@dataclass
class DocSection:
    number: str
    label: str
    entries: list[DocEntry] = field(default_factory=list)


@lru_cache(maxsize=8)
def _title_notes(j: Judgment) -> re.Pattern[str]:
    words = "|".join(map(re.escape, j.words("knowledge", "section_title_notes")))
    return re.compile(rf"[（(][^（()）]*(?:{words}|\d{{4}}-\d{{2}}-\d{{2}})[^（()）]*[)）]\s*$")


def _clean_title(title: str, j: Judgment) -> str:
    return _title_notes(j).sub("", title).strip()


def _entry_name(text: str) -> str:
    bold = _BOLD.search(text)
    if bold:
        return bold.group(1).strip()
    plain = ANCHORED.sub("", text).replace("**", "").strip()
    return re.split(r"[：:（(，,；;。]", plain, maxsplit=1)[0].strip()[:24]


def doc_sections(sections: Iterable[dict[str, Any]], day: dt.date, undated_count: bool, j: Judgment) -> list[DocSection]:
    """Numbered sections (unnumbered sub-sections inherit the number) with their entries as of `day`."""
    out: list[DocSection] = []
    parent: tuple[int, str, str] | None = None  # level, number, label of the last numbered heading
    for raw in sections:
        number, title, level = str(raw.get("number") or ""), _clean_title(str(raw.get("title") or ""), j), int(raw.get("level") or 0)
        if number:
            parent = (level, number, f"{number} {title}".strip())
            current = DocSection(number, parent[2])
        elif parent is not None and level > parent[0]:
            current = DocSection(parent[1], f"{parent[2]} › {title}")
        else:
            parent = None
            continue
        current.entries = [e for e in _section_entries(current.label, _stored(raw))
                           if (e.anchored_on is not None and e.anchored_on <= day)
                           or (e.anchored_on is None and undated_count)]
        if current.entries:
            out.append(current)
    return out


@lru_cache(maxsize=512)
def _section_entries(label: str, stored: tuple[tuple[str, str | None], ...]) -> tuple[DocEntry, ...]:
    """Every entry (list item) of a section whatever the day, frozen and shared by every window's
    index: every window reads the same document, and only which dates count changes. Ingest read
    them from the document's one parse (`tasks.knowledge.parse.Section.entries`): an entry is its
    list item's own text, wrapped lines too, dated by its own `[anchored D]` or its parent's."""
    return tuple(DocEntry(label, _entry_name(text), text, dt.date.fromisoformat(when) if when else None,
                          bool(_BOLD.search(text))) for text, when in stored)


def _stored(raw: dict[str, Any]) -> tuple[tuple[str, str | None], ...]:
    """A stored section's entries; read from its text for a snapshot stored before ingest stored them."""
    stored = raw.get("entries")
    if stored is None:
        return tuple((e.text, e.anchored_on.isoformat() if e.anchored_on else None)
                     for e in section_entries(str(raw.get("text") or "")))
    return tuple((str(text), str(when) if when else None) for text, when in stored)


def legacy_map(sections: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Old section numbers to current ones, from any table row "| §1.(13) | … | §2.5 … |"."""
    mapping: dict[str, str] = {}
    for raw in sections:
        for line in str(raw.get("text") or "").splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
            if len(cells) < 2:
                continue
            old = _REF.fullmatch(cells[0].replace(" ", ""))
            target = next((m for c in cells[1:] if (m := _REF.match(c))), None)
            if old and "(" in old.group(1) and target:
                mapping[f"§{old.group(1)}"] = f"§{target.group(1)}"
    return mapping


@lru_cache(maxsize=8)
def _hint_line(j: Judgment) -> re.Pattern[str]:
    return word_pattern(j.words("markers", "section_hint"))


def hinted_numbers(texts: Iterable[str], mapping: dict[str, str], j: Judgment) -> list[str]:
    """Section numbers the sources recommend, most recommended first (first ref of each hint line)."""
    votes: Counter[str] = Counter()
    order: list[str] = []
    hint_line = _hint_line(j)
    for text in texts:
        for line in text.splitlines():
            if not hint_line.search(line):
                continue
            m = _REF.search(line)
            if m:
                number = mapping.get(f"§{m.group(1)}", f"§{m.group(1)}")
                votes[number] += 1
                if number not in order:
                    order.append(number)
    return sorted(order, key=lambda n: (-votes[n], order.index(n)))


@dataclass(frozen=True)
class Suggestion:
    section: str
    neighbours: tuple[str, ...]
    basis: str  # hint, text


Doc = tuple[Counter[str], int]  # term frequencies and length of one BM25 document


@lru_cache(maxsize=16384)
def _doc(text: str) -> Doc:
    """An entry's BM25 document; the document's entries are the same for every window, so each is
    tokenised once (callers only read the Counter)."""
    terms = _terms(text)
    return Counter(terms), len(terms)


@lru_cache(maxsize=16384)
def _terms(text: str) -> tuple[str, ...]:
    return tuple(tokens(text))


@lru_cache(maxsize=256)
def _section_doc(label: str, texts: tuple[str, ...]) -> Doc:
    """A section's BM25 document: its label and entries joined by newlines; no term spans a
    newline, so its counts are the sum of the parts' counts. A section's entries as of a day change
    only when one is anchored in it, so the windows of a backfill share most sections' documents
    (callers only read the Counter)."""
    # Counted from the parts' terms in one pass (Counter's C loop): adding the parts' Counters
    # one by one ran in Python and was most of a window's placing.
    parts = [_terms(label), *(_terms(t) for t in texts)]
    return Counter(chain.from_iterable(parts)), sum(len(p) for p in parts)


@lru_cache(maxsize=8)
def _stop(j: Judgment) -> frozenset[str]:
    return frozenset(w.lower() for w in j.words("names", "stop"))


class SectionIndex:
    """BM25 over the document's sections as of a day."""

    def __init__(self, sections: Sequence[DocSection], mapping: dict[str, str], j: Judgment) -> None:
        self.sections = list(sections)
        self.mapping, self.judgment = mapping, j
        self.entry_docs = [[_doc(e.text) for e in s.entries] for s in self.sections]
        self.docs = [_section_doc(s.label, tuple(e.text for e in s.entries)) for s in self.sections]
        self.avgdl = sum(length for _, length in self.docs) / len(self.docs) if self.docs else 0.0
        df: Counter[str] = Counter()
        for tf, _ in self.docs:
            df.update(tf.keys())
        n = len(self.docs)
        self.idf = {t: math.log((n - c + 0.5) / (c + 0.5) + 1) for t, c in df.items()}

    def _score(self, query: list[str], doc: Doc, wanted: set[str] | None = None) -> float:
        """BM25 of `doc` for `query` (sorted); `wanted` (the query as a set) lets only the shared
        terms be visited, in the query's order, so the float sum is the same."""
        tf, length = doc
        norm = K1 * (1 - B + B * length / self.avgdl) if self.avgdl else K1
        terms = sorted(wanted & tf.keys()) if wanted is not None else [t for t in query if t in tf]
        return sum(self.idf.get(t, 0.0) * tf[t] * (K1 + 1) / (tf[t] + norm) for t in terms)

    def suggest(self, query_text: str, hint_texts: Iterable[str] = ()) -> Suggestion | None:
        """The best section for an increment, preferring the sources' own hints."""
        if not self.sections:
            return None
        # A fixed order: float sums must not depend on hashing. Stop words ("of", "with") place nothing.
        query = sorted(set(tokens(query_text)) - _stop(self.judgment))
        hints = hinted_numbers(hint_texts, self.mapping, self.judgment)
        for number in hints:
            pool = [i for i, s in enumerate(self.sections) if s.number == number or s.number.startswith(number + ".")]
            if pool:
                return self._pick(pool, query, "hint")
        return self._pick(range(len(self.sections)), query, "text")

    def _pick(self, pool: Iterable[int], query: list[str], basis: str) -> Suggestion | None:
        wanted = set(query)
        scored = [(self._score(query, self.docs[i], wanted), -i) for i in pool]
        best_score, neg = max(scored)
        if basis == "text" and best_score <= 0:
            return None
        section, entry_docs = self.sections[-neg], self.entry_docs[-neg]
        ranked = sorted(
            ((self._score(query, entry_docs[k], wanted), -k, e.name) for k, e in enumerate(section.entries) if e.named),
            reverse=True,
        )
        neighbours = tuple(dict.fromkeys(name for score, _, name in ranked if score > 0 and name))[:3]
        return Suggestion(section.label, neighbours, basis)


def doc_names(sections: Sequence[DocSection]) -> list[str]:
    """Names the document body holds as of its day: entry names and sub-section titles."""
    names: list[str] = []
    for section in sections:
        names += [e.name for e in section.entries if e.name]
        tail = section.label.rsplit(" › ", 1)
        if len(tail) == 2:
            names.append(tail[1])
    return list(dict.fromkeys(names))
