"""The numbers check's contradictions of one window, summed up per (subject, unit, metric) without
listing every conflicting pair of sources.

For every two paths of which one is in the window, per (subject, unit, metric): the paths in some
conflicting pair, the least pair, and where its earliest pair comes in the order the check hands
out keys in: what listing every pair `conflicts` gives would report, within the cap below.
Paths with one reading per metric ("simple") are compared by sorted intervals, in k log k; any
other path is paired one by one, at most `max_compared` others per (subject, unit), and a path the
cap cut is listed (`Capped`) so its source's row can say so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import NamedTuple

from tasks.verify.readings import Reading, conflicts

Position = tuple[str, str, int, int]  # (pa, pb, place of a among pa's readings, of b among pb's)


@dataclass
class ConflictSummary:
    subject: str
    unit: str
    metric: str
    first: Position  # its earliest pair in the order of all pairs
    paths: set[str] = field(default_factory=set)
    pair: tuple[Reading, Reading] | None = None  # the least by (pa, pb, value a, value b), then `first` order
    rank: tuple[str, str, str, str, int, int] | None = None

    def add(self, a: Reading, b: Reading, at: Position) -> None:
        self.first = min(self.first, at)
        self.paths.update((a.path, b.path))
        rank = (a.path, b.path, a.value, b.value, at[2], at[3])
        if self.rank is None or rank < self.rank:
            self.pair, self.rank = (a, b), rank


@dataclass(frozen=True)
class Capped:
    """A window path whose readings about (subject, unit) were paired with `compared` of the `of`
    other paths that could be, no more (`max_compared`)."""

    path: str
    subject: str
    unit: str
    compared: int
    of: int


class Summed(NamedTuple):
    summaries: list[ConflictSummary]  # in the order of their earliest pair
    capped: list[Capped]  # in the order of (subject, unit) groups, then path


@dataclass(frozen=True)
class _Simple:
    path: str
    reading: Reading
    in_window: bool


def conflict_summaries(readings: list[Reading], window_paths: set[str], max_compared: int) -> Summed:
    """The summaries of a window's conflicting pairs, and the window paths whose pairing was capped."""
    groups: dict[tuple[str, str], dict[str, list[Reading]]] = {}
    place: dict[int, int] = {}  # id(reading) -> its place among its path's readings
    counts: dict[str, int] = {}
    for r in readings:
        place[id(r)] = counts.get(r.path, 0)
        counts[r.path] = place[id(r)] + 1
        groups.setdefault((r.subject, r.unit), {}).setdefault(r.path, []).append(r)
    out: dict[tuple[str, str, str], ConflictSummary] = {}
    capped: list[Capped] = []

    def add(a: Reading, b: Reading) -> None:
        at = (a.path, b.path, place[id(a)], place[id(b)])
        metric = sorted(a.metrics & b.metrics)[0]
        summary = out.setdefault((a.subject, a.unit, metric), ConflictSummary(a.subject, a.unit, metric, at))
        summary.add(a, b, at)

    for (subject, unit), by_path in groups.items():
        simple: dict[str, list[_Simple]] = {}  # metric -> its simple paths' readings
        complex_paths: set[str] = set()
        measured_paths: list[str] = []  # a path with no reading of a metric is in no pair
        for path, rs in by_path.items():
            measured = [r for r in rs if r.metrics]
            if measured:
                measured_paths.append(path)
            if len(measured) == 1 and len(measured[0].metrics) == 1 and measured[0].span is not None:
                (metric,) = measured[0].metrics
                simple.setdefault(metric, []).append(
                    _Simple(path, measured[0], path in window_paths))
            elif measured:
                complex_paths.add(path)
        for each in simple.values():
            if len({s.reading.conditions for s in each}) > 1:
                # Measured under conditions that may differ: paired one by one (`conflicts`).
                complex_paths.update(s.path for s in each)
                continue
            _simple_pairs(sorted(each, key=lambda s: s.path), add)
        if not complex_paths:
            continue
        # Whom a window path is paired with first: the window's paths, then the lookback's.
        order = sorted(measured_paths, key=lambda p: (p not in window_paths, p))
        order_complex = [p for p in order if p in complex_paths]
        pairs: set[tuple[str, str]] = set()
        for w in (p for p in order if p in window_paths):
            # A complex path is paired with every other; a simple one only with the complex ones.
            others = order if w in complex_paths else order_complex
            of = len(others) - (w in complex_paths)
            pairs.update((min(w, p), max(w, p)) for p in _first_others(others, w, max_compared))
            if of > max_compared:
                capped.append(Capped(w, subject, unit, max_compared, of))
        for pa, pb in sorted(pairs):
            for a, b in conflicts(by_path[pa], by_path[pb]):
                add(a, b)
    return Summed(sorted(out.values(), key=lambda s: s.first), capped)


