"""Contract: `NamingIndex.naming` returns exactly the entries `names_it` accepts, in pool order.

The index (tasks.increments.naming_index) lets the engineering increments find the entries naming
each increment without trying every entry of the window for every increment. On generated pools
of entries and generated increment names, built from a vocabulary that makes every rule of
`names_it` fire (shared distinctive tokens, near-identical names sharing no token, coined head
words, mentions in the text, generic titles, the topic's common words), the indexed answer must be
the plain scan's, entry for entry.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.config.judgment import default_judgment
from tasks.increments.naming_index import NamingIndex, names_it
from tasks.model.window_views import EntryView
from tasks.verify.names import names_of

N = names_of(default_judgment())

# Coined names, near misses of them, long words that differ by a letter (fuzzy matches sharing no
# token), common and stop words ("Without" is a head word that `distinctive` leaves out), versions,
# brackets, CJK and markup.
WORDS = ("Kestrel", "Kestrl", "KestrelX", "FooCache", "FooCaches", "BarQuant", "Qorvex", "vLLM", "SGLang",
         "Abcdefghijklmnop", "Abcdefghijklmnox", "Qrstuvwxyzabcdef", "Qrstuvwxyzabcdex", "release", "engine",
         "the", "for", "of", "Without", "kv", "cache", "2.0", "3.1", "12", "(beta)", "调度器", "发布", "**", "#", "·")
GENERIC = ("Summary", "总结", "")
COMMON = ("kestrel", "vllm", "foocache", "sglang")

phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
title = st.one_of(st.none(), st.sampled_from(GENERIC), phrase)
text = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)


def _entry(k: int, heading: str | None, body: str) -> EntryView:
    return EntryView(source_id=k % 3 + 1, path=f"inbox/amy/note-{k % 3}.md", kind="note", ordinal=k, label=None,
                     heading=heading or "", title=heading, text=body, hedges=())


pools = st.lists(st.tuples(title, text), max_size=25).map(
    lambda rows: [_entry(k, t, body) for k, (t, body) in enumerate(rows)])


@settings(max_examples=300, deadline=None)
@given(pool=pools, queries=st.lists(st.lists(phrase, min_size=1, max_size=3), min_size=1, max_size=5),
       common=st.frozensets(st.sampled_from(COMMON)))
def test_the_index_names_what_the_scan_names(pool: list[EntryView], queries: list[list[str]],
                                            common: frozenset[str]) -> None:
    index = NamingIndex(pool, N)
    for names in queries:
        assert index.naming(names, common) == [e for e in pool if names_it(e, names, common, N)]


def test_a_fuzzy_match_sharing_no_token_is_found() -> None:
    """The rule the token index cannot serve: near-identical names with no token in common."""
    near, name = "Abcdefghijklmnox Qrstuvwxyzabcdex", "Abcdefghijklmnop Qrstuvwxyzabcdef"
    assert N.names_match(near, name) and not N.distinctive(near) & N.distinctive(name)
    pool = [_entry(0, "BarQuant", "nothing here"), _entry(1, near, "nor here")]
    assert NamingIndex(pool, N).naming([name], frozenset()) == [pool[1]]


def test_a_mention_needs_the_whole_run_in_order() -> None:
    """A text holding the name's words out of order does not name it; the index must not add it."""
    pool = [_entry(0, None, "Qorvex engine release"), _entry(1, None, "release engine Qorvex")]
    assert NamingIndex(pool, N).naming(["Qorvex engine release"], frozenset()) == [pool[0]]
