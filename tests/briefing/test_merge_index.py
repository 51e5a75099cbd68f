"""Contract: merging the window's engineering candidates through `MergeIndex` gives exactly what
the plain merge gives: each candidate joins the first earlier merged one that shares a key with
it, holds no entry of the candidate's notes (two entries of one note are two things) and is the
same thing (`_same`), else stands alone.

The index only narrows which earlier candidates `_same` is asked about; on generated candidates
(names from a vocabulary with shared common words, near-identical words, coined head words,
versions and links, entries of three notes shared between candidates, some recommended) the merged titles,
entries, lines and recommendations must be the plain merge's, candidate for candidate.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.config.judgment import default_judgment
from tasks.increments.candidates import Candidate
from tasks.increments.engineering import _keys, _merge, _same
from tasks.model.window_views import EntryView

J = default_judgment()
WORDS = ("Kestrel", "Kestrl", "KestrelX", "FooCache", "BarQuant", "Without", "vLLM", "Abcdefghijklmnop",
         "Abcdefghijklmnox", "release", "engine", "the", "2.0", "3.1", "调度器", "(beta)")
LINKS = ("", "https://github.com/acme/kestrel", "https://example.org/foocache/blog")
COMMON = ("kestrel", "vllm", "foocache")

phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
entry_rows = st.lists(st.tuples(phrase, st.sampled_from(LINKS)), min_size=1, max_size=12)
cand_rows = st.lists(st.tuples(phrase, st.lists(st.integers(0, 11), min_size=1, max_size=2), st.booleans()),
                     min_size=1, max_size=14)


def _candidates(entries: list[tuple[str, str]], rows: list[tuple[str, list[int], bool]]) -> list[Candidate]:
    pool = [EntryView(1, f"inbox/amy/note-{k % 3}.md", "note", k, None, title, title, f"{title} {link}", ())
            for k, (title, link) in enumerate(entries)]
    return [Candidate(title, [pool[i % len(pool)] for i in picks], [f"line {n}"], recommended)
            for n, (title, picks, recommended) in enumerate(rows)]


def _plain(cands: list[Candidate], common: frozenset[str]) -> list[Candidate]:
    """The merge as it was: every earlier merged candidate sharing a key is asked, in order."""
    merged: list[Candidate] = []
    keysets: list[set[str]] = []
    paths: list[set[str]] = []
    for cand in cands:
        keys, own = _keys(cand, common, J), {e.path for e in cand.entries}
        at = next((k for k in range(len(merged))
                   if keysets[k] & keys and not own & paths[k] and _same(merged[k], cand, common, J)), None)
        if at is None:
            merged.append(cand)
            keysets.append(set(keys))
            paths.append(own)
            continue
        same = merged[at]
        if cand.recommended and not same.recommended:
            same.title, same.recommended = cand.title, True
        same.entries += [e for e in cand.entries if all(e is not held for held in same.entries)]
        same.lines += cand.lines
        keysets[at] |= keys
        paths[at] |= own
    return merged


def _shape(merged: list[Candidate]) -> list[tuple[str, bool, list[int], list[str]]]:
    return [(c.title, c.recommended, [e.ordinal for e in c.entries], c.lines) for c in merged]


@settings(max_examples=300, deadline=None)
@given(entries=entry_rows, rows=cand_rows, common=st.frozensets(st.sampled_from(COMMON)))
def test_the_indexed_merge_is_the_plain_merge(entries: list[tuple[str, str]], rows: list[tuple[str, list[int], bool]],
                                              common: frozenset[str]) -> None:
    indexed = _merge(_candidates(entries, rows), common, J)
    assert _shape(indexed) == _shape(_plain(_candidates(entries, rows), common))


def test_a_stop_word_head_with_one_version_merges() -> None:
    """"Without" leads both titles and is no distinctive token: only the head-word list finds the pair."""
    entries = [("Without Kestrel release 2.0", ""), ("Without FooCache release 2.0", ""), ("BarQuant release 2.0", "")]
    rows = [("BarQuant release 2.0", [2], False), ("Without Kestrel release 2.0", [0], False),
            ("Without FooCache release 2.0", [1], False)]  # entries 0 and 1 are of different notes
    indexed = _shape(_merge(_candidates(entries, rows), frozenset(), J))
    assert indexed == _shape(_plain(_candidates(entries, rows), frozenset()))
    assert [c[2] for c in indexed] == [[2], [0, 1]]
