"""Which vocabulary terms a text uses: the answer of one case-insensitive alternation, found fast.

`reference_hits` is the reference: one `re.I` alternation over the whole vocabulary, scanned with
`finditer` (leftmost match wins, then the lowest term index). It tries every term at every position.
`Vocabulary.hits` gives the same answer, and is the one term matcher (ownership, relevance and
vocabulary evidence all use it): it folds the text once, keeps only the terms that could occur
(`could_occur`, also for callers with their own pattern over the same terms), and replays the
alternation over those. Leaving out terms that cannot occur changes no match.
Folding is exact: `_FOLD` maps the non-ASCII characters `re.I` equates with ASCII letters
(ı İ ſ and the Kelvin sign) before `str.lower()`; tests check the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache, wraps
from itertools import groupby
from typing import TypeVar

_FOLD = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i", "\u212a": "k"})  # ſ ı İ and the Kelvin sign
_SPECIAL = re.compile("[\u017f\u0131\u0130\u212a]")
_RUN = re.compile(r"[a-z0-9]+")
_NEVER = r"(?!x)x"


def _bounded(term: str) -> bool:
    return term.isascii() and term[:1].isalnum() and term[-1:].isalnum()


def _escaped(term: str) -> str:
    return re.escape(term).replace(r"\ ", r"\s*")


def term_pattern(term: str) -> str:
    """One term as a regex: spaces match any whitespace run; ASCII-word terms get ASCII word boundaries."""
    return rf"(?<![A-Za-z0-9]){_escaped(term)}(?![A-Za-z0-9])" if _bounded(term) else _escaped(term)


def terms_pattern(terms: Sequence[str]) -> str:
    """`"|".join(term_pattern(t) for t in terms)`, with the boundaries of each run of consecutive
    ASCII-word terms written once around the run. The same matches, in the same order of preference
    (the boundaries do not depend on which term of the run is tried); Python's `re` checked a
    lookbehind per term at every position, and this took three quarters off a search of long lines."""
    parts: list[str] = []
    for bounded, run in groupby(terms, key=_bounded):
        if bounded:
            parts.append(rf"(?<![A-Za-z0-9])(?:{'|'.join(_escaped(t) for t in run)})(?![A-Za-z0-9])")
        else:
            parts.extend(_escaped(t) for t in run)
    return "|".join(parts)


def kept_terms(terms: tuple[str, ...]) -> tuple[str, ...]:
    """The terms that take part (blank ones never match)."""
    return tuple(term for term in terms if term.strip())


@lru_cache(maxsize=256)
def alternation(terms: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str]]:
    """One alternation over every kept term (group `t<i>` is kept term i): the reference matcher."""
    kept = kept_terms(terms)
    pattern = "|".join(f"(?P<t{i}>{term_pattern(term)})" for i, term in enumerate(kept)) or _NEVER
    return kept, re.compile(pattern, re.I)


def reference_hits(text: str, terms: tuple[str, ...]) -> tuple[str, ...]:
    """The distinct terms found in `text`, in vocabulary order, by scanning the whole alternation."""
    kept, pattern = alternation(terms)
    found = {int(m.lastgroup[1:]) for m in pattern.finditer(text) if m.lastgroup}
    return tuple(kept[i] for i in sorted(found))


def _filterable(term: str) -> bool:
    """Whether a substring test on folded text can stand in for the term's pattern (no false negative)."""
    return all(c.isascii() or (c.lower() == c and c.upper() == c) for c in term)


def _chunks(term: str) -> tuple[str, ...]:
    return tuple(chunk.lower() for chunk in term.split(" ") if chunk)


def _safe_runs(term: str) -> tuple[str, ...]:
    """The runs of a term between spaces and cased non-ASCII characters, lower-cased: each must
    occur in the folded text where the term matches (ASCII and uncased characters fold exactly)."""
    kept = "".join(c if c.isascii() or (c.lower() == c and c.upper() == c) else " " for c in term)
    return _chunks(kept)


# One text is asked about by every topic's vocabulary in turn: what is computed of the last 64
# texts is kept, for texts up to this many characters (an entry; 64 of them, each with its folded
# copy, hold at most 8 MB).
_KEPT_TEXT = 16384
T = TypeVar("T")


