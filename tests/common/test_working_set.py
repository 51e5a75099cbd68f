"""Contract of the working-set caches (`tasks.common.working_set`): a window read again in the same
order is served from the cache whatever its size once `fit` (or `fit_window`) announced it, while a
cache of a fixed size smaller than the window serves it nothing (each entry is evicted just before
it is asked for again); capacity never shrinks; eviction is least recently used; a cache made per object (a `Names`) is
forgotten with its object."""

from __future__ import annotations

from tasks.common.working_set import WorkingSetCache, fit_window, per_window_item


def _two_passes(ask: object, n: int) -> None:
    for _ in range(2):
        for k in range(n):
            ask(k)  # type: ignore[operator]


def test_a_fixed_size_smaller_than_the_window_serves_nothing_and_a_fitted_one_everything() -> None:
    made: list[int] = []

    @per_window_item(floor=8)
    def square(k: int) -> int:
        made.append(k)
        return k * k

    _two_passes(square, 100)
    assert len(made) == 200  # the scan of 100 through 8 slots: every ask a miss
    made.clear()
    fit_window(100)
    _two_passes(square, 100)
    assert len(made) == 100  # the first pass fills it, the second is served whole
    assert square(7) == 49
    fit_window(10)  # a smaller window never shrinks it
    made.clear()
    _two_passes(square, 100)
    assert made == []


def test_the_map_keeps_the_recently_used_and_grows_with_the_pass() -> None:
    cache: WorkingSetCache[int, str] = WorkingSetCache(floor=3)
    for k in range(3):
        cache.put(k, str(k))
    assert cache.get(0) == "0"  # 0 is now the most recent
    cache.put(3, "3")
    assert cache.get(1) is None and cache.get(0) == "0" and len(cache) == 3
    cache.fit(50)
    made = []
    for _ in range(2):
        for k in range(50):
            if cache.get(k) is None:
                made.append(k)
                cache.put(k, str(k))
    assert len(made) == 50 - 3 and len(cache) == 50  # 0, 2 and 3 were kept from before


def test_a_cache_made_per_object_goes_with_its_object() -> None:
    import gc
    import weakref

    from tasks.common import working_set

    class Owner:
        def __init__(self) -> None:
            self.ask = per_window_item(4)(self._ask)

        def _ask(self, k: int) -> int:
            return k

    owner = Owner()
    assert owner.ask(3) == 3
    gc.collect()  # the garbage of earlier tests first: its caches would go with this collection too
    gone, registered = weakref.ref(owner), len(working_set._grown)
    del owner
    gc.collect()
    assert gone() is None and len(working_set._grown) == registered - 1
