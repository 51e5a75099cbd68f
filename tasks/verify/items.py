"""One pending item per subject: the verifications listed on a day, merged where they are about the
same thing.

Two listed verifications are about the same subject when their subjects are equal, when their
names, without entry markers (`subjects.entry_heading`), match (`names.same_thing`: shared
distinctive tokens, one coined name, the same coined name leading both, or nearly the same
string), when one is a paper and the other names it (its id, or a name matching the paper's title
or coined name), or when they share a coined name and question the same figure (one claim named
in two languages). Open items merge with open items, resolved
with resolved. The merged item keeps the first one's place, kind and 现象 (plus what another kind
of doubt says), is named by the paper when one of them is a paper, takes the first 风险 and 建议
any of them has, the union of their sources and keys, the earliest raise and the latest sighting.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from tasks.model.judged import StatusAsOf
from tasks.verify.context import text_ids
from tasks.verify.markers import Markers
from tasks.verify.name_index import NameIndex, TokenOrder
from tasks.verify.names import names_of
from tasks.verify.status import OPEN
from tasks.verify.subjects import entry_heading


def _is_paper(v: StatusAsOf) -> bool:
    return _is_id(v.subject)


def _is_id(subject: str) -> bool:
    return text_ids(subject) == [subject]


class _Named(NamedTuple):
    """What comparing a view reads of its (subject, title), worked out once per pair of strings."""

    paper: bool
    names: tuple[str, ...]
    heads: tuple[str | None, ...]  # each name's `head_token`
    coined: frozenset[str]  # the coined tokens of all its names


# A year of open items compares the same few thousand (subject, title) pairs on every date, with
# many others each: the pair comparisons outnumber any cache of them, so what each side
# contributes is computed once here (a pure function of the two strings).
@lru_cache(maxsize=65536)
def _named(m: Markers, subject: str, title: str) -> _Named:
    names, nm = _names_of(m, subject, title), names_of(m.judgment)
    return _Named(_is_id(subject), names, tuple(nm.head_token(n) for n in names),
                  frozenset().union(*map(nm.coined_tokens, names)))


def _names_of(m: Markers, subject: str, title: str) -> tuple[str, ...]:
    """The names a view goes by: its subject unless an id, its title, a paper title's coined name."""
    paper = _is_id(subject)
    coined = names_of(m.judgment).short_name(title) if paper else None
    # Compared without entry markers: an item stored as "Increment 1 - FooServe" is FooServe's.
    return tuple(entry_heading(m, n) or n for n in (None if paper else subject, title, coined) if n)


# A questioned figure: a percentage or a multiple ("40%", "2.1×", "3x", "2 倍").
_FIGURE = re.compile(r"(\d+(?:\.\d+)?)\s*(%|×|x(?![A-Za-z])|倍)")


@lru_cache(maxsize=65536)
def figures(claim: str) -> frozenset[str]:
    """The percentages and multiples a claim questions, in one spelling ("2.10x" and "2.1 倍" are "2.1×")."""
    return frozenset(f"{float(n):g}{'%' if unit == '%' else '×'}" for n, unit in _FIGURE.findall(claim))


# A view is compared by its subject, title and figures only, and a year of open items repeats the
# same few thousand of them on every date: the answers are kept (pure functions of their arguments).
@lru_cache(maxsize=65536)
def _same_subject(m: Markers, a_subject: str, a_title: str, a_figures: frozenset[str],
                  b_subject: str, b_title: str, b_figures: frozenset[str]) -> bool:
    if a_subject == b_subject:
        return True
    a, b = _named(m, a_subject, a_title), _named(m, b_subject, b_title)
    if a.paper and b.paper:
        return False  # two papers are two subjects
    if (a.paper and a_subject in b_subject) or (b.paper and b_subject in a_subject):
        return True
    # `names.same_thing` of each pair of names, with each name's head token read once.
    nm = names_of(m.judgment)
    if any((hx is not None and hx == hy) or nm.names_match(x, y)
           for x, hx in zip(a.names, a.heads, strict=True) for y, hy in zip(b.names, b.heads, strict=True)):
        return True
    # Named in two languages ("vLLM 分层 KV 卸载", "Tiered KV Cache Offloading in vLLM"): the same
    # coined name questioned for the same figure is one claim.
    return bool(a_figures & b_figures) and bool(a.coined & b.coined)


