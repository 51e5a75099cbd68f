"""Classify ingested entries by topic: `tasks.judge.item_topics.classify_topics`, made fast and kept exact.

`classify_topics` scans each entry once per topic with one case-insensitive alternation over the
topic's whole vocabulary (`tasks.judge.relevance.term_hits`) and counts the distinct terms that
`finditer` yields. Python's `re` tries every alternative at every position, so at ingest (hundreds
of thousands of entries) that scan was the largest cost after parsing.

`TopicClassifier` gives the same answer for the same input. Per entry it folds the text to lower
case once (`_FOLD` first: under `re.I` the only non-ASCII characters equal to ASCII letters are
ı İ ſ and the Kelvin sign, and no other character changes length, so positions stay aligned), then:
1. Which terms *match at all*. A term made of one ASCII alphanumeric run (`vLLM`, `H100`) matches
   exactly when that run is one of the text's maximal `[a-z0-9]+` runs: one pass over the text
   and a set intersection answer it for every such term. Any other term is looked for only if it
   could occur (a bounded term by its first run; others when each space-separated chunk is a
   substring, the first chunks found in one regex pass; cased non-ASCII terms always) and then
   confirmed with its own pattern. A term equal to an earlier one but for case never counts.
2. How many of them `finditer` yields. Matches of terms that never overlap cannot take text from
   each other, so each matching term is yielded at its first match. Which pairs of terms *could*
   overlap is worked out once per vocabulary (`term_overlap.may_overlap`, conservative); only when two such
   terms both match does the entry pay for simulating the alternation (`_Vocabulary.hits`):
   leftmost start wins, lowest index among equal starts, the scan resumes at the match's end.
Dropping terms that do not match leaves `finditer`'s matches unchanged, so both steps are exact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from predigest.topics import Topic
from tasks.ingest.term_overlap import bounded, filterable, may_overlap, strings_overlap
from tasks.judge.item_topics import PRIMARY_CATEGORY_WEIGHT, SECONDARY_CATEGORY_WEIGHT
from tasks.judge.relevance import MAX_CONTEXT_CHARS, _term_pattern, _vocabulary

# Characters that re.I (Unicode) equates with an ASCII letter but str.lower() does not turn into it.
_FOLD = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i", "\u212a": "k"})  # ſ ı İ and the Kelvin sign
_SPECIAL = re.compile("[\u017f\u0131\u0130\u212a]")
_RUN = re.compile(r"[a-z0-9]+")
# UTF-8 bytes of folded text with every byte but [a-z0-9] turned into a space: split() then gives
# the text's alphanumeric runs (non-ASCII characters encode to bytes >= 0x80 only), about 1.5x
# faster than `_RUN.findall`, and this is a large part of classifying an entry.
_RUN_BYTES = bytes(c if chr(c).isascii() and chr(c).isalnum() and not chr(c).isupper() else 32 for c in range(256))
_WORD = re.compile(r"[a-z0-9]+\Z")


def fold(text: str) -> str:
    """`text` lower-cased so that a case-insensitive match of an ASCII term shows as a substring."""
    return (text.translate(_FOLD) if not text.isascii() and _SPECIAL.search(text) else text).lower()


def _chunks(term: str) -> tuple[str, ...]:
    return tuple(chunk.lower() for chunk in term.split(" ") if chunk)


@lru_cache(maxsize=1024)
def _term_regex(term: str) -> re.Pattern[str]:
    """One term's branch of the vocabulary alternation, on its own."""
    return re.compile(_term_pattern(term), re.I)


class _Vocabulary:
    """One topic's kept vocabulary, its per-term patterns, what each match starts with, and which
    terms can overlap which."""

    def __init__(self, topic: Topic):
        self.topic = topic
        self.names = {n.lower() for n in topic.names}
        self.kept, _ = _vocabulary(tuple(dict.fromkeys((*topic.names, *topic.terms))))
        self.patterns = [_term_regex(term) for term in self.kept]
        # What a match must start with in the folded text (None: no such literal, search instead).
        self.lead = [_chunks(term)[0] if filterable(term) and not term.startswith(" ") else None
                     for term in self.kept]
        # A term equal to an earlier one but for case (the name "rag", the term "RAG") matches
        # exactly where the earlier one does, and the alternation tries the earlier one first:
        # it never counts, and leaving it out changes no match.
        folded_terms = [term.lower() if filterable(term) else None for term in self.kept]
        self.live = [i for i, f in enumerate(folded_terms) if f is None or f not in folded_terms[:i]]
        # Bit j of overlaps[i]: a match of term j can overlap a match of term i (j != i; symmetric).
        self.overlaps = [
            sum(1 << j for j in self.live if j != i and may_overlap(term, self.kept[j]))
            for i, term in enumerate(self.kept)
        ]

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

    def score(self, matched: list[int], text: str, folded: str) -> int:
        """len(term_hits(text, vocabulary)), given exactly the terms that match somewhere in `text`.

        A term that can overlap none of the others that match counts; those that can are counted by
        simulating the alternation over them alone (they cannot overlap the rest either)."""
        if len(matched) < 2:
            return len(matched)
        mask = 0
        for i in matched:
            mask |= 1 << i
        tangled = [i for i in matched if self.overlaps[i] & mask]
        if not tangled:
            return len(matched)
        return len(matched) - len(tangled) + self.hits(tangled, text, folded)

    def hits(self, candidates: list[int], text: str, folded: str) -> int:
        """len(term_hits(text, vocabulary)) given every term that could occur: the distinct terms
        `finditer` over the alternation yields.

        Simulates the alternation: from `pos`, the leftmost start of any term wins, the lowest index
        among those starting there, and the scan resumes at that match's end.
        """
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


