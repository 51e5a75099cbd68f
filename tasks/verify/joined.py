"""Which of many texts hold a substring, found by searching the texts joined once (`JoinedTexts`):
the Python work is one step per (key, text) found, not per (key, text) pair, so a window's open
subjects can each be met with only the entries that could name them."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate


class JoinedTexts:
    """`texts` joined with a separator no probe should hold, and where each starts."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = list(texts)
        self._starts = list(accumulate((len(t) + 1 for t in self._texts[:-1]), initial=0))
        self._joined = "\0".join(self._texts)

    def naming(self, probes: dict[str, list[str]]) -> dict[str, list[int]]:
        """For each key of `probes`, the indices (in order) of the texts holding one of its probes as
        a substring: each probe is searched in the joined texts, skipping to the next text at each
        find. A probe holding the separator is tried in each text instead (it could span two)."""
        if not self._texts:
            return {}
        starts, joined = self._starts, self._joined
        out: dict[str, list[int]] = {}
        for key, words in probes.items():
            hits: set[int] = set()
            for p in words:
                if "\0" in p:
                    hits.update(i for i, t in enumerate(self._texts) if p in t)
                    continue
                at = joined.find(p)
                while at != -1:
                    i = bisect_right(starts, at) - 1
                    hits.add(i)
                    at = joined.find(p, starts[i + 1]) if i + 1 < len(starts) else -1
            if hits:
                out[key] = sorted(hits)
        return out


def texts_naming(probes: dict[str, list[str]], texts: Sequence[str]) -> dict[str, list[int]]:
    """`JoinedTexts(texts).naming(probes)`, for one set of probes."""
    return JoinedTexts(texts).naming(probes)
