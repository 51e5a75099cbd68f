"""Contract of a paper's own joined texts in a note entry, parsed once at ingest
(tasks.inbox.own_parts.paper_outlines) and read at judging (tasks.judge.points):

- the paper's own entry reads with the sub-sections under its heading that name no other paper, as
  the briefing's date reads the ids (an id that could not exist yet names no paper): the points are
  those of the entry and those sub-sections' text joined, each under its own heading;
- an entry about several papers gives each the points of the units that name it, joined (a table
  row is read alone);
- each distinct joined text is stored once, and an entry whose joined texts would pass
  MAX_OWN_PARTS_FACTOR times its text keeps what fits, and its note says so (CAPPED).
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from tasks.common.arxiv_ids import issued_by
from tasks.common.limits import CAPPED
from tasks.inbox.notes import parse_note
from tasks.inbox.outline_reader import Point, parse_outline, points_of, units
from tasks.inbox.own_parts import MAX_OWN_PARTS_FACTOR, paper_outlines
from tasks.ingest.sources import entry_text
from tasks.judge.points import _candidates
from tasks.model.window_views import EntryView, MentionView
from tests.judge.digests import views

PATH = "inbox/tom/2026-11-03T0900-tom-foo.md"
JOIN = 60
OWN = """## FooServe: Tiered KV Cache（arXiv:2611.00001）

FooServe 把 KV cache 分层放到 CPU 内存，长上下文下吞吐更高。

### 核心观点
- 分层卸载让长上下文吞吐提升 2.1×。
- 只在 H100 上测过，没有公开 trace。

### 和 BarKV 的对比（arXiv:2611.00002）
- BarKV 更省显存，但延迟高 30%。

### 待跟进（arXiv:2612.00009）
- 作者说下月放代码。
"""
DIGEST = """## 本周雷达

- FooServe（arXiv:2611.00001）：分层 KV cache，吞吐提升 2.1×。
  - 只在 H100 上测过。
- BarKV（arXiv:2611.00002）：KV 压缩到 4 bit，显存省 40%。
- 两者对比：2611.00001 比 2611.00002 快，但更占内存。

| # | arXiv | 名称 |
|---|---|---|
| 1 | 2611.00003 | BazAttn |
"""


def _on(day: dt.date, text: str) -> tuple[list[MentionView], dict[tuple[int, int], EntryView]]:
    """The views the briefing of `day` reads: an id that could not exist by then names no paper."""
    mentions, entries = views(PATH, text)
    return ([m for m in mentions if m.arxiv_id and issued_by(m.arxiv_id, day)],
            {k: dataclasses.replace(e, ids=tuple(i for i in e.ids if issued_by(i, day))) for k, e in entries.items()})


def _points(arxiv_id: str, day: dt.date, text: str, rank: int) -> tuple[Point, ...]:
    mentions, entries = _on(day, text)
    mine = [m for m in mentions if m.arxiv_id == arxiv_id]
    (candidate,) = [c for c in _candidates(arxiv_id, "", mine, entries, JOIN) if c.rank == rank]
    return candidate.points


def _joined_sections(text: str, kept: list[str]) -> str:
    """The entry's text and the sub-sections named in `kept`, each under its own heading."""
    entries = parse_note(text).entries
    head = next(e for e in entries if e.heading_path.endswith("（arXiv:2611.00001）"))
    parts = [f"#### {e.heading_path.split(' › ')[-1]}\n{e.text}" for e in entries
             if e.heading_path.startswith(head.heading_path + " › ") and e.heading_path.split(" › ")[-1] in kept]
    return "\n\n".join([head.text, *parts])


def test_the_own_entry_reads_its_sub_sections_as_the_date_reads_their_ids() -> None:
    november = _points("2611.00001", dt.date(2026, 11, 20), OWN, 4)
    december = _points("2611.00001", dt.date(2026, 12, 20), OWN, 4)
    assert november == points_of(parse_outline(_joined_sections(OWN, ["核心观点", "待跟进（arXiv:2612.00009）"])), JOIN)
    assert december == points_of(parse_outline(_joined_sections(OWN, ["核心观点"])), JOIN)
    text = "\n".join(p.text for p in november)
    assert "2.1×" in text and "下月放代码" in text and "BarKV" not in text
    assert "下月放代码" not in "\n".join(p.text for p in december)


def test_a_paper_of_a_digest_gets_the_units_that_name_it() -> None:
    day = dt.date(2026, 11, 20)
    body = DIGEST.split("\n", 2)[2]
    for arxiv_id in ("2611.00001", "2611.00002"):
        own = [u for u in units(body) if arxiv_id in u and not u.startswith("|")]
        assert _points(arxiv_id, day, DIGEST, 2) == points_of(parse_outline("\n\n".join(own)), JOIN)
        assert _points(arxiv_id, day, DIGEST, 2)
    mentions, entries = _on(day, DIGEST)
    row = [m for m in mentions if m.arxiv_id == "2611.00003"]
    assert [c.rank for c in _candidates("2611.00003", "", row, entries, JOIN)] == [1]  # a table row only: read alone


def test_each_joined_text_is_stored_once_and_capped() -> None:
    names = [f"2611.{n:05d}" for n in range(1, 61)]
    body = "\n".join(["- 本周都看了：" + "、".join(names) + "。", *(f"- {i}：第 {k} 篇的要点。" for k, i in enumerate(names))])
    warnings: list[str] = []
    (stored,) = paper_outlines([entry_text("本周", body, names)], warnings)
    assert stored is not None
    assert [w for w in warnings if w.startswith(CAPPED)]
    kept = sum(len(o.to_json().__repr__()) for o in stored.outlines)
    assert len(stored.outlines) < len(names) and kept <= 2 * MAX_OWN_PARTS_FACTOR * len(body)
    assert len(set(k for _, k in stored.by_id)) == len(stored.outlines) == len(stored.by_id)
    # Papers that share their units share one stored outline.
    shared = "\n".join(["- 两篇一起：2611.00001 与 2611.00002 都做 KV 分层。", "- 另一篇：2611.00003 做压缩。"])
    (both,) = paper_outlines([entry_text("本周", shared, ["2611.00001", "2611.00002", "2611.00003"])], [])
    assert both is not None and both.for_id("2611.00001") == both.for_id("2611.00002") != both.for_id("2611.00003")
