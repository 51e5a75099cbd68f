"""Classify ingested entries by topic: `tasks.judge.item_topics.classify_topics`, made fast and kept exact.

`classify_topics` scans each entry once per topic with one case-insensitive alternation over the
topic's whole vocabulary (`tasks.judge.relevance.term_hits`). Python's `re` tries every alternative
at every position, so at ingest (hundreds of thousands of entries) that scan was the largest cost
(~1.3 ms an entry, 19 of 78 s for a 1,000-note workspace).

`TopicClassifier` gives the same answer for the same input. Per entry it folds the text to lower
case once and works out which terms *could* occur; only those are scanned, with the same
alternation restricted to them (same order, same group indices). Terms that cannot occur never
match at any position, so dropping them leaves `finditer`'s leftmost-first, non-overlapping
matches, and so the distinct hits, unchanged. Which terms could occur:
- a term with ASCII word boundaries and no space (`vLLM`, `tok/s`, `TensorRT-LLM`) can only match
  where an ASCII alphanumeric run of the text starts, and that run must equal the term's first
  run (the character after it is the term's next, non-alphanumeric, character or the boundary):
  one `[a-z0-9]+` pass gives the set of runs, a dict gives the terms;
- any other term (CJK, or with a space, which the pattern turns into `\s*`) needs each of its
  space-separated chunks in the folded text (a substring test);
- a term with a cased non-ASCII character is always scanned.
Folding is exact: under `re.I`, the only non-ASCII characters equal to ASCII letters, or inside
`[A-Za-z0-9]`, are ı İ ſ and the Kelvin sign (U+212A) (checked over every code point), and `_FOLD` maps
them to their ASCII letters before `str.lower()`; no other character changes length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from predigest.topics import Topic
from tasks.judge.item_topics import PRIMARY_CATEGORY_WEIGHT, SECONDARY_CATEGORY_WEIGHT
from tasks.judge.relevance import MAX_CONTEXT_CHARS, _term_pattern, _vocabulary

# Characters that re.I (Unicode) equates with an ASCII letter but str.lower() does not turn into it.
_FOLD = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i", "\u212a": "k"})  # ſ ı İ and the Kelvin sign
_SPECIAL = re.compile("[\u017f\u0131\u0130\u212a]")


def _filterable(term: str) -> bool:
    """Whether a substring test on folded text can stand in for the term's pattern (no false negative)."""
    return all(c.isascii() or (c.lower() == c and c.upper() == c) for c in term)


_RUN = re.compile(r"[a-z0-9]+")


def _bounded(term: str) -> bool:
    """Whether `_term_pattern` puts ASCII word boundaries around the term."""
    return term.isascii() and term[:1].isalnum() and term[-1:].isalnum()


def _chunks(term: str) -> tuple[str, ...]:
    return tuple(chunk.lower() for chunk in term.split(" ") if chunk)


@lru_cache(maxsize=1024)
def _term_regex(term: str) -> re.Pattern[str]:
    """One term's branch of the vocabulary alternation, on its own."""
    return re.compile(_term_pattern(term), re.I)