def _first_runs(term: str) -> set[str]:
    """The alphanumeric run a match of a bounded term starts with, for each way its spaces can
    match (each `\\s*` matches whitespace, which ends the run, or nothing, which joins two chunks)."""
    chunks = _chunks(term)
    runs = set()
    for joined in range(1 << (len(chunks) - 1)):
        text = chunks[0] + "".join(("" if joined >> k & 1 else " ") + c for k, c in enumerate(chunks[1:]))
        run = _RUN.match(text)
        assert run is not None  # a bounded term starts with an ASCII alphanumeric
        runs.add(run.group(0))
    return runs


@lru_cache(maxsize=128)
def _vocabulary_of(topic: Topic) -> _Vocabulary:
    """A topic's `_Vocabulary`, built once per process (working out which terms overlap takes a
    while, and a classifier is made per ingested batch or file)."""
    return _Vocabulary(topic)


class TopicClassifier:
    """`classify(text, primary, secondary)` == `classify_topics(text, topics, primary, secondary)`."""

    def __init__(self, topics: Sequence[Topic]):
        self.vocabularies = [_vocabulary_of(t) for t in topics]
        # Every live term of every topic, as (topic index, term index), by how its presence is found.
        self.words: dict[bytes, list[tuple[int, int]]] = {}  # one alphanumeric run: present == matches
        self.by_run: dict[bytes, list[tuple[int, int]]] = {}  # other bounded terms, by their first run
        self.probed: dict[str, list[tuple[int, int, tuple[str, ...]]]] = {}  # the rest, by first chunk
        self.always: list[tuple[int, int]] = []  # cased non-ASCII terms: always confirmed by pattern
        for v, vocab in enumerate(self.vocabularies):
            for i in vocab.live:
                term = vocab.kept[i]
                if not filterable(term):
                    self.always.append((v, i))
                elif bounded(term):
                    lowered = term.lower()
                    if _WORD.match(lowered):
                        self.words.setdefault(lowered.encode(), []).append((v, i))
                        continue
                    for run in _first_runs(term):
                        self.by_run.setdefault(run.encode(), []).append((v, i))
                else:
                    chunks = _chunks(term)
                    self.probed.setdefault(chunks[0], []).append((v, i, chunks[1:]))
        # The probed terms' first chunks, found in one pass: a non-overlapping scan reports every
        # chunk that occurs but those whose every occurrence overlaps a reported one (a longer one
        # is tried first where both start); such a chunk is looked for on its own (`shadows`).
        # Sets, so that intersecting them with a text's runs walks the smaller side.
        self.word_set, self.run_set = frozenset(self.words), frozenset(self.by_run)
        firsts = sorted(self.probed, key=lambda chunk: (-len(chunk), chunk))
        self.first_chunks = re.compile("|".join(map(re.escape, firsts)) or r"(?!x)x")
        self.shadows = {y: [x for x in firsts if x != y and strings_overlap(x, y)] for y in firsts}

    def _matched(self, text: str, folded: str) -> dict[int, list[int]]:
        """The terms that match somewhere in `text`, by topic index (each term once, in no order)."""
        matched: dict[int, list[int]] = {}
        maybe: set[tuple[int, int]] = set(self.always)
        runs = set(folded.encode("utf-8", "surrogatepass").translate(_RUN_BYTES).split())
        for run in runs & self.word_set:
            for v, i in self.words[run]:
                matched.setdefault(v, []).append(i)
        for run in runs & self.run_set:
            maybe.update(self.by_run[run])
        firsts = set(self.first_chunks.findall(folded))
        for found in list(firsts):
            firsts.update(x for x in self.shadows[found] if x not in firsts and x in folded)
        for first in firsts:
            maybe.update((v, i) for v, i, rest in self.probed[first] if all(c in folded for c in rest))
        for v, i in maybe:
            if self.vocabularies[v]._leftmost(i, text, folded, 0) is not None:
                matched.setdefault(v, []).append(i)
        return matched

    def scores(self, text: str, primary: str | None = None, secondary: Iterable[str] = ()) -> dict[str, int]:
        text = text[:MAX_CONTEXT_CHARS]
        folded = fold(text)
        scores: dict[str, int] = {}
        for v, found in self._matched(text, folded).items():
            vocab = self.vocabularies[v]
            score = vocab.score(found, text, folded)
            if score:
                scores[vocab.topic.name] = score
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
