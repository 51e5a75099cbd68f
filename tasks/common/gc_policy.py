"""How often the cyclic garbage collector scans everything a long-lived process holds."""

from __future__ import annotations

import gc


def fewer_full_collections() -> None:
    """Objects alive now are left out of every later collection, and full collections run a tenth
    as often. A process that has imported Prefect and SQLAlchemy and then builds windows of
    hundreds of thousands of objects kept reaching the oldest generation, and each full collection
    scanned all of it again: a large share of a backfill's CPU (tasks/backfill/lanes.py) and of the test
    processes' (tests/conftest.py). Cycles are rare here: rows and windows are
    freed by reference counting, and collections still run, only less often."""
    gc.freeze()
    first, second, third = gc.get_threshold()
    gc.set_threshold(first, second, max(third, 100))
