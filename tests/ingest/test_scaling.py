"""Contract: every stage's work grows at most linearly with one source's size (issue 23, part 1).

One generated source is grown x10 and x100 along one dimension at a time (entries naming ids, one
entry naming many ids, plain lines, table rows, list nesting, and "merges": engineering
increments, each a release and a benchmark of one coined system that merge into one, all sharing
the words "release"/"benchmark" and their numbers), and each stage's operations are counted: every
line of Python executed while it runs (`sys.settrace`), which is deterministic, unlike seconds. The
count at x10 and x100 must stay within that factor (with 25% slack for the cost of a bigger set
here and there) of the count at x1 above the same workspace without the grown source, so a stage
that rescans what it built for every new element (the merge of `tasks.briefing.engineering`, its
search for the entries naming each increment, the numbers check's subjects once did) fails here.
The increments do not name one another: entries that all did would make each increment list all
the others, an output (and work) quadratic in the source whatever the code.

Stages: parse (`RowBuilder.build_one`: decode, caps, note parser, rows), and the evening's
derivation (`run.render_briefing`: verifications, judging, briefing content and rendering) over
the ingested workspace.
"""

from __future__ import annotations

import datetime as dt
import gc
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from sqlalchemy import Engine

from tasks import run
from tasks.config.settings import Settings
from tasks.ingest.rows import RowBuilder
from tasks.ingest.scan import WorkspaceFile
from tests.helpers import ingest_all, truncate_all

DAY = dt.date(2026, 10, 9)
SLACK = 1.25
# The first step (x1 -> x10) is the smallest difference and the noisiest: the runs differ by a few
# thousand lines whatever their size (set order, weakref callbacks), which can even make it negative.
# A linear stage spends a few dozen Python lines per element (the evening's per-line scans cost 27 per
# line of the "lines" note: own_lines 10, names 7, recommends_e1 3, ...); a scan of the earlier elements
# per element costs hundreds at x100. So 40 lines per element is allowed at any size.
FLOOR = 40.0
KNOWLEDGE = ("# inference\n\nversion: v1 · updated: 2026-10-08 12:00 · citations: 0\n\n## §1 Serving\n\n"
             "- KV cache paging for vLLM (arXiv:2601.00001) [anchored 2026-10-01]\n")
BASE_NOTE = ("## 1. Speculative decoding for vLLM inference serving (arXiv:2610.90001)\n\n"
             "- throughput 1.8× on H100 for LLM inference\n")


def _aid(k: int) -> str:
    return f"2609.{10000 + k:05d}"


# Syllables with no letter in common, so that no two coined names are near each other (a fuzzy match).
_SYLLABLES = ("bcd", "fgh", "jkl", "mnp", "qrs", "tvw", "xyz", "aeo")


def _coined(k: int) -> str:
    """The k-th coined system name (k < 4096): "Qu" and k's four octal digits as syllables."""
    return "Qu" + "".join(_SYLLABLES[k >> shift & 7] for shift in (9, 6, 3, 0))


# One source of size n along each dimension, as note text.
GROWN: dict[str, Callable[[int], str]] = {
    "entries": lambda n: "\n\n".join(f"## {k}. KV cache scheduler {k} for inference (arXiv:{_aid(k)})\n\n- {k}% fewer stalls"
                                     for k in range(1, n + 1)),
    "ids": lambda n: "## 1. dump\n\n" + "\n".join(f"arXiv:{_aid(k)} kv cache scheduling note {k}" for k in range(1, n + 1)),
    "lines": lambda n: "## 1. Serving log\n\n" + "\n".join(f"vLLM inference throughput went up again, day {k}"
                                                         for k in range(1, n + 1)),
    "table": lambda n: "## 1. Screening\n\n| # | id | title |\n|---|---|---|\n" + "\n".join(
        f"| {k} | arXiv:{_aid(k)} | Scheduler {k} for inference |" for k in range(1, n + 1)),
    "nesting": lambda n: "## 1. Outline\n\n" + "\n".join("  " * k + f"- level {k} of vLLM serving" for k in range(n)),
    "merges": lambda n: "\n\n".join(
        f"## {2 * k - 1}. {_coined(k)} 2.0 release\n\n{_coined(k)} 2.0 is a new vLLM inference engine, 2.1× faster "
        f"on H100. 建议进 E1\n\n## {2 * k}. {_coined(k)} 2.0 benchmark\n\n{_coined(k)} 2.0 keeps p99 latency "
        f"under 40 ms at 64 concurrent requests" for k in range(1, n + 1)),
}
SIZES = (10, 100, 1000)
EVENING_SIZES = (5, 50, 500)  # the evening is counted over a database round trip: smaller, same factors


def _count(fn: Callable[..., Any], *args: Any) -> int:
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


def _assert_linear(counts: dict[int, int], what: str) -> None:
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


@pytest.mark.parametrize("dimension", sorted(GROWN))
def test_parse_grows_linearly(dimension: str, tmp_path: Path) -> None:
    builder = RowBuilder(1, "Asia/Shanghai", None)

    def parse(text: str) -> None:
        path = tmp_path / "2026-10-09-1100-amy-grown.md"
        data = text.encode()
        path.write_bytes(data)
        wf = WorkspaceFile("inbox/amy/2026-10-09-1100-amy-grown.md", "note", "amy", str(path))
        rows = builder.build_one(wf, data, "0" * 64, None)
        assert rows is not None and not rows.source["warnings"], rows and rows.source["warnings"]

    _count(parse, "## 1. nothing\n")  # warms what is built once per process
    _assert_linear({n: _count(parse, GROWN[dimension](n) + "\n") for n in SIZES}, f"parse {dimension}")


def _workspace(root: Path, grown: str | None) -> Path:
    (root / "organized" / "knowledge").mkdir(parents=True)
    (root / "organized" / "knowledge" / "inference.md").write_text(KNOWLEDGE, encoding="utf-8")
    inbox = root / "inbox" / "amy"
    inbox.mkdir(parents=True)
    (inbox / "2026-10-09-1000-amy-base.md").write_text(BASE_NOTE, encoding="utf-8")
    if grown is not None:
        (inbox / "2026-10-09-1100-amy-grown.md").write_text(grown + "\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("dimension", sorted(GROWN))
def test_the_evening_grows_linearly(dimension: str, tmp_path: Path, settings: Settings, clean_db: Engine) -> None:
    def evening(grown: str | None, name: str) -> int:
        truncate_all(clean_db)
        workspace = _workspace(tmp_path / name, grown)
        ref = ingest_all(settings, workspace)
        (topic,) = run.topics_for(settings, workspace, ["inference"])
        window = run.window_of(topic, DAY)
        return _count(run.render_briefing, settings, ref, topic, window)

    # Warms what is built once per process (the judgment, compiled patterns and statements) with a
    # grown evening, so that the first counted size pays none of it (with the ungrown workspace as
    # the warm-up, the grown entries' paths were first taken at the first size, and the test failed
    # when run alone). Each size's entries then include the previous size's, so every size finds
    # the same share (a tenth) of its entries judged before.
    evening(GROWN[dimension](EVENING_SIZES[0]), "warm")
    counts = {n: evening(GROWN[dimension](n), f"n{n}") for n in EVENING_SIZES}
    _assert_linear(counts, f"evening {dimension}")
