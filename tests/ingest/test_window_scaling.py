"""Contract: every stage of the evening grows at most linearly with the number of sources in one
window (issue 23, the cross-source half; tests/ingest/test_scaling.py grows one source).

A busy day is ten times the notes in the same window (benchmarks/README.md, "the whole run from
10 MB to 96 MB": 33 -> 333 notes a day made the evening's CPU grow with their square), so the
window here holds 10, 100 and 400 short notes (400: more than that busy day's 333, at a third of
the time 1000 took; two Python lines per pair of sources, added to judging, fail it:
4,343 lines per note from 100 to 400 against 2,966 at first) (tests/generate/window_sources.py: each names a paper
or two, some shared, states numbers, and raises, confirms or merges hedged claims and engineering
increments, in Chinese and English; echoes, published briefings dropped into the inbox, restate
hedged claims that lookback notes settled, or not). Each stage's operations are counted as test_scaling counts
them (tests/counting.py: Python lines executed, deterministic) and must grow linearly: a pass that
meets every source's items with every other source's (each entry against every window paper's
coined name, each entry against every open subject, each source against every paper, each echoed
claim against every lookback note) fails here.

The window's claims are about its papers (`papers`), or about things with no arXiv id that share
words (`named`).

Stages: the derivation of the window's verifications (`derive_verifications`: collecting, judging
and observing the window), judging alone (`judge_evening`), the briefing's content
(`collected_content`: tracked items, source rows, sections) and its rendering (`rendered`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from tasks.briefing.assemble import judge_evening
from tasks.config.settings import Settings
from tasks.publish.rendered import rendered
from tasks.stages.briefed_topics import density_rule_for, known_topic_names, topics_for
from tasks.stages.briefings import collected_content
from tasks.stages.derive import Derivation
from tasks.stages.verifications import derive_verifications
from tests.counting import assert_linear, count_lines
from tests.generate.window_sources import DAY, KNOWLEDGE, echo_count, notes
from tests.helpers import empty_tables, ingest_all

SIZES = (10, 100, 400)
STAGES = ("derive", "judge", "content", "render")
pytestmark = pytest.mark.counting  # Python lines, whatever the database: CI's server pass only


def _workspace(root: Path, n: int, named: bool) -> Path:
    (root / "organized" / "knowledge").mkdir(parents=True)
    (root / "organized" / "knowledge" / "inference.md").write_text(KNOWLEDGE, encoding="utf-8")
    for rel, text in notes(n, named).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _evening(settings: Settings, engine: Engine, root: Path, n: int, named: bool) -> dict[str, int]:
    """Each stage's count over a window of n notes."""
    empty_tables(engine)
    workspace = _workspace(root, n, named)
    ref = ingest_all(settings, workspace)
    (topic,) = topics_for(settings, workspace, ["inference"])
    known = known_topic_names(settings, workspace)
    rule = density_rule_for(settings, workspace, topic.name)
    out: dict[str, int] = {}
    derived: list[Derivation] = []
    out["derive"] = count_lines(lambda: derived.append(
        derive_verifications(settings, ref, topic, DAY, keep=[DAY], known=known)))
    judged = derived[0].judged[DAY]
    assert len(judged.data.sources) == n + echo_count(n)  # all in one window
    out["judge"] = count_lines(judge_evening, judged.data, topic)
    content = []
    out["content"] = count_lines(lambda: content.append(collected_content(
        settings, ref, topic, judged.data, known, rule, judged.papers, judged.budgets)))
    out["render"] = count_lines(rendered, content[0], settings.lang)
    return out


# With `named`, subjects with no arXiv id, each pending in one note and confirmed by the next, all
# sharing the word "router" / "路由器" and the coined names' first letters: the briefing's grouping of
# pending items (`one_per_subject`, tasks/verify/items.py) compared each with every item sharing a
# word until it looked only where one of its rules could hold.
@pytest.mark.parametrize("named", [False, True], ids=["papers", "named"])
def test_the_evening_grows_linearly_in_the_sources_of_a_window(
        named: bool, tmp_path: Path, settings: Settings, clean_db: Engine) -> None:
    # Warms what is built once per process (the judgment, compiled patterns, statements) with the
    # smallest window, so that the first counted size pays none of it.
    _evening(settings, clean_db, tmp_path / "warm", SIZES[0], named)
    counts = {n: _evening(settings, clean_db, tmp_path / f"n{n}", n, named) for n in SIZES}
    print(counts)  # shown with -s: the figures an issue or a report quotes
    failures: list[str] = []
    for stage in STAGES:
        try:
            assert_linear({n: c[stage] for n, c in counts.items()}, f"evening {stage}")
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n".join(failures)
