"""Contract: every stage's work grows at most linearly with one source's size (issue 23, part 1).

One generated source is grown x10 and x100 along one dimension at a time (entries naming ids, one
entry naming many ids, plain lines, table rows, list nesting, engineering entries that share a
name), and each stage's operations are counted: every Python function call and builtin call made
while it runs (`sys.setprofile`), which is deterministic, unlike seconds. The count at x10 and
x100 must stay within that factor (with 25% slack for the cost of a bigger set here and there) of
the count at x1 above the same workspace without the grown source, so a stage that rescans what it
built for every new element (the merge of `tasks.briefing.engineering` once did) fails here.

Stages: parse (`RowBuilder.build_one`: decode, caps, note parser, rows), and the evening's
derivation (`run.render_briefing`: verifications, judging, briefing content and rendering) over
the ingested workspace.
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from sqlalchemy import Engine

from predigest.settings import Settings
from tasks import run
from tasks.ingest.rows import RowBuilder
from tasks.ingest.scan import WorkspaceFile
from tests.helpers import ingest_all, truncate_all

DAY = dt.date(2026, 10, 9)
SLACK = 1.25
KNOWLEDGE = ("# inference\n\nversion: v1 · updated: 2026-10-08 12:00 · citations: 0\n\n## §1 Serving\n\n"
             "- KV cache paging for vLLM (arXiv:2601.00001) [anchored 2026-10-01]\n")
BASE_NOTE = ("## 1. Speculative decoding for vLLM inference serving (arXiv:2610.90001)\n\n"
             "- throughput 1.8× on H100 for LLM inference\n")


def _aid(k: int) -> str:
    return f"2609.{10000 + k:05d}"


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
    "merges": lambda n: "\n\n".join(f"## {k}. Kestrel {k}.0 release\n\nKestrel {k}.0 is a new vLLM inference engine, "
                                    f"2.1× faster on H100. 建议进 E1" for k in range(1, n + 1)),
}
SIZES = (10, 100, 1000)
EVENING_SIZES = (5, 50, 500)  # the evening is counted over a database round trip: smaller, same factors


def _count(fn: Callable[..., Any], *args: Any) -> int:
    """How many Python and builtin calls `fn(*args)` makes (generator resumptions included)."""
    calls = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(profile)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return calls


def _assert_linear(counts: dict[int, int], base: int, what: str) -> None:
    sizes = sorted(counts)
    first = counts[sizes[0]] - base
    assert first > 0, (what, counts, base)
    for size in sizes[1:]:
        grown = (counts[size] - base) / first
        assert grown <= SLACK * size / sizes[0], f"{what}: x{size // sizes[0]} costs {grown:.1f}x ({counts})"


@pytest.mark.parametrize("dimension", sorted(GROWN))
def test_parse_grows_linearly(dimension: str, tmp_path: Path) -> None:
    builder = RowBuilder(1, "Asia/Shanghai", ())

    def parse(text: str) -> None:
        path = tmp_path / "2026-10-09-1100-amy-grown.md"
        data = text.encode()
        path.write_bytes(data)
        wf = WorkspaceFile("inbox/amy/2026-10-09-1100-amy-grown.md", "note", "amy", str(path))
        rows = builder.build_one(wf, data, "0" * 64, None)
        assert rows is not None and not rows.source["warnings"], rows and rows.source["warnings"]

    base = _count(parse, "## 1. nothing\n")
    _assert_linear({n: _count(parse, GROWN[dimension](n) + "\n") for n in SIZES}, base, f"parse {dimension}")


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

    base = evening(None, "base")
    counts = {n: evening(GROWN[dimension](n), f"n{n}") for n in EVENING_SIZES}
    _assert_linear(counts, base, f"evening {dimension}")
