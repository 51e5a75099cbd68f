"""Which entries name an engineering increment, found through an index built once per window
rather than by trying every entry for every increment (quadratic in a source of hundreds of
increments).

`names_it` is the rule; `NamingIndex.naming` gives exactly the entries of its pool that
`names_it` accepts, in pool order, but runs it only on the entries that could pass. Why each
entry it skips cannot pass, rule by rule of `names_it` (tasks.verify.names):

1. The title matches a name (`names_match(title, n)`, title not generic). `names_match` is false
   when either side has no distinctive token; otherwise it is true in three ways:
   a. Two or more shared distinctive tokens. Order all tokens by how many of the pool's titles
      hold them (then alphabetically), and drop from each side its last token: the first of the
      shared tokens is not the last of either side (another shared one comes after it), so it is
      in both what is left. So the entry is in the list (`_prefix`) of one of the name's tokens but
      its last, and a word every title holds ("release") is not what finds them.
   b. One shared token where one side has only that token: the name is that one token, and the
      entry is in its full list (`_containing`); or the title is, and the entry is in the list of
      one-token titles (`_singles`) of a token of the name.
   c. `fuzz.ratio(normalise(title), normalise(n)) >= FUZZY_SAME`: nearly the same string implies
      no shared token (each word of one may differ by a letter from the other's). This rule keeps
      its scan, over the normalised titles only and done by `rapidfuzz.process.extract` in C with
      the same scorer and a cutoff a little below the rule's (a superset, then `names_it` decides),
      so it costs one call per increment name, not Python work per entry.
2. The same coined head word (`head_token(title) == head_token(names[0])`, not one of the topic's
   common words): the entry is in the list of that head word (`_heads`, keyed by `head_token`
   itself: a capitalised stop word, "Without", is a head word that `distinctive` leaves out).
3. The text mentions the first name (`mentions_name(text, names[0])`): the text's words
   (`text_words`) hold the run `mention_run(names[0])` in order, so they hold every word of it;
   the entry is in the list (`_words`) of each, and the shortest list is taken.

Lists a word common to the pool (the only word of a name, every word of a name's run) can still
hold most entries; `names_it` then runs on those, and entries that all name one another make an
output that large anyway.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from rapidfuzz import fuzz, process

from tasks.model.window import EntryView
from tasks.verify.names import (
    FUZZY_SAME,
    distinctive,
    head_token,
    is_generic,
    mention_run,
    mentions_name,
    names_match,
    normalise,
    text_words,
)

# Below the rule's threshold so that no float rounding inside rapidfuzz can drop a true match.
_FUZZY_FLOOR = FUZZY_SAME - 0.5


def names_it(entry: EntryView, names: Sequence[str], common: frozenset[str]) -> bool:
    """Whether an entry names the increment: by its title (fuzzy, or the same coined head word) or in its text."""
    title = entry.title or ""
    if title and not is_generic(title):
        if any(names_match(title, n) for n in names):
            return True
        head = head_token(title)
        if head and head not in common and head == head_token(names[0]):
            return True
    return mentions_name(entry.text, names[0])


class NamingIndex:
    """The entries of a pool by what `names_it` could accept them for (see the module docstring)."""

    def __init__(self, pool: Sequence[EntryView]) -> None:
        self.pool = list(pool)
        titled = [(at, distinctive(e.title or "")) for at, e in enumerate(self.pool)
                  if e.title and not is_generic(e.title)]
        self._held = Counter(token for _, tokens in titled for token in tokens)
        self._prefix: dict[str, list[int]] = defaultdict(list)
        self._containing: dict[str, list[int]] = defaultdict(list)
        self._singles: dict[str, list[int]] = defaultdict(list)
        self._heads: dict[str, list[int]] = defaultdict(list)
        self._words: dict[str, list[int]] = defaultdict(list)
        self._titled: list[int] = []  # pool positions of the titles in `_normal`
        self._normal: list[str] = []  # normalised titles that have a distinctive token
        for at, tokens in titled:
            for token in tokens:
                self._containing[token].append(at)
            for token in self._all_but_last(tokens):
                self._prefix[token].append(at)
            if len(tokens) == 1:
                self._singles[next(iter(tokens))].append(at)
            head = head_token(self.pool[at].title or "")
            if head:
                self._heads[head].append(at)
            if tokens:
                self._titled.append(at)
                self._normal.append(normalise(self.pool[at].title or ""))
        for at, entry in enumerate(self.pool):
            for word in dict.fromkeys(text_words(entry.text)):
                self._words[word].append(at)

    def _all_but_last(self, tokens: frozenset[str]) -> list[str]:
        """The tokens but the one most titles hold (rule 1a); none of a single token."""
        ordered = sorted(tokens, key=lambda t: (self._held[t], t))
        return ordered[:-1]

    def _by_title(self, name: str) -> set[int]:
        """The entries whose title could match `name` (rule 1)."""
        tokens = distinctive(name)
        if not tokens:
            return set()  # names_match is false for it
        found: set[int] = set()
        if len(tokens) == 1:
            found.update(self._containing.get(next(iter(tokens)), ()))
        else:
            for token in self._all_but_last(tokens):
                found.update(self._prefix.get(token, ()))
            for token in tokens:
                found.update(self._singles.get(token, ()))
        near = process.extract(normalise(name), self._normal, scorer=fuzz.ratio, processor=None,
                               score_cutoff=_FUZZY_FLOOR, limit=None)
        found.update(self._titled[at] for _, _, at in near)
        return found

    def _could_name(self, names: Sequence[str], common: frozenset[str]) -> set[int]:
        found: set[int] = set()
        for name in dict.fromkeys(names):
            found |= self._by_title(name)
        head = head_token(names[0])
        if head and head not in common:
            found.update(self._heads.get(head, ()))
        run = mention_run(names[0])
        if run:
            shortest = min((self._words.get(word, []) for word in run), key=len)
            found.update(shortest)
        return found

    def naming(self, names: Sequence[str], common: frozenset[str]) -> list[EntryView]:
        """The pool's entries that name the increment (`names_it`), in pool order."""
        return [self.pool[at] for at in sorted(self._could_name(names, common))
                if names_it(self.pool[at], names, common)]
