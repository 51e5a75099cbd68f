"""Which names could match a name (`names_match`), through an index rather than by trying each.

`NameIndex.matching` returns a superset of the owners of the names `names_match` accepts, through
lists keyed by distinctive tokens (for two or more shared tokens, or one side of one token) and
one `rapidfuzz.process.extract` scan for nearly identical strings (a `blocks` function limits it to a block).
The caller then runs `names_match` itself on what is returned. `matching` argues each way.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

from rapidfuzz import fuzz, process

from tasks.verify.names import FUZZY_SAME, Names, normalise

# Below the rule's threshold so that no float rounding inside rapidfuzz can drop a true match.
_FUZZY_FLOOR = FUZZY_SAME - 0.5


class TokenOrder:
    """One order of distinctive tokens for rule a, fixed before the first name is added: by how many
    of `order_names` hold a token, else (names not known up front) the longer token first, as a
    rarer one usually is. Indexes that are asked about the same names share one; what each set of
    tokens keeps of the order is worked out once."""

    def __init__(self, nm: Names, order_names: Iterable[str] | None = None) -> None:
        self._held = Counter(token for name in order_names or () for token in nm.distinctive(name))
        self._by_count = order_names is not None
        self._kept: dict[frozenset[str], list[str]] = {}

    def all_but_last(self, tokens: frozenset[str]) -> list[str]:
        """The tokens but the last in the order (rule 1a); none of a single token."""
        kept = self._kept.get(tokens)
        if kept is None:
            key = (lambda t: (self._held[t], t)) if self._by_count else (lambda t: (-len(t), t))
            kept = self._kept[tokens] = sorted(tokens, key=key)[:-1]
        return kept


class NameIndex:
    """Owners (pool positions, merged candidates, list positions) of names, found by what could make
    `names_match` true. Rule 1a needs one order of tokens for both sides (`TokenOrder`: of
    `order_names`, unless `order` is given). `nm`: the run's name matching. `blocks`: rule c looks
    only among the names sharing one of a name's blocks (else among all names)."""

    def __init__(self, nm: Names, order_names: Iterable[str] | None = None,
                 blocks: Callable[[str], Iterable[str]] | None = None, order: TokenOrder | None = None) -> None:
        self._distinctive = nm.distinctive
        self._order = order if order is not None else TokenOrder(nm, order_names)
        self._prefix: dict[str, list[int]] = defaultdict(list)
        self._containing: dict[str, list[int]] = defaultdict(list)
        self._singles: dict[str, list[int]] = defaultdict(list)
        self._owners: list[int] = []  # the owner of each name in `_normal`
        self._normal: list[str] = []  # normalised names that have a distinctive token
        self._blocks = blocks
        # Per block, its names' owners and normalised names (rule c with `blocks`).
        self._block_owners: dict[str, list[int]] = defaultdict(list)
        self._block_normal: dict[str, list[str]] = defaultdict(list)

    def add(self, owner: int, name: str) -> None:
        tokens = self._distinctive(name)
        if not tokens:
            return  # names_match is false for it
        for token in tokens:
            self._containing[token].append(owner)
        for token in self._order.all_but_last(tokens):
            self._prefix[token].append(owner)
        if len(tokens) == 1:
            self._singles[next(iter(tokens))].append(owner)
        if self._blocks is None:
            self._owners.append(owner)
            self._normal.append(normalise(name))
            return
        for block in self._blocks(name):
            self._block_owners[block].append(owner)
            self._block_normal[block].append(normalise(name))

    def matching(self, name: str) -> set[int]:
        """The owners of a name that could match `name`: a superset of those `names_match` accepts.
        `names_match` is false when either side has no distinctive token; otherwise it is true when
        a. two or more distinctive tokens are shared: in one token order, the first shared token is
           not the last of either side, so the name is in the list (`_prefix`) of a token of the
           query but its last (ordered by how many names hold a token, so "release" finds little);
        b. one side is that one shared token: the query's full list (`_containing`), or the list of
           one-token names (`_singles`) of a token of the query;
        c. `fuzz.ratio` of the normalised names reaches `FUZZY_SAME` (no shared token needed): one
           `rapidfuzz.process.extract` call with a cutoff a little below it (`_nearly_same`)."""
        tokens = self._distinctive(name)
        if not tokens:
            return set()
        found: set[int] = set()
        if len(tokens) == 1:
            found.update(self._containing.get(next(iter(tokens)), ()))
        else:
            for token in self._order.all_but_last(tokens):
                found.update(self._prefix.get(token, ()))
            for token in tokens:
                found.update(self._singles.get(token, ()))
        if self._blocks is None:
            found.update(self._owners[at] for at in _nearly_same(name, self._normal))
            return found
        for block in self._blocks(name):
            owners = self._block_owners.get(block)
            if owners:
                found.update(owners[at] for at in _nearly_same(name, self._block_normal[block]))
        return found


def _nearly_same(name: str, normal: list[str]) -> list[int]:
    """The positions in `normal` of the names nearly the same string as `name` (rule c), in C."""
    near = process.extract(normalise(name), normal, scorer=fuzz.ratio, processor=None,
                           score_cutoff=_FUZZY_FLOOR, limit=None)
    return [at for _, _, at in near]


_ALNUM = re.compile(r"[A-Za-z0-9]+")


class CoinedIds:
    """Which papers' coined names (`Names.short_name` of their titles) a text names, as a whole word
    (no ASCII letter or digit either side), through an index rather than one search per paper.

    A name that starts with an ASCII letter or digit begins with a run of them, and where the name
    stands in a text as a whole word that run is the whole of one of the text's runs (the name's
    next character, or the text's past its end, is none). So only the names whose first run is one
    of the text's are searched; a name starting otherwise ("（…）") is searched in every text."""

    def __init__(self, titles: Iterable[tuple[str, str]], nm: Names) -> None:
        self._by_run: dict[str, list[tuple[str, re.Pattern[str]]]] = defaultdict(list)
        self._always: list[tuple[str, re.Pattern[str]]] = []
        for arxiv_id, title in sorted(titles):
            name = nm.short_name(title)
            if not name:
                continue
            found = (arxiv_id, re.compile(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])"))
            first = _ALNUM.match(name)
            (self._by_run[first.group(0)] if first else self._always).append(found)

    def named(self, text: str) -> list[str]:
        """The ids whose coined name `text` names, in id order."""
        runs = set(_ALNUM.findall(text))
        candidates = [c for run in runs for c in self._by_run.get(run, ())] + self._always
        return sorted(dict.fromkeys(i for i, pattern in candidates if pattern.search(text)))