def _first_others(paths: Iterable[str], path: str, n: int) -> Iterator[str]:
    """The first `n` of `paths` other than `path`."""
    return islice((p for p in paths if p != path), n)


class _Extremes:
    """The two largest lower ends and the two smallest upper ends among some simple paths' intervals:
    enough to find, for any one path, another whose interval misses its own."""

    __slots__ = ("his", "los")

    def __init__(self, los: tuple[tuple[float, _Simple], ...] = (), his: tuple[tuple[float, _Simple], ...] = ()) -> None:
        self.los, self.his = los, his

    def plus(self, s: _Simple) -> _Extremes:
        lo, hi = _span(s)
        return _Extremes(tuple(sorted((*self.los, (lo, s)), key=lambda x: -x[0])[:2]),
                         tuple(sorted((*self.his, (hi, s)), key=lambda x: x[0])[:2]))

    def partner(self, s: _Simple) -> _Simple | None:
        """One of them, of another path, whose interval misses `s`'s; None if there is none."""
        lo, hi = _span(s)
        above = next(((v, t) for v, t in self.los if t.path != s.path), None)
        if above is not None and above[0] > hi:
            return above[1]
        below = next(((v, t) for v, t in self.his if t.path != s.path), None)
        if below is not None and below[0] < lo:
            return below[1]
        return None


def _span(s: _Simple) -> tuple[float, float]:
    span = s.reading.span
    assert span is not None  # a simple path's reading has a readable value
    return span


def _misses(s: _Simple, t: _Simple) -> bool:
    (lo_s, hi_s), (lo_t, hi_t) = _span(s), _span(t)
    return hi_s < lo_t or hi_t < lo_s


def _simple_pairs(items: list[_Simple], add: Callable[[Reading, Reading], None]) -> None:
    """Report the least conflicting pair of simple paths (one of the two in the window) and, for every
    other path in some pair, one pair it is in; `items`: one metric's simple paths, sorted by path."""
    every, window = _Extremes(), _Extremes()
    for s in items:
        every = every.plus(s)
        if s.in_window:
            window = window.plus(s)
    partners = {s.path: (every if s.in_window else window).partner(s) for s in items}
    if not any(partners.values()):
        return
    # The least pair: the first path with a partner after it (any, or one in the window), and the
    # first such partner; the extremes of the paths after each one are kept from the end backwards.
    after: list[tuple[_Extremes, _Extremes]] = []
    every, window = _Extremes(), _Extremes()
    for s in reversed(items):
        after.append((every, window))
        every = every.plus(s)
        if s.in_window:
            window = window.plus(s)
    after.reverse()
    for i, s in enumerate(items):
        if (after[i][0] if s.in_window else after[i][1]).partner(s) is not None:
            t = next(t for t in items[i + 1:] if (s.in_window or t.in_window) and _misses(s, t))
            add(s.reading, t.reading)
            break
    for s in items:
        other = partners[s.path]
        if other is not None:
            a, b = (s, other) if s.path < other.path else (other, s)
            add(a.reading, b.reading)
