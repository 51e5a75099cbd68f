"""Which entries name an engineering increment, found through an index built once per window
rather than by trying every entry for every increment (quadratic in a large source).

`names_it` (tasks.verify.names) is the rule. `NamingIndex.naming` returns exactly the entries of its
pool that `names_it` accepts, in pool order, but runs it only on entries that could pass: those a
title index (`tasks.verify.name_index.NameIndex`), the head-word lists or the word lists of the
first name put forward. `_could_name` says why each skipped entry cannot pass.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from tasks.increments.identity import same_name
from tasks.model.window_views import EntryView
from tasks.verify.name_index import NameIndex
from tasks.verify.names import Names


def names_it(entry: EntryView, names: Sequence[str], common: frozenset[str], nm: Names) -> bool:
    """Whether an entry names the increment: by its title (fuzzy, or the same coined head word) or in its text.
    `common`: the topic's context (tasks.increments.identity), which neither identifies by itself;
    `nm`: the run's name matching."""
    title = entry.title or ""
    if title and not nm.is_generic(title):
        if any(same_name(title, n, common, nm) for n in names):
            return True
        head = nm.head_token(title)
        if head and head not in common and head == nm.head_token(names[0]):
            return True
    return nm.mentions_name(entry.text, names[0])


class NamingIndex:
    """The entries of a pool by what `names_it` could accept them for (see the module docstring)."""

    def __init__(self, pool: Sequence[EntryView], nm: Names) -> None:
        self.pool, self._nm = list(pool), nm
        self._built = False

    def _build(self) -> None:
        """Index the pool, on the first question: most windows have no increment to look for, and
        building it eagerly would index every window's entries and lookback for nothing."""
        nm = self._nm
        titled = [(at, e.title) for at, e in enumerate(self.pool) if e.title and not nm.is_generic(e.title)]
        self._titles = NameIndex(nm, (title for _, title in titled))
        self._heads: dict[str, list[int]] = defaultdict(list)
        self._words: dict[str, list[int]] = defaultdict(list)
        for at, title in titled:
            self._titles.add(at, title)
            head = nm.head_token(title)
            if head:
                self._heads[head].append(at)
        for at, entry in enumerate(self.pool):
            for word in nm.distinct_words(entry.text):
                self._words[word].append(at)
        self._built = True

    def _could_name(self, names: Sequence[str], common: frozenset[str]) -> set[int]:
        """The entries that could pass `names_it`; any other fails each of its rules:
        1. the title matches a name (`same_name`): the titles' `NameIndex`;
        2. the same coined head word as the first name: the list of that head word (`_heads`, keyed
           by `head_token` itself, so a capitalised stop word counts);
        3. the text mentions the first name: its words hold every word of `mention_run(names[0])`,
           so the entry is in the list (`_words`) of each; the shortest list is taken.
        A word common to the pool can still list most entries; `names_it` then runs on those."""
        if not self._built:
            self._build()
        found: set[int] = set()
        for name in dict.fromkeys(names):
            found |= self._titles.matching(name)
        head = self._nm.head_token(names[0])
        if head and head not in common:
            found.update(self._heads.get(head, ()))
        run = self._nm.mention_run(names[0])
        if run:
            shortest = min((self._words.get(word, []) for word in run), key=len)
            found.update(shortest)
        return found

    def naming(self, names: Sequence[str], common: frozenset[str]) -> list[EntryView]:
        """The pool's entries that name the increment (`names_it`), in pool order."""
        return [self.pool[at] for at in sorted(self._could_name(names, common))
                if names_it(self.pool[at], names, common, self._nm)]


class MergeIndex:
    """The merged candidates a new one could be the same thing as (`_same` of
    tasks.increments.engineering): a shared link, a name match (rule 1, over every name each merged
    candidate took in), or the same head word of the titles (`_same` reads a merged candidate's
    title as it is now, so each title it had is kept)."""

    def __init__(self, order_names: Iterable[str], nm: Names) -> None:
        self._nm = nm
        self._names = NameIndex(nm, order_names)
        self._links: dict[str, list[int]] = defaultdict(list)
        self._heads: dict[str, list[int]] = defaultdict(list)
        # What each owner holds already: one thing merged from many candidates is listed once.
        self._seen: set[tuple[str, int, str]] = set()

    def _fresh(self, kind: str, owner: int, value: str) -> bool:
        if (kind, owner, value) in self._seen:
            return False
        self._seen.add((kind, owner, value))
        return True

    def add(self, owner: int, title: str, names: Iterable[str], links: Iterable[str]) -> None:
        for name in names:
            if self._fresh("name", owner, name):
                self._names.add(owner, name)
        for link in links:
            if self._fresh("link", owner, link):
                self._links[link].append(owner)
        head = self._nm.head_token(title)
        if head and self._fresh("head", owner, head):
            self._heads[head].append(owner)

    def could_be(self, title: str, names: Iterable[str], links: Iterable[str]) -> set[int]:
        found: set[int] = set()
        for name in dict.fromkeys(names):
            found |= self._names.matching(name)
        for link in links:
            found.update(self._links.get(link, ()))
        head = self._nm.head_token(title)
        if head:
            found.update(self._heads.get(head, ()))
        return found
