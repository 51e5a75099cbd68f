"""Which of many texts hold a substring, found in one pass over the texts joined (`JoinedTexts`):
every probe of every key at once, with an Aho-Corasick automaton (pyahocorasick, C), so the work is
the joined text's length plus what is found, not the number of probes times that length (a
window's open subjects, which grow with the busy days behind it, each searched the window's text
once: quadratic in a busy month)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

import ahocorasick


class JoinedTexts:
    """`texts` joined with a separator no probe should hold, and where each starts."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = list(texts)
        self._starts = list(accumulate((len(t) + 1 for t in self._texts[:-1]), initial=0))
        self._joined = "\0".join(self._texts)

    def naming(self, probes: dict[str, list[str]]) -> dict[str, list[int]]:
        """For each key of `probes`, the indices (in order) of the texts holding one of its probes as
        a substring. A probe holding the separator is tried in each text instead (it could span
        two); the empty probe is in every text."""
        if not self._texts:
            return {}
        every = range(len(self._texts))
        hits: dict[str, set[int]] = {}
        searched: dict[str, set[int]] = {}  # probe -> the texts it occurs in
        for key, words in probes.items():
            for p in words:
                if not p:
                    hits.setdefault(key, set()).update(every)
                elif "\0" in p:
                    hits.setdefault(key, set()).update(i for i, t in enumerate(self._texts) if p in t)
                else:
                    searched.setdefault(p, set())
        if searched:
            automaton = ahocorasick.Automaton()
            for p in searched:
                automaton.add_word(p, p)
            automaton.make_automaton()
            starts = self._starts
            for end, p in automaton.iter(self._joined):
                searched[p].add(bisect_right(starts, end - len(p) + 1) - 1)
            for key, words in probes.items():
                found = [searched[p] for p in words if p in searched and searched[p]]
                if found:
                    hits.setdefault(key, set()).update(*found)
        return {key: sorted(hits[key]) for key in probes if hits.get(key)}


def texts_naming(probes: dict[str, list[str]], texts: Sequence[str]) -> dict[str, list[int]]:
    """`JoinedTexts(texts).naming(probes)`, for one set of probes."""
    return JoinedTexts(texts).naming(probes)