def merge_into(base: StatusAsOf, other: StatusAsOf) -> StatusAsOf:
    """`base` with `other` (about the same subject) merged in."""
    if _is_paper(other) and not _is_paper(base):
        base = dataclasses.replace(base, subject=other.subject, title=other.title)  # the paper names it best
    return dataclasses.replace(
        base,
        sources=tuple(dict.fromkeys(base.sources + other.sources)),
        keys=tuple(dict.fromkeys(base.keys + other.keys)),
        kinds=tuple(dict.fromkeys(base.kinds + other.kinds)),
        # Another kind of doubt about the same thing adds what it says; one more hedge does not.
        claim=base.claim if set(other.kinds) <= set(base.kinds) or other.claim in base.claim
        else f"{base.claim}；{other.claim}",
        raised_on=min(base.raised_on, other.raised_on),
        last_seen=max(base.last_seen, other.last_seen),
        age_days=max(base.age_days, other.age_days),
        status="stale" if "stale" in (base.status, other.status) and base.status in OPEN else base.status,
        seen_in_window=base.seen_in_window or other.seen_in_window,
        risk=base.risk or other.risk,
        advice=base.advice or other.advice,
        title=base.title if base.title != base.subject or other.title == other.subject else other.title,
    )


@lru_cache(maxsize=65536)
def _blocks(m: Markers, name: str) -> tuple[str, ...]:
    """Where a name looks for names nearly the same string: its distinctive tokens, ASCII ones by
    their first four letters (so "FooServe" and "FooServer" meet)."""
    return tuple(sorted({t[:4] if t.isascii() else t for t in names_of(m.judgment).distinctive(name)}))


# The same-figure rule's keys pair each coined token with each figure: a person's heading names a
# few coined things and a claim questions a few figures, so only the first of each (in sorted order)
# make keys, which bounds a pathological heading or claim (thousands of each) to this many squared.
MAX_COINED_FIGURES = 32


# A year of open items lists the same views on every date (a pure function of its arguments).
@lru_cache(maxsize=65536)
def _exact_keys(m: Markers, subject: str, title: str, figs: frozenset[str]) -> tuple[tuple[str, ...], ...]:
    """What two views sharing one of is the same subject by a rule other than matching names: the
    subject itself, an arXiv id one of them is or holds, a name's head token, a coined token
    questioned for the same figure."""
    named = _named(m, subject, title)
    coined, questioned = sorted(named.coined)[:MAX_COINED_FIGURES], sorted(figs)[:MAX_COINED_FIGURES]
    return (("s", subject), *(("id", i) for i in text_ids(subject)),
            *(("h", h) for h in dict.fromkeys(named.heads) if h is not None),
            *(("cf", c, f) for c in coined for f in questioned))


class _Partition:
    """Owners (here: the signatures `_Subjects` knows) by what could make `_same_subject` true of a
    view: its exact keys (`_exact_keys`) or its names (`NameIndex`, which argues that no
    `names_match` is missed; its nearly-the-same-string scan looks among names sharing a `_blocks`
    block, as the pairs compared always did)."""

    def __init__(self, m: Markers, order: TokenOrder) -> None:
        self._names = NameIndex(names_of(m.judgment), blocks=lambda name: _blocks(m, name), order=order)
        self._exact: dict[tuple[str, ...], list[int]] = {}

    def add(self, at: int, names: tuple[str, ...], keys: tuple[tuple[str, ...], ...]) -> None:
        """File owner `at` (added once) under each of its keys and names."""
        for key in dict.fromkeys(keys):
            self._exact.setdefault(key, []).append(at)
        for name in dict.fromkeys(names):
            self._names.add(at, name)

    def could_match(self, names: tuple[str, ...], keys: tuple[tuple[str, ...], ...]) -> set[int]:
        found: set[int] = set()
        for key in keys:
            found.update(self._exact.get(key, ()))
        for name in names:
            found.update(self._names.matching(name))
        return found


_Sig = tuple[str, str, frozenset[str]]  # what a view is compared by: subject, title, figures


