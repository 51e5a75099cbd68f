"""Caches whose capacity follows the working set they serve.

Consecutive windows of a derivation or a backfill read mostly the same 30 days of items. A cache
of a fixed size serves a small workspace whole and a large one not at all: once one window's
items outnumber its slots, reading them in the same order every window evicts each item just
before it is asked for again, so the work per window grows with the workspace twice over (every
lookback row decoded again for every window: benchmarks/README.md). Here a
caller says how many items one pass reads (`fit`), and the map keeps at least `factor` times
that: its memory grows with what one window holds, which that window holds in memory anyway.

`WorkingSetCache` is such a map; `per_window_item` memoises a pure function asked about each item
of a window (its text, a number's context) in functools' LRU (C, thread-safe), made anew, twice
as large, when `fit_window(rows)` says a window holds more than half of it.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class WorkingSetCache(Generic[K, V]):
    """An LRU map of at least `floor` entries, grown by `fit` to `factor` times the largest pass."""

    def __init__(self, floor: int, factor: int = 2) -> None:
        self.capacity = floor
        self.factor = factor
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()  # the flows' task threads may collect windows at once

    def fit(self, batch: int) -> None:
        """A pass is about to ask for `batch` entries: hold at least `factor` such passes."""
        with self._lock:
            self.capacity = max(self.capacity, self.factor * batch)

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.capacity:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


class _Grown:
    """`fn` behind an LRU of at least `floor` entries and `factor` times the largest window.

    Each instance has a class of its own whose `__call__` is the C cache itself, swapped for a larger
    one by `fit`: a Python `__call__` forwarding to it doubled the cost of each lookup, and a backfill
    year makes about nine million of them."""

    def __new__(cls, *args: Any, **kwargs: Any) -> _Grown:
        return super().__new__(type(cls.__name__, (cls,), {}))

    def __init__(self, fn: Callable[..., Any], floor: int, factor: int) -> None:
        self.fn, self.factor, self.size = fn, factor, floor
        self._install(functools.lru_cache(maxsize=floor)(fn))
        functools.update_wrapper(self, fn)

    def _install(self, cached: functools._lru_cache_wrapper[Any]) -> None:
        self.cached = cached
        setattr(type(self), "__call__", staticmethod(cached))  # noqa: B010 - a class attribute, set at run time

    def fit(self, batch: int) -> None:
        if self.factor * batch > self.size:  # at least doubled: a window's growth costs log-many refills
            self.size = max(self.factor * batch, 2 * self.size)
            self._install(functools.lru_cache(maxsize=self.size)(self.fn))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:  # replaced per instance by `_install` (for typing)
        return self.cached(*args, **kwargs)

    def cache_clear(self) -> None:
        self.cached.cache_clear()


# Weak: a cache made per object (`Names`) goes with its object, not with the process.
_grown: weakref.WeakSet[_Grown] = weakref.WeakSet()
_grown_lock = threading.Lock()
F = TypeVar("F", bound=Callable[..., Any])


def per_window_item(floor: int = 16384, factor: int = 2) -> Callable[[F], F]:
    """Memoise a pure function asked about each item a window reads, for every window."""
    def wrap(fn: F) -> F:
        grown = _Grown(fn, floor, factor)
        with _grown_lock:
            _grown.add(grown)
        return grown  # type: ignore[return-value]
    return wrap


def fit_window(rows: int) -> None:
    """A window (with its lookback) of `rows` items is about to be read: every per-item cache, and
    so what is asked about its items, holds at least two such windows."""
    with _grown_lock:
        for grown in list(_grown):
            grown.fit(rows)
