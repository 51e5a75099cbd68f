"""Contract of tasks.judge.sections' caching: `doc_sections` (bullets parsed once per section text)
and `SectionIndex` (entries tokenised once, section counts summed from their parts, scores summed
over the shared terms only) give exactly what the plain computation gives: the same sections and
entries as of every day, the same BM25 scores to the last bit, the same suggestions."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tasks.config.judgment import default_judgment
from tasks.ingest.rows import snapshot_fields
from tasks.ingest.sources import note_items
from tasks.judge import sections as S
from tasks.knowledge.parse import ANCHORED, parse_knowledge, to_date
from tests.generate.large import generate
from tests.helpers import SAMPLE_WORKSPACE

TZ = ZoneInfo("Asia/Shanghai")
# The plain computation reads a bullet as its first line (the documents here wrap none; an entry
# whose anchor sits on a wrapped line is tests/judge/test_doc_entries.py's).
_PLAIN_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")


# --- the plain computation (as it was before the caches) -------------------------------------------


def plain_doc_sections(sections: Iterable[dict[str, Any]], day: dt.date, undated_count: bool) -> list[S.DocSection]:
    out: list[S.DocSection] = []
    parent: tuple[int, str, str] | None = None
    for raw in sections:
        number, title, level = str(raw.get("number") or ""), S._clean_title(str(raw.get("title") or ""), J), int(raw.get("level") or 0)
        if number:
            parent = (level, number, f"{number} {title}".strip())
            current = S.DocSection(number, parent[2])
        elif parent is not None and level > parent[0]:
            current = S.DocSection(parent[1], f"{parent[2]} › {title}")
        else:
            parent = None
            continue
        stack: list[tuple[int, dt.date | None]] = []
        for line in str(raw.get("text") or "").splitlines():
            m = _PLAIN_BULLET.match(line)
            if not m:
                continue
            indent, body = len(m.group(1)), m.group(2)
            while stack and stack[-1][0] >= indent:
                stack.pop()
            dated = ANCHORED.search(body)
            when = to_date(*dated.group(1).split("-")) if dated else (stack[-1][1] if stack else None)
            stack.append((indent, when))
            if (when is not None and when <= day) or (when is None and undated_count):
                current.entries.append(S.DocEntry(current.label, S._entry_name(body), body, when,
                                                  bool(S._BOLD.search(body))))
        if current.entries:
            out.append(current)
    return out


class PlainIndex:
    def __init__(self, sections: Sequence[S.DocSection]) -> None:
        self.sections = list(sections)
        docs = [S.tokens(s.label + "\n" + "\n".join(e.text for e in s.entries)) for s in self.sections]
        self.docs = [(Counter(d), len(d)) for d in docs]
        self.entry_docs = [[(Counter(t), len(t)) for t in (S.tokens(e.text) for e in s.entries)] for s in self.sections]
        self.avgdl = sum(len(d) for d in docs) / len(docs) if docs else 0.0
        df: Counter[str] = Counter()
        for doc in docs:
            df.update(set(doc))
        n = len(self.docs)
        self.idf = {t: math.log((n - c + 0.5) / (c + 0.5) + 1) for t, c in df.items()}

    def score(self, query: list[str], doc: tuple[Counter[str], int]) -> float:
        tf, length = doc
        norm = S.K1 * (1 - S.B + S.B * length / self.avgdl) if self.avgdl else S.K1
        return sum(self.idf.get(t, 0.0) * tf[t] * (S.K1 + 1) / (tf[t] + norm) for t in query if t in tf)


# --- the documents and queries ---------------------------------------------------------------------


def _raw(text: str) -> list[dict[str, Any]]:
    doc = parse_knowledge(text, TZ)
    return snapshot_fields(doc, "inference")["sections"]  # as ingest stores them, their entries too


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> list[list[dict[str, Any]]]:
    sample = (SAMPLE_WORKSPACE / "organized" / "knowledge" / "inference.md").read_text(encoding="utf-8")
    root = tmp_path_factory.mktemp("generated")
    generate(root, notes=20, seed=3)  # its knowledge document: 3,000 dated anchors in numbered sections
    generated = (root / "organized" / "knowledge" / "inference.md").read_text(encoding="utf-8")
    return [_raw(sample), _raw(generated)]


def _queries() -> list[str]:
    texts = [entry.heading + "\n" + entry.text
             for path in sorted(Path(SAMPLE_WORKSPACE, "inbox").rglob("*.md"))
             for entry in note_items(path.read_bytes().decode("utf-8", "replace"))]
    return [t[:4000] for t in texts[::12]] + ["", "KV cache", "建议：§1.(3) KV Cache（主）"]


J = default_judgment()
DAYS = [dt.date(2026, 1, 1), dt.date(2026, 7, 20), dt.date(2026, 10, 7), dt.date(2026, 10, 9), dt.date(2027, 1, 1)]


def test_doc_sections_as_of_every_day(documents: list[list[dict[str, Any]]]) -> None:
    for raw in documents:
        for day in DAYS:
            for undated in (True, False):
                for _ in range(2):  # the second time from the cache
                    assert S.doc_sections(raw, day, undated, J) == plain_doc_sections(raw, day, undated)


def test_scores_and_suggestions_are_bit_identical(documents: list[list[dict[str, Any]]]) -> None:
    queries = _queries()
    compared = 0
    for raw in documents:
        for day in (DAYS[2], DAYS[4]):
            sections = S.doc_sections(raw, day, True, J)
            index, plain = S.SectionIndex(sections, S.legacy_map(raw), J), PlainIndex(sections)
            assert index.docs == plain.docs and index.entry_docs == plain.entry_docs
            assert index.avgdl == plain.avgdl and index.idf == plain.idf
            for text in queries:
                query = sorted(set(S.tokens(text)))
                wanted = set(query)
                for i, doc in enumerate(index.docs):
                    assert index._score(query, doc, wanted) == plain.score(query, plain.docs[i])
                    for k, entry_doc in enumerate(index.entry_docs[i]):
                        assert index._score(query, entry_doc, wanted) == plain.score(query, plain.entry_docs[i][k])
                        compared += 1
    assert compared > 5_000


def test_suggestions_do_not_depend_on_the_caches(documents: list[list[dict[str, Any]]]) -> None:
    queries = _queries()
    for raw in documents:
        sections = S.doc_sections(raw, DAYS[3], True, J)
        first = [S.SectionIndex(sections, S.legacy_map(raw), J).suggest(q, [q]) for q in queries]
        S._doc.cache_clear()
        S._section_entries.cache_clear()
        again = S.SectionIndex(S.doc_sections(raw, DAYS[3], True, J), S.legacy_map(raw), J)
        assert [again.suggest(q, [q]) for q in queries] == first
        assert any(s is not None for s in first)


def test_tokens_never_span_a_newline() -> None:
    # What lets a section's counts be summed from its label's and entries' counts.
    for text in ["ab\ncd", "a.b\n+c", "中文\n字符", "x-\n-y", "KV\ncache", "İ\nK"]:
        left, _, right = text.partition("\n")
        assert Counter(S.tokens(text)) == Counter(S.tokens(left)) + Counter(S.tokens(right))
    assert not re.search(r"\n", S._ASCII.pattern + S._CJK.pattern)