class _Subjects:
    """Every (subject, title, figures) seen by `one_per_subject` so far (per `Markers`), each with the
    ones it is the same subject as (`_same_subject`, the earlier one first, as `one_per_subject`
    asks it). A year of open items lists the same few thousand of them on every date: each is
    compared, through a `_Partition` of the papers and one of the rest, once when first seen, not
    on every date it is listed. Whether two are the same subject depends on the pair alone, so the
    answers do not depend on what was seen before. Bounded: past `LIMIT` it starts over."""

    LIMIT = 200_000

    def __init__(self, m: Markers) -> None:
        self._m = m
        self._lock = threading.Lock()  # topics may be judged in threads of one process
        self._start()

    def _start(self) -> None:
        self._at: dict[_Sig, int] = {}
        self._sigs: list[_Sig] = []
        self._same: list[set[int]] = []  # per signature: the signatures it is the same subject as
        order = TokenOrder(names_of(self._m.judgment))
        # Papers apart: a paper is the same subject as another paper only when their subjects are
        # equal, so papers meet papers by their subject alone, not by their titles' words.
        self._papers, self._others = _Partition(self._m, order), _Partition(self._m, order)

    def same_as(self, sigs: Sequence[_Sig]) -> dict[_Sig, tuple[_Sig, ...]]:
        """For each of `sigs`, those of `sigs` that are the same subject as it (itself included), in no
        particular order."""
        with self._lock:
            if len(self._sigs) + len(sigs) > self.LIMIT:
                self._start()
            for sig in dict.fromkeys(sigs):
                if sig not in self._at:
                    self._know(sig)
            present = {self._at[sig] for sig in sigs}
            return {sig: tuple(self._sigs[k] for k in self._same[self._at[sig]] & present)
                    for sig in dict.fromkeys(sigs)}

    def _know(self, sig: _Sig) -> None:
        m, (subject, title, figs) = self._m, sig
        at = len(self._sigs)
        self._at[sig] = at
        self._sigs.append(sig)
        self._same.append({at})
        named, keys = _named(m, subject, title), _exact_keys(m, subject, title, figs)
        near = self._others.could_match(named.names, keys)
        near |= self._papers.could_match((), (("s", subject),)) if named.paper else \
            self._papers.could_match(named.names, keys)
        for k in near:
            s, t, f = self._sigs[k]
            if _same_subject(m, s, t, f, subject, title, figs):  # `sig` listed after `k`'s
                self._same[at].add(k)
            if _same_subject(m, subject, title, figs, s, t, f):  # `sig` listed before `k`'s
                self._same[k].add(at)
        (self._papers if named.paper else self._others).add(at, named.names, keys)


@lru_cache(maxsize=8)
def _subjects(m: Markers) -> _Subjects:
    return _Subjects(m)


def one_per_subject(views: Sequence[StatusAsOf], m: Markers) -> list[StatusAsOf]:
    """`views` in their order, each merged into the first earlier item about the same subject (as
    any of the views already merged into it names it). A busy window or a year of open items is
    thousands of views, many sharing a word, and the same few thousand subjects on every date: which
    of a date's views are about the same subject is looked up (`_Subjects`), never found by
    comparing each view with every item.

    Items are kept apart by whether they are open: an item stays open or resolved as it was created
    (`merge_into` keeps the first one's) and only open merges with open."""
    sigs = [(v.subject, v.title, figures(v.claim)) for v in views]
    same_as = _subjects(m).same_as(sigs)
    out: list[StatusAsOf] = []
    held: list[set[_Sig]] = []  # per item: its views' signatures
    items_with: dict[tuple[bool, _Sig], list[int]] = {}  # (open, signature): the items holding it
    for view, sig in zip(views, sigs, strict=True):
        is_open = view.status in OPEN
        at = min((k for other in same_as[sig] for k in items_with.get((is_open, other), ())), default=None)
        if at is None:
            at = len(out)
            out.append(view)
            held.append(set())
        else:
            out[at] = merge_into(out[at], view)
        if sig not in held[at]:
            held[at].add(sig)
            items_with.setdefault((is_open, sig), []).append(at)
    return out
