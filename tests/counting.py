"""Counting a stage's operations for the scaling tests (issue 23): every line of Python it executes
(`sys.settrace`), which is deterministic, unlike seconds; and the check that the counts grow at most
linearly in the size of what was grown (tests/ingest/test_scaling.py grows one source,
tests/ingest/test_window_scaling.py the number of sources in one window)."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

SLACK = 1.25
# The first step (x1 -> x10) is the smallest difference and the noisiest: the runs differ by a few
# thousand lines whatever their size (set order, weakref callbacks), which can even make it negative.
# A linear stage spends a few dozen Python lines per element (the evening's per-line scans cost 27 per
# line of the "lines" note: own_lines 10, names 7, recommends_e1 3, ...); a scan of the earlier elements
# per element costs hundreds at x100. So 40 lines per element is allowed at any size.
FLOOR = 40.0


def count_lines(fn: Callable[..., Any], *args: Any) -> int:
    """How many Python lines `fn(*args)` executes, loop bodies and comprehensions included (a
    comprehension that scans a list for every element is where quadratic work hides)."""
    lines = 0

    def trace(frame: FrameType, event: str, arg: object) -> Callable[..., Any]:
        nonlocal lines
        if event == "line":
            lines += 1
        return trace

    gc.collect()
    gc.disable()  # a collection's weakref callbacks would add lines when they happen to run
    sys.settrace(trace)
    try:
        fn(*args)
    finally:
        sys.settrace(None)
        gc.enable()
    return lines


def assert_linear(counts: dict[int, int], what: str) -> None:
    """Each step's extra operations per extra element at most SLACK times the first step's: a
    linear stage adds the same per element at x10 as at x1, a quadratic one ten times as much.
    (Differences, so fixed costs and what the first run warms up do not enter.) Where the work per
    element is done in C (a regex over the lines), Python adds next to nothing per element, and the
    runs differ by a few thousand lines anyway (set order): FLOOR lines per element are allowed at
    any size, far below what a scan of the earlier elements per element costs at x100."""
    sizes = sorted(counts)
    first = max(FLOOR, (counts[sizes[1]] - counts[sizes[0]]) / (sizes[1] - sizes[0]))
    for low, high in zip(sizes[1:], sizes[2:], strict=False):
        step = (counts[high] - counts[low]) / (high - low)
        assert step <= SLACK * first, f"{what}: {step:.0f} lines per element from {low} to {high}, {first:.0f} at first ({counts})"
