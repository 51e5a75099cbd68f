"""What identifies an engineering increment: the coined name it is about, or a link to its own page.

A platform or host a thing runs on (vLLM, SGLang, PyTorch: the topic's coined vocabulary and
`[engineering] platforms`) is context, not identity: "Kimi K3 on vLLM" and "tiered KV cache
offloading in vLLM" share only their platform and are two things. So two names that match
(tasks.verify.names) are the same thing only if they share a word that is not context, or neither
names anything but context ("vLLM 0.11" and "vLLM v0.11" are about vLLM itself). Likewise a
link to a platform's home (its site, its repository on a code host, their listing pages:
`[engineering] code_hosts`, `listing_paths`) is context; any other link (a release, a pull
request, a blog post, a project's own repository) identifies what it is about.

Entries of one note are two things unless the note says they are one: a line holding a merge or
same-item word (`[markers] merge_words`, `same_item_words`) and the numbers of the entries it joins
("条目#1 + #2 合成一条", "same item as #2": the entry it stands in counts when it names one other).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from tasks.config.judgment import Judgment
from tasks.judge.terms import Vocabulary, vocabulary
from tasks.model.window_views import EntryView
from tasks.verify.markers import label_number, label_refs, markers_of
from tasks.verify.names import Names, names_of


def context_words(topic_words: Iterable[str], j: Judgment) -> frozenset[str]:
    """The words that are context for a topic, lower case: its vocabulary and the judgment's platforms."""
    return frozenset(w.lower() for w in (*topic_words, *j.words("engineering", "platforms")) if w.strip())


@lru_cache(maxsize=64)
def _context_tokens(context: frozenset[str], nm: Names) -> frozenset[str]:
    return frozenset(t for w in context for t in nm.distinctive(w))


def same_name(a: str, b: str, context: frozenset[str], nm: Names) -> bool:
    """`names_match` (of the run's `nm`), unless all the two names share is context while one of
    them names more than context and common words ("Kimi K3 on vLLM" and "vLLM": a platform both
    run on is not what either is about; "vLLM 0.12" and "vLLM 0.12 release" are both about vLLM)."""
    if not nm.names_match(a, b):
        return False
    ta, tb = nm.distinctive(a), nm.distinctive(b)
    shared = ta & tb
    if not shared:
        return True  # a near-identical string
    tokens = _context_tokens(context, nm)
    return not shared <= tokens or not (ta - tokens - nm.common or tb - tokens - nm.common)


def identifying_links(links: Iterable[str], context: frozenset[str], j: Judgment) -> set[str]:
    """The links (host + path, as tasks.increments.novelty.links gives them) that identify one thing:
    all but a platform's home (its site, its repository, their listing pages)."""
    return {url for url in links if not _platform_home(url, context, j)}


@lru_cache(maxsize=65536)  # asked for every pair of candidates compared
def _platform_home(url: str, context: frozenset[str], j: Judgment) -> bool:
    host, _, path = url.partition("/")
    parts = [p.lower() for p in re.split(r"[/?#]", path) if p]
    listings = {w.lower() for w in j.words("engineering", "listing_paths")}
    if any(host == h or host.endswith("." + h) for h in j.words("engineering", "code_hosts")):
        project, rest = parts[:2], parts[2:]
    else:
        project, rest = host.split(".")[:-1], parts
    return bool(context.intersection(project)) and all(p in listings for p in rest)


def _joining(j: Judgment) -> Vocabulary:
    """The words that say two entries are one thing ("same item as #2", "merge these")."""
    return vocabulary((*j.words("markers", "merge_words"), *j.words("markers", "same_item_words")))


def declared_groups(entries: Sequence[EntryView], lines: Sequence[Sequence[str]], j: Judgment) -> list[list[int]]:
    """Groups of indices into `entries` that their note says are one thing; `lines[k]` are entry k's lines."""
    by_number: dict[str, int] = {}
    for k, entry in enumerate(entries):
        number = label_number(entry.label)
        if number:
            by_number.setdefault(number, k)
    if len(by_number) < 2:
        return []
    joining, nm = _joining(j), names_of(j)
    groups: list[list[int]] = []
    for k, entry in enumerate(entries):
        own = label_number(entry.label)
        for line in lines[k]:
            if not joining.hits(line):  # the vocabulary's literal probes: a long line, scanned in C
                continue
            refs = [by_number[n] for n in label_refs(markers_of(j), line) if n in by_number]
            if own and not nm.is_generic(entry.title) and len(refs) == 1 and refs[0] != k:
                refs.insert(0, k)  # "same item as #2", written in the entry it joins to #2
            refs = list(dict.fromkeys(refs))
            if len(refs) >= 2:
                groups.append(refs)
    return groups


def fold_targets(members: Sequence[Sequence[int]], n: int, groups: Iterable[Sequence[int]]) -> list[int]:
    """For each item (the indices, below `n`, of the entries it holds), the first item it is one thing
    with: it shares an entry with it, or an entry of one declared group (itself when there is none)."""
    root = list(range(n))  # union-find over the entries

    def find(k: int) -> int:
        while root[k] != k:
            root[k] = root[root[k]]
            k = root[k]
        return k

    for group in groups:
        for k in group[1:]:
            a, b = find(group[0]), find(k)
            root[max(a, b)] = min(a, b)
    owner: dict[int, int] = {}  # a group's root -> the first item holding one of its entries
    out = []
    for at, held in enumerate(members):
        marks = [find(k) for k in held]
        first = next((owner[m] for m in marks if m in owner), at)
        out.append(first)
        for m in marks:
            owner.setdefault(m, first)
    return out