class _Vocabulary:
    """One topic's kept vocabulary, its per-term patterns and what each term's match starts with."""

    def __init__(self, topic: Topic):
        self.topic = topic
        self.names = {n.lower() for n in topic.names}
        self.kept, _ = _vocabulary(tuple(dict.fromkeys((*topic.names, *topic.terms))))
        self.patterns = [_term_regex(term) for term in self.kept]
        # What a match must start with in the folded text (None: no such literal, search instead).
        self.lead = [_chunks(term)[0] if _filterable(term) and not term.startswith(" ") else None
                     for term in self.kept]

    def _leftmost(self, i: int, text: str, folded: str, pos: int) -> tuple[int, int] | None:
        """(start, end) of term i's leftmost match starting at or after `pos`, else None."""
        pattern, lead = self.patterns[i], self.lead[i]
        if lead is None:  # a leading space (`\s*`: the match may start before it) or a cased non-ASCII term
            m = pattern.search(text, pos)
            return m.span() if m else None
        while (at := folded.find(lead, pos)) >= 0:
            m = pattern.match(text, at)
            if m:
                return m.span()
            pos = at + 1
        return None

    def hits(self, candidates: list[int], text: str, folded: str) -> int:
        """len(term_hits(text, vocabulary)) given every term that could occur: the distinct terms
        `finditer` over the alternation yields.

        Simulates the alternation: from `pos`, the leftmost start of any term wins, the lowest index
        among those starting there, and the scan resumes at that match's end.
        """
        if len(candidates) == 1:
            return 1 if self.patterns[candidates[0]].search(text) else 0
        upcoming: dict[int, tuple[int, int]] = {}
        for i in candidates:
            span = self._leftmost(i, text, folded, 0)
            if span is not None:
                upcoming[i] = span
        found: set[int] = set()
        while upcoming:
            start = min(span[0] for span in upcoming.values())
            winner = min(i for i, span in upcoming.items() if span[0] == start)
            found.add(winner)
            if found.issuperset(upcoming):
                break  # only counted terms can match from here on
            # Matches of counted terms still matter: they consume text another term would match.
            pos = upcoming[winner][1]
            for i, span in list(upcoming.items()):
                if span[0] < pos:
                    nxt = self._leftmost(i, text, folded, pos)
                    if nxt is None:
                        del upcoming[i]
                    else:
                        upcoming[i] = nxt
        return len(found)


class TopicClassifier:
    """`classify(text, primary, secondary)` == `classify_topics(text, topics, primary, secondary)`."""

    def __init__(self, topics: Sequence[Topic]):
        self.vocabularies = [_Vocabulary(t) for t in topics]
        # Which terms could occur, over every topic: (topic index, term index) pairs.
        self.by_run: dict[str, list[tuple[int, int]]] = {}  # bounded terms by their first alphanumeric run
        self.probed: dict[str, list[tuple[int, int, tuple[str, ...]]]] = {}  # others by first character
        self.always: list[tuple[int, int]] = []  # terms scanned whatever the text
        for v, vocab in enumerate(self.vocabularies):
            for i, term in enumerate(vocab.kept):
                if not _filterable(term):
                    self.always.append((v, i))
                elif _bounded(term) and " " not in term:
                    run = _RUN.match(term.lower())
                    assert run is not None  # a bounded term starts with an ASCII alphanumeric
                    self.by_run.setdefault(run.group(0), []).append((v, i))
                else:
                    chunks = _chunks(term)
                    self.probed.setdefault(chunks[0][0], []).append((v, i, chunks))

    def scores(self, text: str, primary: str | None = None, secondary: Iterable[str] = ()) -> dict[str, int]:
        text = text[:MAX_CONTEXT_CHARS]
        folded = (text.translate(_FOLD) if not text.isascii() and _SPECIAL.search(text) else text).lower()
        candidates: dict[int, list[int]] = {}
        for v, i in self.always:
            candidates.setdefault(v, []).append(i)
        for run in self.by_run.keys() & set(_RUN.findall(folded)):
            for v, i in self.by_run[run]:
                candidates.setdefault(v, []).append(i)
        for first, group in self.probed.items():
            if first in folded:
                for v, i, chunks in group:
                    if all(c in folded for c in chunks):
                        candidates.setdefault(v, []).append(i)
        scores: dict[str, int] = {}
        for v, found in candidates.items():
            score = self.vocabularies[v].hits(found, text, folded)
            if score:
                scores[self.vocabularies[v].topic.name] = score
        secondary_set = {s.lower() for s in secondary}
        if primary or secondary_set:
            for vocab in self.vocabularies:
                name = vocab.topic.name
                score = scores.get(name, 0)
                if primary and primary.lower() in vocab.names:
                    score += PRIMARY_CATEGORY_WEIGHT
                if vocab.names & secondary_set:
                    score += SECONDARY_CATEGORY_WEIGHT
                if score:
                    scores[name] = score
        return scores

    def classify(
        self, text: str, primary: str | None = None, secondary: Iterable[str] = ()
    ) -> tuple[str | None, list[str]]:
        """(primary topic, adjacent topics): the best score wins, ties by name; the rest are adjacent."""
        scores = self.scores(text, primary, secondary)
        if not scores:
            return None, []
        ranked = sorted(scores, key=lambda name: (-scores[name], name))
        return ranked[0], sorted(ranked[1:])
