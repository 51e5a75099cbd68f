"""Contract: every stage's work grows at most linearly with one source's size (issue 23, part 1).

One generated source is grown x10 and x100 along one dimension at a time (entries naming ids, one
entry naming many ids, plain lines, table rows, list nesting, and "merges": engineering
increments, each a release and a benchmark of one coined system that merge into one, all sharing
the words "release"/"benchmark" and their numbers), and each stage's operations are counted: every
line of Python executed while it runs (`sys.settrace`), which is deterministic, unlike seconds. The
count at x10 and x100 must stay within that factor (with 25% slack for the cost of a bigger set
here and there) of the count at x1 above the same workspace without the grown source, so a stage
that rescans what it built for every new element (the merge of `tasks.increments.engineering`, its
search for the entries naming each increment, the numbers check's subjects once did) fails here.
The increments do not name one another: entries that all did would make each increment list all
the others, an output (and work) quadratic in the source whatever the code.

Stages: parse (`RowBuilder.build_one`: decode, caps, note parser, rows), and the evening's
derivation (`tasks.stages.briefings.render_briefing`: verifications, judging, briefing content and rendering) over
the ingested workspace.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tasks.config.settings import Settings
from tasks.ingest.rows import RowBuilder
from tasks.ingest.scan import WorkspaceFile
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tests.counting import assert_linear, count_lines
from tests.generate.window_sources import DAY, KNOWLEDGE, coined, paper_id
from tests.helpers import empty_tables, ingest_all

BASE_NOTE = ("## 1. Speculative decoding for vLLM inference serving (arXiv:2610.90001)\n\n"
             "- throughput 1.8× on H100 for LLM inference\n")


# One source of size n along each dimension, as note text.
GROWN: dict[str, Callable[[int], str]] = {
    "entries": lambda n: "\n\n".join(f"## {k}. KV cache scheduler {k} for inference (arXiv:{paper_id(k)})\n\n- {k}% fewer stalls"
                                     for k in range(1, n + 1)),
    "ids": lambda n: "## 1. dump\n\n" + "\n".join(f"arXiv:{paper_id(k)} kv cache scheduling note {k}" for k in range(1, n + 1)),
    "lines": lambda n: "## 1. Serving log\n\n" + "\n".join(f"vLLM inference throughput went up again, day {k}"
                                                         for k in range(1, n + 1)),
    "table": lambda n: "## 1. Screening\n\n| # | id | title |\n|---|---|---|\n" + "\n".join(
        f"| {k} | arXiv:{paper_id(k)} | Scheduler {k} for inference |" for k in range(1, n + 1)),
    "nesting": lambda n: "## 1. Outline\n\n" + "\n".join("  " * k + f"- level {k} of vLLM serving" for k in range(n)),
    "merges": lambda n: "\n\n".join(
        f"## {2 * k - 1}. {coined(k)} 2.0 release\n\n{coined(k)} 2.0 is a new vLLM inference engine, 2.1× faster "
        f"on H100. 建议进 E1\n\n## {2 * k}. {coined(k)} 2.0 benchmark\n\n{coined(k)} 2.0 keeps p99 latency "
        f"under 40 ms at 64 concurrent requests" for k in range(1, n + 1)),
}
SIZES = (10, 100, 1000)
EVENING_SIZES = (5, 50, 500)  # the evening is counted over a database round trip: smaller, same factors
pytestmark = pytest.mark.counting  # Python lines, whatever the database: CI's server pass only


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

    count_lines(parse, "## 1. nothing\n")  # warms what is built once per process
    assert_linear({n: count_lines(parse, GROWN[dimension](n) + "\n") for n in SIZES}, f"parse {dimension}")


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
        empty_tables(clean_db)
        workspace = _workspace(tmp_path / name, grown)
        ref = ingest_all(settings, workspace)
        (topic,) = topics_for(settings, workspace, ["inference"])
        window = window_of(topic, DAY)
        return count_lines(render_briefing, settings, ref, topic, window)

    # Warms what is built once per process (the judgment, compiled patterns and statements) with a
    # grown evening, so that the first counted size pays none of it (with the ungrown workspace as
    # the warm-up, the grown entries' paths were first taken at the first size, and the test failed
    # when run alone). Each size's entries then include the previous size's, so every size finds
    # the same share (a tenth) of its entries judged before.
    evening(GROWN[dimension](EVENING_SIZES[0]), "warm")
    counts = {n: evening(GROWN[dimension](n), f"n{n}") for n in EVENING_SIZES}
    assert_linear(counts, f"evening {dimension}")