def _kept_for_short_texts(fn: Callable[[str], T]) -> Callable[[str], T]:
    """`fn`, its answers for the last 64 texts of up to `_KEPT_TEXT` characters kept."""
    kept = lru_cache(maxsize=64)(fn)

    @wraps(fn)
    def call(text: str) -> T:
        return kept(text) if len(text) <= _KEPT_TEXT else fn(text)
    return call


@_kept_for_short_texts
def folded(text: str) -> str:
    """`text` lower-cased, with the non-ASCII letters `re.I` equates with ASCII ones mapped to them."""
    return (text.translate(_FOLD) if not text.isascii() and _SPECIAL.search(text) else text).lower()


@_kept_for_short_texts
def _runs(low: str) -> frozenset[str]:
    """The ASCII alphanumeric runs of a folded text."""
    return frozenset(_RUN.findall(low))


class Vocabulary:
    """The kept terms of one vocabulary, with what decides whether each could occur in a text."""

    def __init__(self, terms: tuple[str, ...]) -> None:
        self.kept = kept_terms(terms)
        self.patterns = [re.compile(term_pattern(term), re.I) for term in self.kept]
        # What a match must start with in the folded text (None: no such literal, search instead).
        self.lead: list[str | None] = [
            _chunks(term)[0] if _filterable(term) and not term.startswith(" ") else None for term in self.kept
        ]
        self.by_run: dict[str, list[int]] = {}  # bounded terms by their first alphanumeric run
        self.probed: list[tuple[int, tuple[str, ...]]] = []  # other filterable terms with their chunks
        self.always: list[int] = []  # terms scanned whatever the text
        for i, term in enumerate(self.kept):
            bounded = _bounded(term)
            if not _filterable(term):
                runs = _safe_runs(term)
                if runs:
                    self.probed.append((i, runs))
                else:
                    self.always.append(i)
            elif bounded and " " not in term:
                run = _RUN.match(term.lower())
                assert run is not None  # a bounded term starts with an ASCII alphanumeric
                self.by_run.setdefault(run.group(0), []).append(i)
            else:
                self.probed.append((i, _chunks(term)))
        self.chunks = tuple(dict.fromkeys(c for _, chunks in self.probed for c in chunks))

    def hits(self, text: str) -> tuple[str, ...]:
        """`reference_hits(text, terms)`."""
        low = folded(text)
        found = self._replay(self._candidates(low), text, low)
        return tuple(self.kept[i] for i in sorted(found))

    def could_occur(self, text: str) -> frozenset[str]:
        """The kept terms that could occur in `text`: no other term matches anywhere in it."""
        return frozenset(self.kept[i] for i in self._candidates(folded(text)))

    def _candidates(self, low: str) -> list[int]:
        """Indices of the terms that could occur in the folded text `low`, in order:
        - a term with ASCII word boundaries and no space (`vLLM`, `tok/s`) only where an ASCII
          alphanumeric run of the text equals the term's first run (`by_run`);
        - any other term (CJK, or with a space, which the pattern turns into `\\s*`) when each of
          its space-separated chunks is in the folded text;
        - a term with a cased non-ASCII character (where `re.I` and `str.lower()` differ) when each
          of its runs between spaces and such characters is in it; one made of nothing else always."""
        candidates = list(self.always)
        if self.by_run:
            for run in self.by_run.keys() & _runs(low):
                candidates += self.by_run[run]
        present = {c for c in self.chunks if c in low}  # each chunk looked for once, however many terms hold it
        candidates += [i for i, chunks in self.probed if present.issuperset(chunks)]
        return sorted(candidates)

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

    def _replay(self, candidates: list[int], text: str, folded: str) -> set[int]:
        """The terms `finditer` over the alternation yields, given every term that could occur.

        From `pos`, the leftmost start of any term wins, the lowest index among those starting
        there, and the scan resumes at that match's end (a term never matches the empty string:
        kept terms hold a non-space character, which the pattern keeps as a literal).
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
                break  # only terms already found can match from here on
            # Matches of found terms still matter: they consume text another term would match.
            pos = upcoming[winner][1]
            for i, span in list(upcoming.items()):
                if span[0] < pos:
                    nxt = self._leftmost(i, text, folded, pos)
                    if nxt is None:
                        del upcoming[i]
                    else:
                        upcoming[i] = nxt
        return found


@lru_cache(maxsize=256)
def vocabulary(terms: tuple[str, ...]) -> Vocabulary:
    return Vocabulary(terms)
